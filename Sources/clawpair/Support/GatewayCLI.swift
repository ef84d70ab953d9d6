import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// What the gateway commands (`devices`, `nodes`, `qr`, `pair`) share: which gateway, which
/// credentials, this machine's identity, connecting as an operator, and error output.
enum GatewayCLI {
    static let defaultTimeoutMs: Int64 = 10_000

    /// Options of every command that talks to a gateway as an operator.
    static let connectionOptions: [OptionSpec] = [
        .value("url", "URL", help: "The gateway's ws:// or wss:// URL (default: OPENCLAW_GATEWAY_URL, else 'gateways use', "
                   + "else the local gateway); it gets only explicit credentials (CREDENTIALS in this command's man page).", completion: .hostname),
        .value("gateway", "NAME", help: "A paired gateway from the registry, by name or id ('clawpair gateways list').",
               completion: ListNamesCommand.gatewayNames),
        .value("token-file", "FILE", help: "Read the gateway's shared token from FILE.", completion: .file),
        .value("password-file", "FILE", help: "Read the gateway's password from FILE.", completion: .file),
        .value("token", "TOKEN", help: "The gateway token (- reads standard input); other users can see it on the command "
                   + "line, so this warns: prefer --token-file."),
        .value("password", "PASSWORD", help: "The gateway password; - reads it from standard input (warns like --token)."),
        .value("timeout", "MS", help: "Limit for connecting and for each call, in ms or with a unit such as 3s (default 10000)."),
    ] + trustOptions

    /// `--trust` and `--tls-fingerprint`: of every command that dials a gateway.
    static let trustOptions: [OptionSpec] = [
        .value("trust", "SHA256", help: "Accept the certificate with this SHA-256 fingerprint, once you checked it is your "
                   + "gateway's."),
        .value("tls-fingerprint", "SHA256", help: "Pin: the SHA-256 of the gateway's certificate (wss://). Default: the pin "
                   + "stored for a paired gateway, else the system roots."),
    ]

    static let credentialsSection = DocSection("CREDENTIALS", [
        "The gateway is --url, else --gateway NAME, else OPENCLAW_GATEWAY_URL, else the gateway chosen with "
            + "'clawpair gateways use' (when this machine holds only a node token for it, no credential is in the "
            + "environment and exactly one other paired gateway holds its operator token, that one, with a note), else the local gateway, ws://127.0.0.1 on the port OpenClaw's own CLI dials "
            + "(OPENCLAW_GATEWAY_PORT, else gateway.port in openclaw.json, else 18789). The operator credential is taken from the first of: "
            + "--token-file or --password-file (or --token/--password, which warn); for OPENCLAW_GATEWAY_URL and the local "
            + "gateway, OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_PASSWORD; the operator device token stored in the registry "
            + "for that gateway; for a registry gateway whose URL is OPENCLAW_GATEWAY_URL or the local gateway's, those "
            + "variables; and, for a gateway on loopback only, gateway.auth.token or gateway.auth.password in OpenClaw's "
            + "config file (~/.openclaw/openclaw.json, JSON5).",
        "OPENCLAW_GATEWAY_TOKEN and OPENCLAW_GATEWAY_PASSWORD go only to the gateway they are set for: OPENCLAW_GATEWAY_URL, "
            + "else the local gateway. A gateway from the registry (--gateway NAME, or the default one) gets the device token "
            + "stored for it, never these variables, unless its URL is one of those two: whatever gateway the registry "
            + "selects, the shared operator secret is not sent to it.",
        "A --url never reuses implicit credentials (OpenClaw's URL override safety): it gets only --token-file or "
            + "--password-file and the device token stored for that same gateway, never OPENCLAW_GATEWAY_TOKEN, "
            + "OPENCLAW_GATEWAY_PASSWORD or the config file, so a mistyped or hostile URL never receives the "
            + "operator's secret. OPENCLAW_GATEWAY_URL may use OPENCLAW_GATEWAY_TOKEN and OPENCLAW_GATEWAY_PASSWORD, "
            + "but not the config file. Token values a gateway returns are never printed (they read \"<redacted>\"), "
            + "except by 'devices rotate --reveal'.",
        "When the gateway refuses a shared token and invites a retry (canRetryWithDeviceToken, recommendedNextStep "
            + "retry_with_device_token, or AUTH_TOKEN_MISMATCH, as upstream's clients read it), the command connects once "
            + "more with the operator device token stored for that gateway, only on loopback or a pinned wss:// gateway. "
            + "A gateway limiting attempts (AUTH_RATE_LIMITED, wait_then_retry) gets the advice to wait; one with no "
            + "shared token or password configured (AUTH_TOKEN_NOT_CONFIGURED) the advice that its administrator must set one.",
        "Every connection also proves this machine's device identity (the clawpair store's; one is created on first "
            + "use): the connect request is signed over the gateway's challenge (v2 payload, signedAt = the challenge's ts).",
        "Operator commands connect as client 'cli' in mode 'cli' with role operator and the scopes operator.admin, "
            + "operator.approvals and operator.pairing. A gateway answers unknown devices with a pairing request "
            + "unless they connect over loopback; the error then prints the request id and the exact approve command.",
    ])

