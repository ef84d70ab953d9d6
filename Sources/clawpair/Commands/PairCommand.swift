#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairProbe
import ClawpairSetupCode

/// `clawpair pair SETUP-CODE`: pair this machine with a gateway, as a node (default) or an
/// operator, and keep the issued device token(s) in the registry.
struct PairCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "pair",
        abstract: "Pair this machine with a gateway from a setup code",
        discussion: [
            "Decodes the setup code, races its routes (as 'clawpair probe' does: the code's TLS fingerprint pins its "
                + "primary route), connects over the first that answers with this machine's device identity and the "
                + "code's bootstrap token, and asks for the role given (node by default, as client node-host; operator "
                + "as client cli with the scopes a setup code hands off).",
            "Unless the gateway approves it at once (it does so for loopback connections), the device waits as a "
                + "pending request: its request id and the exact approve command are printed, and clawpair retries "
                + "with the same identity, role and scopes (backing off from 1 s to 5 s) until an operator approves "
                + "it, rejects it, or --wait runs out. Then the device token(s) the gateway issued are stored in the "
                + "paired-gateways registry with the gateway's URLs and TLS pin ('clawpair gateways list'); the first "
                + "paired gateway becomes the one commands use by default.",
            "Ctrl-C at any point leaves nothing half-written: the registry record is written once, atomically, after "
                + "the gateway issued the token.",
        ],
        options: [
            .value("role", "ROLE", help: "Pair as a node (default) or as an operator.", completion: .values(["node", "operator"])),
            .value("name", "NAME", help: "This device's display name on the gateway (default: the host name)."),
            .value("gateway-name", "NAME", help: "The name to keep the gateway under in the registry (default: from its host)."),
            .value("code-file", "FILE", help: "Read the setup code from FILE.", completion: .file),
            .value("wait", "MS", help: "How long to wait for an operator's approval, in ms or with a unit (default 5m)."),
            .value("timeout", "MS", help: "Limit for probing and for each connection attempt (default 10000)."),
            .flag("allow-insecure", help: "Also dial ws:// routes to hosts that need wss:// (public and tailnet addresses)."),
            .flag("v3", help: "Sign the v3 connect payload (binds platform and device family) instead of v2."),
        ],
        arguments: [ArgumentSpec("setup-code", help: "The setup code in any form 'setup-code decode' accepts, or - for standard "
                                 + "input (prefer - or --code-file: arguments are visible to other users).", optional: true)],
        examples: [
            Example("clawpair pair - < code.txt", "Pair as a node with a code minted by 'clawpair qr --node' or 'openclaw qr'"),
            Example("clawpair pair --role operator --name build-box --code-file code.txt", "Pair as an operator"),
        ],
        sections: [
            DocSection("JSON OUTPUT", [
                "With --json, one object when pairing ends: {\"ok\": true, \"gateway\": {\"id\", \"name\", \"urls\", "
                    + "\"tlsFingerprint\"}, \"deviceId\", \"role\", \"scopes\", \"url\", \"requestId\" (when it had to wait), "
                    + "\"tokens\": [{\"role\", \"scopes\"}]} (token values are never printed), or {\"ok\": false, \"error\": {...}}. "
                    + "Progress goes to stderr.",
            ]),
            GatewayCLI.environmentSection,
            DocSection("EXIT STATUS", [
                """
                  0  paired; the token is stored
                  1  the gateway failed, broke the protocol or closed
                  2  usage error
                  3  no route of the code answered
                  4  refused: the code expired or was used by another device, the request was
                     rejected, approval did not come within --wait, or TLS trust failed
                """,
            ]),
        ],
        runner: PairCommand.runner
    )

    let arguments: ParsedArguments
    let role: GatewayRole
    let waitMs: Int64
    let timeoutMs: Int64

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        if let text = arguments.value("role") {
            guard let parsed = GatewayRole(rawValue: text.lowercased()) else {
                throw UsageError("unknown role '\(TerminalText.sanitize(text, maxScalars: 32))'", hint: "use node or operator")
            }
            role = parsed
        } else {
            role = .node
        }
        waitMs = try ProbeCommand.milliseconds(arguments.value("wait"), option: "wait", default: 300_000, allowZero: true)
        timeoutMs = try ProbeCommand.milliseconds(arguments.value("timeout"), option: "timeout", default: GatewayCLI.defaultTimeoutMs,
                                                  allowZero: false)
        if arguments.positionals.first != nil && arguments.value("code-file") != nil {
            throw UsageError("give the setup code once: as an argument or with --code-file")
        }
        if arguments.positionals.first == nil && arguments.value("code-file") == nil {
            throw UsageError("missing argument <setup-code> for 'clawpair pair'",
                             hint: "e.g. clawpair pair - < code.txt (mint one with 'clawpair qr --node' on the gateway)")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.run(context) { try pair(context) }
    }

    private func readCode(_ context: CommandContext) throws -> String {
        let text: String
        if let file = arguments.value("code-file") {
            text = String(decoding: try FileIO.read(path: file, limit: 64 * 1024), as: UTF8.self)
        } else if arguments.positionals[0] == "-" {
            if context.stdinIsTTY { context.note("Paste the setup code, then press Ctrl-D:") }
            text = String(decoding: try context.readStandardInput(64 * 1024), as: UTF8.self)
        } else {
            context.warn("a setup code on the command line is visible to other users (ps, shell history); prefer - (stdin) or --code-file FILE")
            text = arguments.positionals[0]
        }
        return text.trimmingTrailingNewlines
    }

    private func pair(_ context: CommandContext) throws -> ExitStatus {
        let decoded = try SetupCode.parse(try readCode(context))
        if decoded.isExpired(nowMs: context.nowMs) {
            throw GeneralError("the setup code expired \(WallClock.iso8601(ms: decoded.expiresAtMs ?? 0) ?? "")",
                               hint: "mint a new one on the gateway: clawpair qr (or openclaw qr)", status: .refused)
        }
        let auth: ConnectAuth
        if let bootstrap = decoded.bootstrapToken {
            auth = ConnectAuth(bootstrapToken: bootstrap)
        } else if let token = decoded.token {
            auth = ConnectAuth(token: token)
        } else if let password = decoded.password {
            auth = ConnectAuth(password: password)
        } else {
            throw GeneralError("the setup code carries no bootstrap token, token or password",
                               hint: "it only names a gateway; mint a pairing code with 'clawpair qr'", status: .usage)
        }

        // 1. Which route answers?
        let timeout = Duration.milliseconds(timeoutMs)
        let routes = ProbeCandidates.routes(of: decoded, codeIndex: 0)
        let report = try Prober.run(routes: routes, configuration: ProbeConfiguration(timeout: timeout,
                                                                                       allowInsecure: arguments.flag("allow-insecure")))
        guard let winner = report.winningResult else {
            let reasons = report.results.map { "\($0.route.url): \($0.failure?.message ?? "no answer")" }.joined(separator: "; ")
            let trust = report.results.contains { $0.failure?.isTrustFailure == true }
            throw GeneralError("no route of the setup code reached the gateway (\(reasons))",
                               hint: "'clawpair probe --all - < code.txt' shows every route's outcome",
                               status: trust ? .refused : .notFound)
        }
        var endpoint = GatewayEndpoint(route: winner.route)
        if let address = winner.address { endpoint.knownAddresses = [address.ip] }
        context.note("Gateway answers at \(endpoint.url)")

        // 2. Connect with the bootstrap token until approved.
        let identity = try GatewayCLI.identity(context)
        let displayName = arguments.value("name") ?? HostName.current(fallback: "linux")
        let client: GatewayClientInfo = role == .node
            ? .nodeHost(version: ClawpairVersion.current, platform: GatewayCLI.platformName(), displayName: displayName)
            : .operatorCLI(version: ClawpairVersion.current, platform: GatewayCLI.platformName(), displayName: displayName)
        var scopes: [String] = []
        if role == .operator {
            scopes = ConnectRequest.bootstrapOperatorScopes
            if decoded.generation == .g4 { scopes.append("operator.questions") }
        }
        let request = ConnectRequest(client: client, role: role, scopes: scopes, auth: auth,
                                     payloadVersion: arguments.flag("v3") ? .v3 : .v2)
        let deadline = Monotonic.now + .milliseconds(waitMs)
        var pendingId: String?
        var backoff: Duration = .seconds(1)
        var attempt = 0
        while true {
            attempt += 1
            let session = try GatewayClient(endpoint: endpoint, configuration: GatewayCLI.clientConfiguration(timeout: timeout))
            do {
                try session.open(timeout: timeout)
                let hello = try session.connect(request, identity: identity, timeout: timeout)
                session.close()
                return try finish(hello: hello, session: session, decoded: decoded, endpoint: endpoint, identity: identity,
                                  displayName: displayName, requestId: pendingId, context: context)
            } catch GatewayError.pairingRequired(let pairing) {
                session.close()
                if pendingId != pairing.requestId {
                    pendingId = pairing.requestId
                    context.note("Waiting for approval of pairing request \(pairing.requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "(id not given)").")
                    context.note("On the gateway host run: \(pairing.approveCommand)")
                    context.note("  (or: openclaw devices approve \(pairing.requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "<requestId>"))")
                }
                guard Monotonic.now + backoff < deadline else {
                    throw GeneralError("pairing request \(pairing.requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "") was not approved within \(DurationText.describe(milliseconds: waitMs))",
                                       hint: "approve it (\(pairing.approveCommand)), then run 'clawpair pair' again with the same code while it is valid",
                                       status: .refused)
                }
                sleep(for: backoff)
                backoff = min(backoff + .seconds(1), .seconds(5))
            } catch GatewayError.closed(let code, let reason, _) where pendingId != nil && code == 1008 {
                // A rejected request: the gateway refuses the device until it asks again.
                throw GeneralError("the gateway closed the connection: \(TerminalText.sanitize(reason, maxScalars: 200))",
                                   hint: "the request may have been rejected; ask the operator", status: .refused)
            }
        }
    }

    private func finish(hello: HelloOK, session: GatewayClient, decoded: DecodedSetup, endpoint: GatewayEndpoint,
                        identity: DeviceIdentity, displayName: String, requestId: String?, context: CommandContext) throws -> ExitStatus {
        guard let token = hello.deviceToken else {
            throw GatewayError.protocolViolation("hello-ok carries no device token")
        }
        var issued = [token]
        // Hand-off tokens are kept only from a bootstrap connect over wss://, or over ws:// to a
        // loopback or local-network host (as the iOS app does).
        if decoded.bootstrapToken != nil && (endpoint.tls || endpoint.allowsPlaintext) {
            issued += hello.handoffTokens.filter { $0.role != token.role }
        } else if !hello.handoffTokens.isEmpty {
            context.note("Ignored \(hello.handoffTokens.count) hand-off token(s) issued over plaintext to a non-local host.")
        }

        let home = try GatewayCLI.home(context)
        let registry = GatewayRegistry(home: home)
        var urls = [endpoint.url]
        for other in decoded.endpoints.map(\.url) where !urls.contains(other) { urls.append(other) }
        var record: PairedGateway
        if let existing = urls.lazy.compactMap({ registry.gateway(url: $0) }).first {
            record = existing
        } else {
            record = PairedGateway(name: try uniqueName(registry: registry, endpoint: endpoint), urls: urls,
                                   deviceId: identity.deviceId, pairedAtMs: context.nowMs)
        }
        if record.deviceId != identity.deviceId {
            record.tokens = []
            record.deviceId = identity.deviceId
        }
        for url in urls.reversed() { record.urls.removeAll { $0 == url }; record.urls.insert(url, at: 0) }
        if endpoint.tls {
            record.tlsFingerprint = endpoint.pin ?? session.certificate?.fingerprint
        }
        for entry in issued { record.store(entry) }
        record.lastSeenAtMs = context.nowMs
        if let name = arguments.value("gateway-name") { record.name = name }
        record.deviceName = displayName

        // Written once, with SIGINT/SIGTERM held back until both files are in place.
        var block = sigset_t(), previous = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGINT)
        sigaddset(&block, SIGTERM)
        sigprocmask(SIG_BLOCK, &block, &previous)
        defer { sigprocmask(SIG_SETMASK, &previous, nil) }
        try registry.save(record)
        let becameActive = registry.active() == nil
        if becameActive { try registry.setActive(record) }

        if context.globals.json {
            context.printJSON(.object([
                ("ok", true),
                ("gateway", .object([("id", .string(record.id)), ("name", .string(record.name)),
                                     ("urls", .array(record.urls.map(JSONValue.string))),
                                     ("tlsFingerprint", record.tlsFingerprint.map(JSONValue.string) ?? .null)])),
                ("deviceId", .string(identity.deviceId)), ("role", .string(token.role)),
                ("scopes", .array(token.scopes.map(JSONValue.string))), ("url", .string(endpoint.url)),
                ("requestId", requestId.map(JSONValue.string) ?? .null),
                ("tokens", .array(issued.map { .object([("role", .string($0.role)), ("scopes", .array($0.scopes.map(JSONValue.string)))]) })),
            ]))
        } else {
            context.print("Paired with \(TerminalText.sanitize(record.name, maxScalars: 80)) (\(endpoint.url)) as \(token.role)"
                          + (token.scopes.isEmpty ? "" : " with scopes \(token.scopes.joined(separator: ","))") + ".")
            context.print("Stored \(issued.map(\.role).joined(separator: " and ")) token(s) in \(registry.directory) (gateway id \(record.id)).")
            if becameActive { context.note("It is now the default gateway for clawpair commands ('clawpair gateways use' changes that).") }
            if token.role == GatewayRole.node.rawValue {
                context.note("Next: 'clawpair nodes status' on the gateway shows this machine.")
            } else {
                context.note("Next: clawpair devices list")
            }
        }
        return .success
    }

    private func uniqueName(registry: GatewayRegistry, endpoint: GatewayEndpoint) throws -> String {
        let taken = Set(registry.list().gateways.map(\.name))
        let base = endpoint.host.hasSuffix(".local") ? String(endpoint.host.dropLast(6)) : endpoint.host
        if !taken.contains(base) { return base }
        for n in 2...999 where !taken.contains("\(base)-\(n)") { return "\(base)-\(n)" }
        return PairedGateway.makeID()
    }

    private func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

}
