import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
#if canImport(Glibc)
import Glibc
#endif

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
            "Unless the gateway approves it at once (it does so for loopback connections), the device waits as a pending "
                + "request: its request id and the exact approve command are printed, and waiting ends when an operator approves "
                + "it, rejects it (exit 4), the gateway lets it expire (exit 4), or --wait runs out. Then the device token(s) the "
                + "gateway issued are stored in the paired-gateways registry ('clawpair gateways list'). WAITING FOR APPROVAL "
                + "in 'man clawpair-pair' has the details.",
            "A gateway already in the registry keeps its one record, changed only when the gateway proves it is that "
                + "gateway; pairing never switches the default gateway to another one unless --make-default is given "
                + "(GATEWAY IDENTITY in 'man clawpair-pair').",
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
            .flag("v2", help: "Sign the legacy v2 connect payload instead of v3 (the default: binds platform and device family)."),
            .flag("make-default", help: "Make this gateway the default for commands that name none, even when another one is."),
        ] + GatewayCLI.trustOptions,
        arguments: [ArgumentSpec("setup-code", help: "The setup code in any form 'setup-code decode' accepts, a join URL "
                                 + "(https://GATEWAY/j/CODE, from 'clawpair devices join-code'), or - for standard input (prefer - or "
                                 + "--target-file: arguments are visible to other users). Without one, a terminal is asked "
                                 + "for the code.", optional: true)],
        examples: [
            Example("clawpair pair - < code.txt", "Pair as a node with a code minted by 'clawpair qr --node' or 'openclaw qr'"),
            Example("clawpair pair --role operator --name build-box --code-file code.txt", "Pair as an operator"),
        ],
        sections: [
            .inManSource("WAITING FOR APPROVAL"),
            .inManSource("OPERATOR SCOPES"),
            .inManSource("JSON OUTPUT"),
            .inManSource("GATEWAY IDENTITY"),
            .inManSource("LIMITS"),
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
        // No code given: a person at a terminal is asked for it (as 'setup-code decode' does);
        // a script that forgot it gets a usage error instead of a read that never ends.
        if sources == 0 && !context.stdinIsTTY {
            throw UsageError("missing argument <setup-code> for 'clawpair pair'",
                             hint: "e.g. clawpair pair - < code.txt (mint one with 'clawpair qr --node' on the gateway)")
        }
    }

    /// The code's text, and whether it came from the command line (visible to other users).
    private func readCode(_ context: CommandContext) throws -> (text: String, inArgv: Bool) {
        let fromFile = arguments.value("code-file") != nil || arguments.value("target-file") != nil
        return try JoinRedemption.readTarget(argument: arguments.positionals.first ?? (fromFile ? nil : "-"), codeFile: arguments.value("code-file"),
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
        let (setup, joinURL) = try JoinRedemption.setup(from: code.text, timeout: timeout) { _ in visible() }
        if let joinURL { context.note("Redeemed the join URL at \(joinURL.origin) (it works only once).") }
        if joinURL == nil && GatewayPairing.credential(of: setup) != nil { visible() }
        var options = PairingOptions(role: role, deviceName: arguments.value("name") ?? HostName.current(fallback: "linux"),
                                     gatewayName: arguments.value("gateway-name"), wait: wait,
                                     timeout: timeout, allowInsecure: arguments.flag("allow-insecure"),
                                     payloadVersion: arguments.flag("v2") ? .v2 : .v3)
        options.makeDefault = arguments.flag("make-default")
        options.pin = try GatewayCLI.pin(arguments)
        let registry = try GatewayCLI.registry(context, timeout: timeout)
        // Ctrl-C or SIGTERM stops the probe, the connect or the wait for approval at once.
        let stop = TerminationSignals().stopSignal()
        var pairing = GatewayPairing(setup: setup, options: options, registry: registry,
                                     transport: NetworkPairingTransport(configuration: .clawpair(timeout: options.timeout), stop: stop),
                                     clock: SystemPairingClock(wallClockMs: context.nowMs))
        pairing.stop = stop
        let result: PairingResult
        let live = WaitingLine(context)
        // An identity this run creates is removed again when the run fails before the gateway
        // said anything about the device (no pairing request, no approval): a refused code, a
        // connect that failed or was stopped leave no new identity behind. Once the gateway
        // knows the device (a pending request, bound to this identity), it stays.
        var created: (store: IdentityStore, deviceId: String)?
        var gatewayKnowsDevice = false
        do {
            defer { live.clear() }
            result = try pairing.run(identity: {
                let store = try IdentityStore.locate(environment: context.environment)
                let (identity, isNew) = try store.loadOrCreateIdentity(createdAtMs: context.nowMs, environment: context.environment)
                if isNew {
                    created = (store, identity.deviceId)
                    context.note("Created this machine's device identity \(identity.deviceId.prefix(16))… in \(store.identityPath)")
                }
                return identity
            }) { progress in
                switch progress {
                case .reachable, .handoffTokensIgnored: break
                default: gatewayKnowsDevice = true
                }
                let lines = progress.notes(approveCommand: { PairingRequired(requestId: $0).approveCommand })
                if !lines.isEmpty { live.clear() }
                for line in lines { context.note(line) }
                if case .waiting(let elapsed, let left, let requestId) = progress { live.show(elapsed: elapsed, left: left, requestId: requestId) }
            }
        } catch {
            if let created, !gatewayKnowsDevice { Self.removeIdentity(created.store, deviceId: created.deviceId, context: context) }
            let cause = error.cause ?? error
            if case GatewayError.authRejected(let shape) = cause { throw Self.codeRefused(cause, shape, role: role) }
            throw cause
        }
        show(result, registry: registry, context: context)
        return .success
    }

    /// Removes the identity file this run created (only when it still holds `deviceId`), and says so.
    static func removeIdentity(_ store: IdentityStore, deviceId: String, context: CommandContext) {
        guard (try? store.loadIdentity().identity.deviceId) == deviceId, unlink(store.identityPath) == 0 else { return }
        context.note("Removed the device identity this run created: the gateway has no record of it.")
    }

    /// The gateway refused the code's credential. `pair` has no credential option, so the hint
    /// operator commands give (pass --token-file) does not apply: say what the refusal means for
    /// a setup code, and that a new code is the way on. AUTH_BOOTSTRAP_TOKEN_INVALID covers a
    /// token that is unknown (expired, used up, invalidated by a rejection), bound to another
    /// device, or whose profile lacks the role asked for (identity-and-handshake.md §9; upstream
    /// `src/infra/device-bootstrap.ts`).
    static func codeRefused(_ error: any Error, _ shape: GatewayErrorShape, role: GatewayRole) -> PresentedError {
        let shown = ErrorPresentation.present(error)
        let mint = role == .operator ? "clawpair qr (or openclaw qr)" : "clawpair qr --node (or openclaw qr)"
        let message: String
        let hint: String
        if shape.detailCode == "AUTH_BOOTSTRAP_TOKEN_INVALID" {
            if role == .operator {
                message = "the gateway refused this setup code for the operator role: the code cannot grant that role "
                    + "(a node-only or limited code), or it was used up, rejected or has expired"
                hint = "pair as a node (without --role operator), or mint an operator code on the gateway: \(mint)"
            } else {
                message = "the gateway refused this setup code: its pairing request was rejected, or the code was used up "
                    + "(each code pairs one device) or has expired"
                hint = "mint a new code on the gateway (\(mint)), then run 'clawpair pair' again and have the request approved"
            }
        } else {
            message = "the gateway refused the token or password this setup code carries"
            hint = "the gateway's credential changed since the code was made: mint a new code on the gateway: \(mint)"
        }
        return PresentedError(error, status: .refused, message: message, hint: hint, code: shown.code, details: shown.details)
    }

    private func show(_ result: PairingResult, registry: GatewayRegistry, context: CommandContext) {
        if context.globals.json { return context.printJSON(result.json) }
        for line in result.summary(registryDirectory: registry.directory) { context.print(line) }
        if result.becameActive {
            context.note("It is now the default gateway for clawpair commands ('clawpair gateways use' changes that).")
        } else if let previous = result.previousDefault {
            let name = TerminalText.sanitize(previous, maxScalars: 80)
            context.note("'\(name)' stays the default gateway for clawpair commands; to use this one by default: "
                         + "clawpair gateways use \(ShellQuote.quote(result.gateway.name))")
        }
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

/// The live line `pair` keeps on a terminal while it waits for approval, between the 30 s
/// reminders: `⠋ Waiting for approval of REQUEST · 12s waited, 4m48s left`, rewritten after each
/// attempt and erased before any other line (only where a spinner would be shown: standard
/// error is a terminal, not --json, -q or -v).
final class WaitingLine {
    private let context: CommandContext
    private let enabled: Bool
    private let frames: [String]
    private var index = 0
    private var shown = false

    init(_ context: CommandContext) {
        self.context = context
        enabled = Spinner.shouldShow(stderrIsTTY: context.stderrIsTTY, environment: context.environment, json: context.globals.json,
                                     watch: false, quiet: context.globals.quiet, verbose: context.globals.verbosity > 0)
        frames = Spinner.frames(environment: context.environment)
    }

    func show(elapsed: Duration, left: Duration, requestId: String?) {
        guard enabled else { return }
        let id = requestId.map { " " + TerminalText.sanitize($0, maxScalars: 40) } ?? ""
        let text = "\(frames[index % frames.count]) Waiting for approval of pairing request\(id) · "
            + "\(Self.seconds(elapsed)) waited, \(Self.seconds(left)) left"
        index += 1
        context.stderr.write(Spinner.erase + text)
        shown = true
    }

    func clear() {
        guard shown else { return }
        context.stderr.write(Spinner.erase)
        shown = false
    }

    /// `12s`, `4m48s`: whole seconds, rounded down.
    static func seconds(_ duration: Duration) -> String {
        let total = max(0, duration.components.seconds)
        return total >= 60 ? "\(total / 60)m\(total % 60)s" : "\(total)s"
    }
}