    static let environmentSection = DocSection("ENVIRONMENT", [
        "OPENCLAW_GATEWAY_URL: the gateway when neither --url nor --gateway is given (see CREDENTIALS).",
        "OPENCLAW_GATEWAY_TOKEN, OPENCLAW_GATEWAY_PASSWORD: operator credentials for OPENCLAW_GATEWAY_URL or the local gateway "
            + "only, never sent to a --url or to another registry gateway (see CREDENTIALS).",
        "CLAWPAIR_HOME: the clawpair home (default $XDG_CONFIG_HOME/clawpair, else ~/.config/clawpair), holding "
            + "identity/ and gateways/.",
        "OPENCLAW_CONFIG_PATH, OPENCLAW_STATE_DIR: where OpenClaw's config file is read from (gateway.port for the "
            + "default URL; credentials for loopback gateways only).",
        "OPENCLAW_GATEWAY_PORT: the local gateway's port when no gateway is named (before gateway.port in openclaw.json).",
    ])

    static let exitSection = DocSection("EXIT STATUS", [
        """
          0  the call succeeded
          1  the gateway failed the call, broke the protocol, stalled or closed
          2  usage error
          3  the gateway is unreachable, or nothing matched
          4  refused: wrong token or password, pairing required, device proof refused,
             missing scope, or the TLS certificate failed its pin or system trust
        """,
        "Silence ends a command by the stage it happens in. Until the gateway has sent connect.challenge (TCP "
            + "connect, TLS handshake, WebSocket upgrade, the wait for the challenge) nothing is reachable: exit 3, the "
            + "error naming the step (tcp, tls, ws, challenge). After it, the gateway answered and then failed: no answer "
            + "to connect or to a call within --timeout, or, after hello-ok, silence longer than twice its tick interval, "
            + "is exit 1.",
        "A message over a limit is exit 1, and the error names the limit and the size the gateway sent: 64 KiB "
            + "(clawpair's, before hello-ok), then the maxPayload the gateway announced in hello-ok or clawpair's "
            + "2 MiB ceiling, whichever is smaller; 125 bytes for a ping, pong or close frame (RFC 6455).",
    ])

    // MARK: Target and credential (resolved in the library: OperatorSession)

    static func home(_ context: CommandContext) throws -> String {
        try IdentityStore.locate(environment: context.environment).directory
    }

    static func timeout(_ arguments: ParsedArguments) throws -> Duration {
        .milliseconds(try DurationOption.milliseconds(arguments.value("timeout"), option: "timeout", default: defaultTimeoutMs,
                                                    allowZero: false))
    }

    // MARK: Identity

    /// This machine's identity from the clawpair store; created (and saved, 0600) on first use.
    static func identity(_ context: CommandContext) throws -> DeviceIdentity {
        let store = try IdentityStore.locate(environment: context.environment)
        let (identity, created) = try store.loadOrCreateIdentity(createdAtMs: context.nowMs, environment: context.environment)
        if created { context.note("Created this machine's device identity \(identity.deviceId.prefix(16))… in \(store.identityPath)") }
        return identity
    }

    /// This machine's identity for an operator connection: the stored one, else a new one that
    /// is saved only once a gateway answered (``saveIfNew``), so that a command that reaches no
    /// gateway leaves no identity behind.
    struct PendingIdentity {
        let identity: DeviceIdentity
        /// Set when the identity is new and not saved yet.
        let store: IdentityStore?

