import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

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
            "Unless the gateway approves it at once (it does so for loopback connections), the device waits as a pending request: its request id "
                + "and the exact approve command are printed (again every 30 s, with the time waited). Current gateways (2026.7+) hold the refused "
                + "connection and tell clawpair of the operator's decision at once; older ones are asked again with the same identity, role and "
                + "scopes (backing off from 1 s to 5 s). Waiting ends when an operator approves the request, rejects it (exit 4), the gateway lets "
                + "it expire (exit 4), or --wait runs out. Then the device token(s) the gateway issued are stored in the "
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
            .value("target-file", "FILE", help: "Read the setup code or join URL from FILE (a regular file of at most 64 KiB) and remove it "
                   + "after the read, as 'openclaw connect --target-file' does.", completion: .file),
            .value("wait", "MS", help: "How long to wait for an operator's approval, in ms or with a unit (default 5m)."),
            .value("timeout", "MS", help: "Limit for probing and for each connection attempt (default 10000)."),
            .flag("allow-insecure", help: "Also dial ws:// routes to hosts that need wss:// (public and tailnet addresses)."),
            .flag("v3", help: "Sign the v3 connect payload (binds platform and device family) instead of v2."),
        ] + GatewayCLI.trustOptions,
        arguments: [ArgumentSpec("setup-code", help: "The setup code in any form 'setup-code decode' accepts, a join URL "
                                 + "(https://GATEWAY/j/CODE, from 'clawpair devices join-code'), or - for standard input (prefer - or "
                                 + "--target-file: arguments are visible to other users).", optional: true)],
        examples: [
            Example("clawpair pair - < code.txt", "Pair as a node with a code minted by 'clawpair qr --node' or 'openclaw qr'"),
            Example("clawpair pair --role operator --name build-box --code-file code.txt", "Pair as an operator"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            GatewayCLI.environmentSection,
            .inManSource("EXIT STATUS"),
        ],
        runner: PairCommand.runner
    )

    let arguments: ParsedArguments
    let role: GatewayRole
    let wait: Duration
    let timeout: Duration

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        role = try arguments.choice("role", noun: "role", normalizing: { $0.lowercased() }, hint: "use node or operator") ?? .node
        wait = try arguments.duration("wait", defaultMs: 300_000, allowZero: true)
        timeout = try GatewayCLI.timeout(arguments)
        let sources = [arguments.positionals.first, arguments.value("code-file"), arguments.value("target-file")].compactMap { $0 }.count
        if sources > 1 { throw UsageError("give the setup code once: as an argument, with --code-file or with --target-file") }
        if sources == 0 {
            throw UsageError("missing argument <setup-code> for 'clawpair pair'",
                             hint: "e.g. clawpair pair - < code.txt (mint one with 'clawpair qr --node' on the gateway)")
        }
    }

    /// The code's text, and whether it came from the command line (visible to other users).
    private func readCode(_ context: CommandContext) throws -> (text: String, inArgv: Bool) {
        try JoinRedemption.readTarget(argument: arguments.positionals.first, codeFile: arguments.value("code-file"),
                                      targetFile: arguments.value("target-file")) { limit in
            try context.readBytes(prompting: "Paste the setup code, then press Ctrl-D:", limit: limit)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.run(context) { try pair(context) }
    }

    private func pair(_ context: CommandContext) throws -> ExitStatus {
        let code = try readCode(context)
        let visible = { if code.inArgv { context.warn("a setup code on the command line is visible to other users (ps, shell history); prefer - (stdin) or --code-file FILE") } }
        let (setup, joinURL) = try JoinRedemption.setup(from: code.text) { _ in visible() }
        if let joinURL { context.note("Redeemed the join URL at \(joinURL.origin) (it works only once).") }
        if joinURL == nil && GatewayPairing.credential(of: setup) != nil { visible() }
        var options = PairingOptions(role: role, deviceName: arguments.value("name") ?? HostName.current(fallback: "linux"),
                                     gatewayName: arguments.value("gateway-name"), wait: wait,
                                     timeout: timeout, allowInsecure: arguments.flag("allow-insecure"),
                                     payloadVersion: arguments.flag("v3") ? .v3 : .v2, platform: GatewayClientInfo.linuxPlatformName())
        options.pin = try GatewayCLI.pin(arguments)
        let registry = GatewayRegistry(home: try GatewayCLI.home(context))
        // Ctrl-C or SIGTERM stops the probe, the connect or the wait for approval at once.
        let stop = TerminationSignals().stopSignal()
        var pairing = GatewayPairing(setup: setup, options: options, registry: registry,
                                     transport: NetworkPairingTransport(configuration: .clawpair(timeout: options.timeout), stop: stop),
                                     clock: SystemPairingClock(wallClockMs: context.nowMs))
        pairing.stop = stop
        let result: PairingResult
        do {
            result = try pairing.run(identity: { try GatewayCLI.identity(context) }) { progress in
                for line in progress.notes(approveCommand: { PairingRequired(requestId: $0).approveCommand }) { context.note(line) }
            }
        } catch {
            throw error.cause ?? error
        }
        show(result, registry: registry, context: context)
        return .success
    }

    private func show(_ result: PairingResult, registry: GatewayRegistry, context: CommandContext) {
        if context.globals.json { return context.printJSON(result.json) }
        for line in result.summary(registryDirectory: registry.directory) { context.print(line) }
        if result.becameActive { context.note("It is now the default gateway for clawpair commands ('clawpair gateways use' changes that).") }
        if result.token.role == GatewayRole.node.rawValue {
            context.note(result.commandApprovalFollows ? "Step 2: unless the code approved them, an operator approves this node's commands on the "
                         + "gateway ('clawpair nodes pending' lists it there)." : "Next: 'clawpair nodes status' on the gateway shows this machine.")
            // The node is offline until something connects as it: say what (issue #22.7).
            context.note("Bring this machine online as the node: clawpair node run (or, as a service: clawpair node install)")
        } else {
            context.note("Next: clawpair devices list")
        }
    }
}
