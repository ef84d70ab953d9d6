import ClawpairCLIKit
import ClawpairCore
import ClawpairBrowse
import ClawpairGateway
import ClawpairNode

/// `clawpair gateways check [NAME]`: reconnect with the stored device tokens.
struct GatewaysCheckCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Connect to a paired gateway with each stored device token and report whether it is accepted",
        discussion: ["For each role this machine holds a token for, connects over the gateway's URLs in order (with the "
                     + "stored TLS pin) as that role (a node as client node-host) with the stored device token, and "
                     + "reports the role and scopes the gateway granted. Updates the gateway's last-seen time. Exit 0 "
                     + "when every token was accepted, 4 when one was refused (revoked, rotated or removed), 3 when no "
                     + "URL answered.",
                     "When no stored route answers, it looks for the gateway through mDNS and the wide-area domain and "
                     + "moves to an address where the gateway proves it is the same one (its certificate has the stored pin, "
                     + "or it reissues the stored token when asked without it; never a beacon's TXT alone), updating the "
                     + "registry under its lock. With --tls-fingerprint (or --trust) and an accepted token, the new "
                     + "certificate becomes the stored pin."],
        options: [.value("timeout", "MS", help: "Limit for each connection, in ms or with a unit (default 10000)."),
                  .flag("no-discover", help: "When no route answers, do not look for the gateway through discovery.")]
            + GatewayCLI.trustOptions,
        arguments: [ArgumentSpec("name", help: "The gateway's name or id (default: the chosen one).", optional: true, completion: ListNamesCommand.gatewayNames)],
        sections: [
            .inManSource("JSON OUTPUT"),
            GatewaysCommand.filesSection,
        ],
        runner: GatewaysCheckCommand.runner
    )

    let timeout: Duration
    /// `--tls-fingerprint`/`--trust`, instead of the stored pin.
    let pin: String?
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        pin = try GatewayCLI.pin(arguments)
        self.arguments = arguments
        timeout = try GatewayCLI.timeout(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        var gateway = try registry.gateway(namedOrChosen: arguments.positionals.first)
        let identity = try GatewayCLI.identity(context)
        guard gateway.holdsTokens(for: identity.deviceId) else {
            throw GeneralError("no device token for this machine's identity is stored for \(TerminalText.sanitize(gateway.name, maxScalars: 80))",
                               hint: "pair again: clawpair pair - < code.txt", status: .refused)
        }
        let transport = NetworkPairingTransport(configuration: .clawpair(timeout: timeout))
        var check = gateway.checkTokens(identity: identity, pin: pin, timeout: timeout, transport: transport)
        // Nothing answered at the stored routes: look for the gateway through discovery, by its
        // identity, as `node run` does (issue #24.6); a proved new route is stored, then checked.
        var relocation: GatewayRelocator.Found?
        if check.answeredURL == nil, !check.results.isEmpty, check.results.allSatisfy({ $0.verdict == .unreachable }),
           !arguments.flag("no-discover"), !GatewayRelocator.isLoopbackOnly(gateway) {
            if !context.globals.json { context.note("No route answered; looking for the gateway through discovery…") }
            var options = GatewayBrowser.Options(timeout: .milliseconds(1500))
            options.environment = context.environment
            let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: options, proofTimeout: timeout)
            if let found = relocator.findOnce(gateway) {
                relocation = found
                if case .moved(let url, let proof, _) = found, !context.globals.json {
                    context.note("Found it at \(url) (\(proof.summary)); its routes in the registry are updated.")
                }
                gateway = registry.snapshot().gateway(id: gateway.id) ?? gateway
                check = gateway.checkTokens(identity: identity, pin: pin, timeout: timeout, transport: transport)
            }
        }
        // A certificate the user checked and passed with --tls-fingerprint/--trust replaces the stored pin
        // once a token was accepted over it (the re-pin `node run` prints after a renewal).
        if let pin, check.results.contains(where: { $0.verdict == .accepted }), gateway.tlsFingerprint != nil,
           gateway.tlsFingerprint != pin {
            _ = try registry.update(id: gateway.id) { $0.tlsFingerprint = pin }
            if !context.globals.json { context.note("Pinned the gateway's new certificate (SHA-256 \(pin)).") }
        }
        var worst = ExitStatus.success
        let errors = check.results.map { result -> JSONValue in
            if !context.globals.json { context.print("\(result.role): \(result.summary)") }
            guard case .failure(let error) = result.outcome else { return .null }
            var shown = GatewayCLI.withTrustCommand(ErrorPresentation.present(error), arguments)
            if result.verdict == .refused {
                // The stored token is what failed: after a rotate, revoke or remove only pairing again helps.
                shown = PresentedError(error, status: .refused, message: shown.message, hint: "the gateway no longer accepts "
                                       + "this device's \(result.role) token (rotated, revoked or removed): pair again with a new "
                                       + "setup code ('clawpair qr' on the gateway, then clawpair pair - < code.txt)")
            }
            if shown.exitStatus.rawValue > worst.rawValue || worst == .success { worst = shown.exitStatus }
            context.report(shown)
            return JSONEnvelope.failure(shown)["error"] ?? .null
        }
        if let used = check.answeredURL { try registry.recordAnswer(id: gateway.id, url: used, nowMs: context.nowMs, reissued: check.reissued) }
        if context.globals.json {
            var document = check.json(gatewayID: gateway.id, errors: errors)
            if case .moved(let url, let proof, let routes) = relocation, case .object(var members) = document {
                let moved: JSONValue = .object([("url", .string(url)), ("proof", proof.json),
                                                ("urls", .array(routes.map { JSONValue.string($0) }))])
                members.append(("relocated", moved))
                document = JSONValue.object(members)
            }
            context.printJSON(document)
        }
        return worst
    }
}