        /// Saves a new identity (0600) and says so; nothing for a stored one. A concurrent first
        /// use that saved another one first wins: this one is then not saved.
        func saveIfNew(_ context: CommandContext) throws {
            guard let store else { return }
            do {
                try store.saveIdentity(identity, replacing: false, environment: context.environment)
            } catch .alreadyExists {
                return
            }
            context.note("Created this machine's device identity \(identity.deviceId.prefix(16))… in \(store.identityPath)")
        }
    }

    /// The stored identity, or a new one not saved yet (see ``PendingIdentity``).
    static func pendingIdentity(_ context: CommandContext) throws -> PendingIdentity {
        let store = try IdentityStore.locate(environment: context.environment)
        do {
            return PendingIdentity(identity: try store.loadIdentity().identity, store: nil)
        } catch .noIdentity {
            return PendingIdentity(identity: try DeviceIdentity.generate(createdAtMs: context.nowMs), store: store)
        }
    }

    /// The stored identity, nil when there is none (nothing is created).
    static func existingIdentity(_ context: CommandContext) throws -> DeviceIdentity? {
        let store = try IdentityStore.locate(environment: context.environment)
        do {
            return try store.loadIdentity().identity
        } catch .noIdentity {
            return nil
        }
    }

    // MARK: Credentials

    /// The explicit secrets (files, standard input, literals); the environment is the library's.
    static let tokenInput = SecretInput(what: "gateway token", fileOption: "token-file", valueOption: "token",
                                        environmentVariable: OperatorEnvironment.token, readsEnvironment: false)
    static let passwordInput = SecretInput(what: "gateway password", fileOption: "password-file", valueOption: "password",
                                           environmentVariable: OperatorEnvironment.password, readsEnvironment: false)

    /// `--token-file`/`--token` or `--password-file`/`--password`, when given.
    static func explicitSecret(_ arguments: ParsedArguments, _ context: CommandContext) throws -> OperatorSecret? {
        if tokenInput.isGiven(arguments) && passwordInput.isGiven(arguments) { throw UsageError("give a token or a password, not both") }
        if let token = try tokenInput.read(arguments, context) { return .token(token) }
        if let password = try passwordInput.read(arguments, context) { return .password(password) }
        return nil
    }

    /// Where the credential came from, for `-v`: an explicit one from an option.
    static func describe(_ source: OperatorCredentialSource) -> String {
        switch source {
        case .explicitToken: return "the token option"
        case .explicitPassword: return "the password option"
        default: return source.description
        }
    }

    // MARK: Connecting

    /// The session options of an operator command: the target is `--url`, else `--gateway NAME`,
    /// The registry under the clawpair home: a change waits at most `timeout` for another
    /// process's lock, and says after a moment who it waits for (issue #25.15).
    static func registry(_ context: CommandContext, timeout: Duration = .seconds(10)) throws -> GatewayRegistry {
        var registry = GatewayRegistry(home: try home(context))
        registry.lockTimeout = timeout
        registry.onLockWait = { path, holder in
            context.note("Waiting for the gateway registry lock \(path), held by \(holder.map { "process \($0)" } ?? "another clawpair process") "
                         + "(giving up after \(DurationText.describe(milliseconds: GatewayPairing.milliseconds(timeout))))…")
        }
        return registry
    }

    /// else automatic (`OPENCLAW_GATEWAY_URL`, the active registry gateway, the default URL).
    static func sessionOptions(_ arguments: ParsedArguments, _ context: CommandContext,
                               identity: DeviceIdentity) throws -> OperatorSessionOptions {
        guard var choice = OperatorTargetChoice(url: arguments.value("url"), registryGateway: arguments.value("gateway")) else {
            throw UsageError("give either --url or --gateway, not both")
        }
        let timeout = try timeout(arguments)
        let registry = try Self.registry(context, timeout: timeout)
        let pin = try pin(arguments)
        let secret = try explicitSecret(arguments, context)
        if choice == .automatic, secret == nil, let serving = operatorDefault(registry, identity: identity, context: context) {
            choice = .registryGateway(serving.id)
        }
        return OperatorSessionOptions(target: choice, pin: pin, explicitSecret: secret, environment: context.environment,
                                      registry: registry, identity: identity, timeout: timeout)
    }

