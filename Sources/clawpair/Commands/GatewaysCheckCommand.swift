import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// `clawpair gateways check [NAME]`: reconnect with the stored device tokens.
struct GatewaysCheckCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Connect to a paired gateway with each stored device token and report whether it is accepted",
        discussion: ["For each role this machine holds a token for, connects over the gateway's URLs in order (with the "
                     + "stored TLS pin) as that role (a node as client node-host) with the stored device token, and "
                     + "reports the role and scopes the gateway granted. Updates the gateway's last-seen time. Exit 0 "
                     + "when every token was accepted, 4 when one was refused (revoked, rotated or removed), 3 when no "
                     + "URL answered."],
        options: [.value("timeout", "MS", help: "Limit for each connection, in ms or with a unit (default 10000).")]
            + GatewayCLI.trustOptions,
        arguments: [ArgumentSpec("name", help: "The gateway's name or id (default: the chosen one).", optional: true, completion: ListNamesCommand.gatewayNames)],
        sections: [
            DocSection("JSON OUTPUT", ["With --json: {\"gateway\": id, \"url\", \"results\": [{\"role\", \"ok\", \"scopes\", "
                                       + "\"error\": null or {...}}]}."]),
            GatewaysCommand.filesSection,
        ],
        runner: GatewaysCheckCommand.runner
    )

    let name: String?
    let timeoutMs: Int64
    /// `--tls-fingerprint`/`--trust`, instead of the stored pin.
    let pin: String?
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        name = arguments.positionals.first
        pin = try GatewayCLI.pin(arguments)
        self.arguments = arguments
        timeoutMs = try DurationOption.milliseconds(arguments.value("timeout"), option: "timeout", default: GatewayCLI.defaultTimeoutMs,
                                                  allowZero: false)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        var gateway: PairedGateway
        if let name {
            gateway = try registry.gateway(named: name)
        } else if let active = registry.active() {
            gateway = active
        } else {
            throw GatewayRegistryError.unknownGateway("(default)", known: registry.list().gateways.map(\.name))
        }
        let identity = try GatewayCLI.identity(context)
        guard !gateway.tokens.isEmpty, gateway.deviceId == identity.deviceId else {
            throw GeneralError("no device token for this machine's identity is stored for \(TerminalText.sanitize(gateway.name, maxScalars: 80))",
                               hint: "pair again: clawpair pair - < code.txt", status: .refused)
        }
        let timeout = Duration.milliseconds(timeoutMs)
        var results: [JSONValue] = []
        var worst = ExitStatus.success
        var usedURL: String?
        let displayName = gateway.deviceName ?? HostName.current(fallback: "linux")
        for token in gateway.tokens {
            let role = GatewayRole(rawValue: token.role) ?? .operator
            let client: GatewayClientInfo = role == .node
                ? .nodeHost(version: ClawpairVersion.current, platform: GatewayCLI.platformName(), displayName: displayName)
                : .operatorCLI(version: ClawpairVersion.current, platform: GatewayCLI.platformName(), displayName: displayName)
            let request = ConnectRequest(client: client, role: role, scopes: role == .node ? [] : token.scopes,
                                         auth: ConnectAuth(token: token.token))
            var outcome: Result<HelloOK, GatewayError> = .failure(.notConnected)
            for url in gateway.urls {
                guard var endpoint = try? GatewayEndpoint(parsing: url) else { continue }
                if endpoint.tls { endpoint.pin = pin ?? gateway.tlsFingerprint }
                do {
                    let session = try GatewayClient(endpoint: endpoint, configuration: GatewayCLI.clientConfiguration(timeout: timeout))
                    defer { session.close() }
                    try session.open(timeout: timeout)
                    outcome = .success(try session.connect(request, identity: identity, timeout: timeout))
                    usedURL = endpoint.url
                    break
                } catch {
                    outcome = .failure(error)
                    if case .unreachable = error { continue }
                    break
                }
            }
            switch outcome {
            case .success(let hello):
                results.append(.object([("role", .string(token.role)), ("ok", true),
                                        ("scopes", .array(hello.scopes.map(JSONValue.string))), ("error", .null)]))
                if let issued = hello.deviceToken, issued.role == token.role { gateway.store(issued) }
                if !context.globals.json {
                    context.print("\(token.role): accepted" + (hello.scopes.isEmpty ? "" : " (scopes \(hello.scopes.joined(separator: ",")))"))
                }
            case .failure(let error):
                var shown = GatewayCLI.withTrustCommand(ErrorPresentation.present(error), arguments)
                let word: String
                if error.isNothingAnswered {
                    word = "unreachable"
                } else if error.isCredentialRefusal {
                    word = "refused"
                    // The stored token is what failed: after a rotate, revoke or remove only pairing again helps.
                    shown = PresentedError(error, status: .refused, message: shown.message, hint: "the gateway no longer accepts "
                                           + "this device's \(token.role) token (rotated, revoked or removed): pair again with a new "
                                           + "setup code ('clawpair qr' on the gateway, then clawpair pair - < code.txt)")
                } else {
                    word = "failed"
                }
                results.append(.object([("role", .string(token.role)), ("ok", false), ("scopes", .array([])),
                                        ("error", GatewayCLI.errorJSON(shown)["error"] ?? .null)]))
                if shown.exitStatus.rawValue > worst.rawValue || worst == .success { worst = shown.exitStatus }
                if !context.globals.json { context.print("\(token.role): \(word)") }
                context.report(shown)
            }
        }
        if let used = usedURL {
            // Changes the record as it is now, not the copy read before connecting: a concurrent
            // `gateways forget` or a token stored by `pair` meanwhile is kept.
            let now = context.nowMs
            _ = try registry.update(id: gateway.id) { record in
                record.lastSeenAtMs = now
                record.urls.removeAll { $0 == used }
                record.urls.insert(used, at: 0)
            }
        }
        if context.globals.json {
            context.printJSON(.object([("gateway", .string(gateway.id)), ("url", usedURL.map(JSONValue.string) ?? .null),
                                       ("results", .array(results))]))
        }
        return worst
    }
}
