#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairConfig

/// What the gateway commands (`devices`, `nodes`, `qr`, `pair`) share: which gateway, which
/// credentials, this machine's identity, connecting as an operator, and error output.
enum GatewayCLI {
    static let defaultTimeoutMs: Int64 = 10_000

    /// Options of every command that talks to a gateway as an operator.
    static let connectionOptions: [OptionSpec] = [
        .value("url", "URL", help: "The gateway's ws:// or wss:// URL (default: the gateway chosen with 'clawpair gateways use', "
                   + "else ws://127.0.0.1:18789).", completion: .hostname),
        .value("gateway", "NAME", help: "A paired gateway from the registry, by name or id ('clawpair gateways list')."),
        .value("token-file", "FILE", help: "Read the gateway's shared token from FILE.", completion: .file),
        .value("password-file", "FILE", help: "Read the gateway's password from FILE.", completion: .file),
        .value("token", "TOKEN", help: "The gateway token; - reads it from standard input. On the command line it is "
                   + "visible to other users, so this warns: prefer --token-file or OPENCLAW_GATEWAY_TOKEN."),
        .value("password", "PASSWORD", help: "The gateway password; - reads it from standard input (warns like --token)."),
        .value("timeout", "MS", help: "Limit for connecting and for each call, in ms or with a unit such as 3s (default 10000)."),
        .value("tls-fingerprint", "SHA256", help: "Pin: the SHA-256 of the gateway's certificate (wss://). Default: the pin "
                   + "stored for a paired gateway, else the system roots."),
    ]

    static let credentialsSection = DocSection("CREDENTIALS", [
        "The operator credential is taken from the first of: --token-file or --password-file (or --token/--password, "
            + "which warn); OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_PASSWORD; the operator device token stored in "
            + "the registry for that gateway; and, for a gateway on loopback only, gateway.auth.token or "
            + "gateway.auth.password in OpenClaw's config file (~/.openclaw/openclaw.json, JSON5). Every connection "
            + "also proves this machine's device identity (the clawpair store's; one is created on first use): the "
            + "connect request is signed over the gateway's challenge (v2 payload, signedAt = the challenge's ts).",
        "Operator commands connect as client 'cli' in mode 'cli' with role operator and the scopes operator.admin, "
            + "operator.approvals and operator.pairing. A gateway answers unknown devices with a pairing request "
            + "unless they connect over loopback; the error then prints the request id and the exact approve command.",
    ])

    static let environmentSection = DocSection("ENVIRONMENT", [
        "OPENCLAW_GATEWAY_TOKEN, OPENCLAW_GATEWAY_PASSWORD: operator credentials (see CREDENTIALS).",
        "CLAWPAIR_HOME: the clawpair home (default $XDG_CONFIG_HOME/clawpair, else ~/.config/clawpair), holding "
            + "identity/ and gateways/.",
        "OPENCLAW_CONFIG_PATH, OPENCLAW_STATE_DIR: where OpenClaw's config file is read from (loopback gateways only).",
        "NO_COLOR: no colours.",
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
    ])

    // MARK: Target

    struct Target {
        var endpoint: GatewayEndpoint
        /// The registry record, when the gateway is a paired one.
        var record: PairedGateway?
        var registry: GatewayRegistry
    }

    static func home(_ context: CommandContext) throws -> String {
        try IdentityStore.locate(environment: context.environment).directory
    }