    /// The paired gateway an operator command uses by default instead of the chosen one, when the
    /// chosen one cannot serve it (issue #24 §7): no OPENCLAW_GATEWAY_URL, nor a token or password
    /// in the environment; the chosen gateway holds only other roles' tokens of this machine (a
    /// node-only machine); and exactly one other paired gateway holds an operator token of it.
    /// Says which it took and why; nil (keep the chosen one) otherwise.
    static func operatorDefault(_ registry: GatewayRegistry, identity: DeviceIdentity, context: CommandContext) -> PairedGateway? {
        let environment = context.environment
        guard [OperatorEnvironment.gatewayURL, OperatorEnvironment.token, OperatorEnvironment.password]
                .allSatisfy({ (environment[$0] ?? "").isEmpty }),
              let chosen = registry.active(), chosen.holdsTokens(for: identity.deviceId),
              chosen.token(for: GatewayRole.operator.rawValue, deviceId: identity.deviceId) == nil else { return nil }
        let serving = registry.list().gateways.filter {
            $0.id != chosen.id && $0.token(for: GatewayRole.operator.rawValue, deviceId: identity.deviceId) != nil
        }
        guard serving.count == 1, let other = serving.first else { return nil }
        context.note("Using \(TerminalText.sanitize(other.name, maxScalars: 80)): this machine holds only a node token for the "
                     + "chosen gateway \(TerminalText.sanitize(chosen.name, maxScalars: 80)) (--gateway NAME picks one)")
        return other
    }

    /// `--tls-fingerprint` or `--trust` (the same pin: one is what a user chose, the other what an
    /// untrusted certificate's hint told them to run), normalized.
    static func pin(_ arguments: ParsedArguments) throws -> String? {
        let pinned = try FingerprintOption.normalized(arguments.value("tls-fingerprint"), option: "tls-fingerprint")
        let trusted = try FingerprintOption.normalized(arguments.value("trust"), option: "trust")
        if let pinned, let trusted, pinned != trusted {
            throw UsageError("--tls-fingerprint and --trust name different certificates", hint: "give one of them")
        }
        return pinned ?? trusted
    }

    /// The hint of a TLS trust failure with the exact command to run again: an untrusted
    /// certificate with `--trust` and its fingerprint, a changed one with `--tls-fingerprint`
    /// and the new one (a literal --token or --password is left out: it is not echoed). Other
    /// errors as they are.
    static func withTrustCommand(_ shown: PresentedError, _ arguments: ParsedArguments) -> PresentedError {
        guard let remedy = TrustRemedy(shown.underlying) else { return shown }
        let option = if case .accept = remedy { "trust" } else { "tls-fingerprint" }
        let command = arguments.commandLine(omitting: ["trust", "tls-fingerprint", "token", "password"],
                                            adding: [(option, remedy.fingerprint)])
        return PresentedError(shown.underlying, status: shown.exitStatus, message: shown.message, hint: "\(remedy.advice): \(command)",
                              code: shown.code, details: shown.details + [("trustCommand", .string(command))])
    }

    /// A failure that a wrong scheme explains (`ws://` to a TLS port: the connection closes
    /// without an HTTP answer; `wss://` to a plaintext one: the TLS handshake fails), when the
    /// other scheme works there (``WrongScheme``): code `wrong-scheme`, the URL that works in
    /// the hint (the command again, when the URL was --url) and as `url`.
    static func withSchemeDiagnosis(_ shown: PresentedError, endpoint: GatewayEndpoint, _ arguments: ParsedArguments) -> PresentedError {
        guard let wrong = WrongScheme.diagnose(shown.underlying, endpoint: endpoint) else { return shown }
        var hint = "use \(wrong.url)"
        if arguments.value("url") != nil {
            hint += ": " + arguments.commandLine(omitting: ["token", "password"], replacing: ["url": wrong.url])
        }
        return PresentedError(shown.underlying, status: shown.exitStatus, message: shown.message + " (\(wrong.explanation))",
                              hint: hint, code: "wrong-scheme", details: shown.details + [("url", .string(wrong.url))])
    }

