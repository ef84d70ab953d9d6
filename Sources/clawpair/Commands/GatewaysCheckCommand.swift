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
                     + "reports the role and scopes the gateway granted, after a first line naming the gateway and the URL "
                     + "that accepted a token (else the URLs tried). Updates the gateway's last-seen time. Exit 0 "
                     + "when every token was accepted, 4 when one was refused (revoked, rotated or removed), 3 when no "
                     + "URL answered; with --json a failure is \"ok\": false with the worst role's error (a refused token's "
                     + "code and the gateway's own error object, as other operator commands give), each role's in its result.",
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
        let stored = try registry.gateway(namedOrChosen: arguments.positionals.first)
        // Checking creates no identity: without one no token can be this machine's.
        guard let identity = try GatewayCLI.existingIdentity(context), stored.holdsTokens(for: identity.deviceId) else {
            throw GeneralError("no device token for this machine's identity is stored for \(TerminalText.sanitize(stored.name, maxScalars: 80))",
                               hint: "pair again: clawpair pair - < code.txt", status: .refused)
        }
        let transport = NetworkPairingTransport(configuration: .clawpair(timeout: timeout))
        // Nothing answered at the stored routes: look for the gateway through discovery, by its
        // identity, as `node run` does (issue #24.6); a proved new route is stored, then checked.
        var discovery = GatewayBrowser.Options(timeout: .milliseconds(1500))
        discovery.environment = context.environment
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: discovery, proofTimeout: timeout)
        let search: @Sendable (PairedGateway) -> GatewayRelocator.Found? = { relocator.findOnce($0) }
        let nowMs = context.nowMs
        let checker = PairedGatewayChecker(registry: registry, identity: identity, pin: pin, timeout: timeout,
                                           relocate: arguments.flag("no-discover") ? nil : search, wallClockMs: { nowMs })
        let spinner = Spinner.start("Checking \(TerminalText.sanitize(stored.name, maxScalars: 80))", in: context,
                                    delay: Spinner.gatewayDelay)
        let outcome = try checker.run(stored, transport: transport) { step in
            spinner?.stop()
            guard !context.globals.json else { return }
            switch step {
            case .searching:
                context.note("No route answered; looking for the gateway through discovery…")
            case .found(.moved(let url, let proof, _)):
                context.note("Found it at \(TerminalText.sanitize(url, maxScalars: 200)) (\(proof.summary)); its routes in the registry are updated.")
            case .found(.knownRoute):
                break
            case .pinned(let pin):
                // A certificate the user checked and passed with --tls-fingerprint/--trust (the re-pin
                // `node run` prints after a renewal).
                context.note("Pinned the gateway's new certificate (SHA-256 \(pin)).")
            }
        }
        spinner?.stop()
        let gateway = outcome.gateway, check = outcome.check
        var worst = ExitStatus.success
        var failures: [PresentedError] = []
        let name = TerminalText.sanitize(gateway.name, maxScalars: 80)
        if !context.globals.json {
            // Which gateway and URL were checked, as `gh auth status` names the host first.
            let tried = gateway.urls.map { TerminalText.sanitize($0, maxScalars: 200) }.joined(separator: ", ")
            // The URL that accepted a token, else the URLs tried (a refusal or silence names none).
            context.print(check.answeredURL.map { "Gateway \(name) at \(TerminalText.sanitize($0, maxScalars: 200))" }
                          ?? "Gateway \(name) (\(tried.isEmpty ? "no URL" : tried))")
        }
        let errors = check.results.map { result -> JSONValue in
            if !context.globals.json { context.print("\(result.role): \(result.summary)") }
            guard case .failure(let error) = result.outcome else { return .null }
            var shown = GatewayCLI.withTrustCommand(ErrorPresentation.present(error), arguments)
            if result.verdict == .refused, case .pairingRequired = error {
                // The token was fine: the gateway wants a pending request approved (a metadata-upgrade
                // after the platform string changed, a role or scope upgrade); the hint says which.
            } else if result.verdict == .refused {
                // The stored token is what failed: after a rotate, revoke or remove only pairing again helps.
                // The code and the gateway's error object stay those of the refusal (auth-rejected…).
                shown = PresentedError(error, status: .refused, message: shown.message, hint: "the gateway no longer accepts "
                                       + "this device's \(result.role) token (rotated, revoked or removed): pair again with a new "
                                       + "setup code ('clawpair qr' on the gateway, then clawpair pair - < code.txt)",
                                       code: shown.code, details: shown.details)
            }
            if shown.exitStatus.rawValue > worst.rawValue || worst == .success { worst = shown.exitStatus }
            failures.append(shown)
            return JSONEnvelope.errorObject(shown)
        }
        let document = outcome.json(errors: errors)
        guard let failure = failures.first(where: { $0.exitStatus == worst }) else {
            if context.globals.json { context.printJSON(document) }
            return .success
        }
        // "ok": false with the worst failure as the run's error; each role's own error stays in its result.
        if context.globals.json {
            context.printJSON(JSONEnvelope.failure(failure, document: document))
        }
        for other in failures where other.message != failure.message || other.hint != failure.hint { context.report(other) }
        throw failure
    }
}