    /// `--url`, else `--gateway NAME`, else the active registry gateway, else the default URL.
    static func target(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Target {
        let registry = GatewayRegistry(home: try home(context))
        if arguments.value("url") != nil && arguments.value("gateway") != nil {
            throw UsageError("give either --url or --gateway, not both")
        }
        var endpoint: GatewayEndpoint
        var record: PairedGateway?
        if let url = arguments.value("url") {
            endpoint = try GatewayEndpoint(parsing: url)
            record = registry.gateway(url: endpoint.url)
        } else if let name = arguments.value("gateway") {
            let found = try registry.gateway(named: name)
            record = found
            endpoint = try GatewayEndpoint(parsing: found.urls[0])
        } else if let active = registry.active() {
            record = active
            endpoint = try GatewayEndpoint(parsing: active.urls[0])
        } else {
            endpoint = try GatewayEndpoint(parsing: GatewayEndpoint.defaultURL)
        }
        if let pin = try ProbeCommand.fingerprint(arguments.value("tls-fingerprint"), option: "tls-fingerprint") {
            endpoint.pin = pin
        } else if endpoint.tls, let stored = record?.tlsFingerprint {
            endpoint.pin = stored
        }
        if context.globals.verbosity > 0 {
            context.note("gateway: \(endpoint.url)" + (record.map { " (paired gateway '\($0.name)')" } ?? ""))
        }
        return Target(endpoint: endpoint, record: record, registry: registry)
    }

    static func timeout(_ arguments: ParsedArguments) throws -> Duration {
        .milliseconds(try ProbeCommand.milliseconds(arguments.value("timeout"), option: "timeout", default: defaultTimeoutMs,
                                                    allowZero: false))
    }

    // MARK: Identity

    /// This machine's identity from the clawpair store; created (and saved, 0600) on first use.
    static func identity(_ context: CommandContext) throws -> DeviceIdentity {
        let store = try IdentityStore.locate(environment: context.environment)
        do {
            return try store.loadIdentity().identity
        } catch .noIdentity {
            let identity = try DeviceIdentity.generate(createdAtMs: context.nowMs)
            try store.saveIdentity(identity, replacing: false, environment: context.environment)
            context.note("Created this machine's device identity \(identity.deviceId.prefix(16))… in \(store.identityPath)")
            return identity
        }
    }

    // MARK: Credentials

    static let tokenInput = SecretInput(what: "gateway token", fileOption: "token-file", valueOption: "token",
                                        environmentVariable: "OPENCLAW_GATEWAY_TOKEN")
    static let passwordInput = SecretInput(what: "gateway password", fileOption: "password-file", valueOption: "password",
                                           environmentVariable: "OPENCLAW_GATEWAY_PASSWORD")

    /// The operator credential, in the documented order, and where it came from.
    static func operatorAuth(_ arguments: ParsedArguments, _ context: CommandContext, target: Target,
                             identity: DeviceIdentity) throws -> (ConnectAuth, String, [String]?) {
        let explicitToken = arguments.value("token-file") != nil || arguments.value("token") != nil
        let explicitPassword = arguments.value("password-file") != nil || arguments.value("password") != nil
        if explicitToken && explicitPassword {
            throw UsageError("give a token or a password, not both")
        }
        if !explicitPassword, let token = try tokenInput.read(arguments, context) {
            return (ConnectAuth(token: token), explicitToken ? "the token option" : "OPENCLAW_GATEWAY_TOKEN", nil)
        }
        if let password = try passwordInput.read(arguments, context) {
            return (ConnectAuth(password: password), explicitPassword ? "the password option" : "OPENCLAW_GATEWAY_PASSWORD", nil)
        }
        if let stored = target.record?.token(for: GatewayRole.operator.rawValue, deviceId: identity.deviceId) {
            // A device token is good for the scopes it was issued with; asking for more would be a
            // scope upgrade (a new pairing request).
            return (ConnectAuth(token: stored.token), "the operator device token stored for '\(target.record!.name)'", stored.scopes)
        }
        if target.endpoint.isLoopback, let path = OpenClawConfig.path(environment: context.environment),
           let auth = try OpenClawConfig.gatewayAuth(path: path) {
            switch auth {
            case .token(let token): return (ConnectAuth(token: token), "gateway.auth.token in \(path)", nil)
            case .password(let password): return (ConnectAuth(password: password), "gateway.auth.password in \(path)", nil)
            }
        }
        return (ConnectAuth(), "no credential", nil)
    }

    // MARK: Connecting

    struct OperatorSession {
        let client: GatewayClient
        let hello: HelloOK
        let target: Target
        let identity: DeviceIdentity
        let timeout: Duration
    }

    /// Opens the connection and authenticates as an operator.
    static func connectOperator(_ arguments: ParsedArguments, _ context: CommandContext) throws -> OperatorSession {
        let target = try target(arguments, context)
        let timeout = try timeout(arguments)
        let identity = try identity(context)
        let (auth, source, tokenScopes) = try operatorAuth(arguments, context, target: target, identity: identity)
        if context.globals.verbosity > 0 { context.note("credential: \(source)") }
        let client = try GatewayClient(endpoint: target.endpoint, configuration: clientConfiguration(timeout: timeout))
        try client.open(timeout: timeout)
        let request = ConnectRequest(client: .operatorCLI(version: ClawpairVersion.current, platform: platformName()),
                                     role: .operator, scopes: tokenScopes ?? ConnectRequest.operatorScopes, auth: auth)
        let hello = try client.connect(request, identity: identity, timeout: timeout)
        if context.globals.verbosity > 0 {
            context.note("connected: protocol \(hello.protocolVersion), gateway \(TerminalText.sanitize(hello.serverVersion ?? "?", maxScalars: 40)), "
                         + "role \(hello.role ?? "?"), scopes \(hello.scopes.joined(separator: ","))")
        }
        if let record = target.record { touch(record, registry: target.registry, context: context) }
        return OperatorSession(client: client, hello: hello, target: target, identity: identity, timeout: timeout)
    }

    static func clientConfiguration(timeout: Duration) -> GatewayClientConfiguration {
        GatewayClientConfiguration(challengeTimeout: min(timeout, .seconds(6)), userAgent: "clawpair/\(ClawpairVersion.current)")
    }

    /// Records that a paired gateway answered.
    static func touch(_ record: PairedGateway, registry: GatewayRegistry, context: CommandContext) {
        var updated = record
        updated.lastSeenAtMs = context.nowMs
        try? registry.save(updated)
    }

    /// `Linux <release>` for ConnectParams.client.platform.
    static func platformName() -> String {
        var info = utsname()
        uname(&info)
        let release = withUnsafeBytes(of: info.release) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return release.isEmpty ? "Linux" : "Linux \(release)"
    }

    /// Connects as an operator, runs `body` with the session, closes it, and maps failures to
    /// exit statuses (with a JSON error document under `--json`).
    static func withOperator(_ arguments: ParsedArguments, _ context: CommandContext,
                             _ body: (OperatorSession) throws -> ExitStatus) throws -> ExitStatus {
        try run(context) {
            let session = try connectOperator(arguments, context)
            defer { session.client.close() }
            return try body(session)
        }
    }

    /// The man page sections of an operator command: its JSON OUTPUT text, then CREDENTIALS,
    /// ENVIRONMENT and EXIT STATUS.
    static func sections(json: String) -> [DocSection] {
        [DocSection("JSON OUTPUT", [json]), credentialsSection, environmentSection, exitSection]
    }

    // MARK: Output

    /// Calls `body` and turns a failure into an exit status, printing the error (and, with
    /// `--json`, a JSON error document on stdout).
    static func run(_ context: CommandContext, _ body: () throws -> ExitStatus) throws -> ExitStatus {
        do {
            return try body()
        } catch let error as any ClawpairError {
            if context.globals.json { context.printJSON(errorJSON(error)) }
            context.report(error)
            return error.exitStatus
        }
    }

    /// `{"ok": false, "error": {code, message, hint, gateway?, requestId?}}`.
    static func errorJSON(_ error: any ClawpairError) -> JSONValue {
        var members: [(String, JSONValue)] = [("code", .string(code(of: error))), ("message", .string(error.message)),
                                              ("hint", error.hint.map(JSONValue.string) ?? .null)]
        if let gatewayError = error as? GatewayError {
            switch gatewayError {
            case .pairingRequired(let pairing):
                members.append(("requestId", pairing.requestId.map(JSONValue.string) ?? .null))
                members.append(("reason", pairing.reason.map(JSONValue.string) ?? .null))
                members.append(("approveCommand", .string(pairing.approveCommand)))
            case .authRejected(let shape), .deviceAuthRejected(let shape), .connectRejected(let shape), .rpcFailed(_, let shape):
                members.append(("gateway", shape.json))
            default: break
            }
        }
        return .object([("ok", .bool(false)), ("error", .object(members))])
    }

    static func code(of error: any ClawpairError) -> String {
        guard let gatewayError = error as? GatewayError else {
            return error is UsageError ? "usage" : "error"
        }
        switch gatewayError {
        case .invalidURL: return "invalid-url"
        case .unreachable: return "unreachable"
        case .tlsTrust: return "tls-trust"
        case .notGateway: return "not-gateway"
        case .timedOut: return "timeout"
        case .stalled: return "stalled"
        case .closed: return "closed"
        case .protocolViolation: return "protocol-violation"
        case .frameTooLarge: return "frame-too-large"
        case .pairingRequired: return "pairing-required"
        case .authRejected: return "auth-rejected"
        case .deviceAuthRejected: return "device-auth-rejected"
        case .connectRejected: return "connect-rejected"
        case .rpcFailed: return "rpc-failed"
        case .notConnected: return "not-connected"
        }
    }
}