    /// Opens the connection and authenticates as an operator.
    static func connectOperator(_ arguments: ParsedArguments, _ context: CommandContext) throws -> OperatorSession {
        let identity = try pendingIdentity(context)
        let options = try sessionOptions(arguments, context, identity: identity.identity)
        let plan = try OperatorSession.plan(options)
        if context.globals.verbosity > 0 {
            context.note("gateway: \(plan.target.summary)")
            context.note("credential: \(describe(plan.credential.source))")
        }
        let session: OperatorSession
        // A spinner on a terminal while the gateway has not answered (after ~300 ms), as discover has.
        let spinner = Spinner.start("Connecting to \(TerminalText.sanitize(plan.target.endpoint.url, maxScalars: 120))", in: context,
                                    delay: Spinner.gatewayDelay)
        do {
            defer { spinner?.stop() }
            session = try OperatorSession.connect(plan, options: options)
        } catch {
            // A gateway that answered may hold a pairing request for this identity: keep it then.
            if let error = error as? GatewayError, Self.answered(error) { try? identity.saveIfNew(context) }
            if let nodeOnly = nodeOnlyRefusal(error, plan: plan, identity: identity.identity) { throw nodeOnly }
            throw withSchemeDiagnosis(withTrustCommand(ErrorPresentation.present(error, plan: plan), arguments),
                                      endpoint: plan.target.endpoint, arguments)
        }
        do {
            try identity.saveIfNew(context)
        } catch {
            session.close()
            throw error
        }
        if context.globals.verbosity > 0 { context.note("connected: \(session.hello.summary)") }
        // A paired gateway answered: its lastSeen, if the record still exists (a concurrent
        // `gateways forget` wins; nothing else in the record is written back).
        if let record = plan.target.record { _ = try? options.registry.update(id: record.id) { $0.lastSeenAtMs = context.nowMs } }
        return session
    }

    /// A refusal of an operator connection that sent no credential to a paired gateway for which
    /// this machine holds device tokens, none of them an operator's (a node-only machine): said
    /// as that, instead of the gateway's wording (which may name its own config keys).
    static func nodeOnlyRefusal(_ error: any Error, plan: OperatorPlan, identity: DeviceIdentity) -> PresentedError? {
        guard let gatewayError = error as? GatewayError, gatewayError.isCredentialRefusal,
              plan.credential.source == .none, let record = plan.target.record,
              record.holdsTokens(for: identity.deviceId),
              record.token(for: GatewayRole.operator.rawValue, deviceId: identity.deviceId) == nil else { return nil }
        let roles = Set(record.tokens.map(\.role)).sorted().joined(separator: " and ")
        let shown = ErrorPresentation.present(error, plan: plan)
        return PresentedError(error, status: .refused,
                              message: "this machine holds only a \(TerminalText.sanitize(roles, maxScalars: 40)) token for "
                                + "\(TerminalText.sanitize(record.name, maxScalars: 80)), and operator commands need an operator "
                                + "credential: none was sent, and the gateway refused the connection",
                              hint: "pass the gateway's token with --token-file FILE, name another gateway with --gateway NAME, "
                                + "or pair this machine as an operator: clawpair pair --role operator - < code.txt "
                                + "(with a code from 'clawpair qr' on the gateway)",
                              code: shown.code, details: shown.details)
    }

    /// Whether the gateway itself answered (it may have recorded this device): not when nothing
    /// answered or its certificate was not trusted.
    static func answered(_ error: GatewayError) -> Bool {
        if case .tlsTrust = error { return false }
        return !error.isNothingAnswered
    }

    /// Connects as an operator, runs `body` with the session, closes it, and reports failures
    /// (with a JSON error document under `--json`).
    static func withOperator(_ arguments: ParsedArguments, _ context: CommandContext,
                             _ body: (OperatorSession) throws -> ExitStatus) throws -> ExitStatus {
        try run(context) {
            let session = try connectOperator(arguments, context)
            defer { session.close() }
            return try body(session)
        }
    }

    /// The man page sections of an operator command: its JSON OUTPUT text, then CREDENTIALS,
    /// ENVIRONMENT and EXIT STATUS.
    static func sections(json: String) -> [DocSection] {
        [DocSection("JSON OUTPUT", [json]), credentialsSection, environmentSection, exitSection]
    }

    /// The same, with the command's JSON OUTPUT text in its man source (Man/sections/<page>.txt).
    static let sections: [DocSection] = [.inManSource("JSON OUTPUT"), credentialsSection, environmentSection, exitSection]

    // MARK: Output

    /// Calls `body`; a failure is thrown as the command line presents it (``ErrorPresentation``),
    /// and the CLI frame prints it (with the JSON envelope under `--json`).
    static func run(_ context: CommandContext, _ body: () throws -> ExitStatus) throws -> ExitStatus {
        do {
            return try body()
        } catch {
            throw ErrorPresentation.present(error)
        }
    }
}
