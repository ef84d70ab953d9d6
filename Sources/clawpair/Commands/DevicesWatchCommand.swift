import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices watch [--json] [--approve-role ROLE] [--approve-from CIDR]... [--yes]`.
struct DevicesWatchCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Follow pairing requests live, and approve them by rule",
        discussion: [
            "Lists the pending requests, then follows the gateway's pairing events (device.pair.requested, "
                + "device.pair.resolved, device.pair.changed, device.pair.setup.completed, node.pair.*) and prints each "
                + "as it arrives: the request id, the device's name and id, the role and scopes it asks for, its address, "
                + "its age, and flags: repair (an already paired device asks again) and supersedes (the device's retry "
                + "replaced its earlier request). On a terminal, keys act on the newest pending request: a approves it, "
                + "r rejects it, q quits. A request for more than a node's baseline (any role but node, any scope, "
                + "operator.admin above all) is approved only after a question naming its role and scopes is answered "
                + "with y; any other key cancels; a status line on stderr names the request and the keys. When the connection drops or the gateway restarts, it reconnects "
                + "(at once after a 1012 restart close, otherwise after 0.5 s doubling to 5 s) and lists the pending requests again. Stop it with Ctrl-C.",
            "For scripts, --approve-role and --approve-from approve the requests that match every rule given (a repair "
                + "request too: it asks for access again), and only with --yes; each decision is logged on stderr. "
                + "Anything else is left for 'clawpair devices approve'.",
        ],
        options: [
            .value("approve-role", "ROLE", help: "Approve requests that ask only for ROLE (e.g. node); needs --yes."),
            .repeated("approve-from", "CIDR", help: "Approve requests from this network (e.g. 10.0.0.0/8; repeatable); needs --yes."),
            .flag("yes", short: "y", help: "Really approve what the rules match."),
        ] + GatewayCLI.connectionOptions,
        examples: [
            Example("clawpair devices watch", "Show pairing requests as they arrive"),
            Example("clawpair devices watch --approve-role node --approve-from 10.0.0.0/8 --yes",
                    "Approve nodes from the LAN as they ask, log everything"),
            Example("clawpair devices watch --json | jq -c 'select(.event == \"requested\")'", "Requests as JSON lines"),
        ],
        sections: GatewayCLI.sections,
        runner: DevicesWatchCommand.runner
    )

    let arguments: ParsedArguments
    let rules: PairingAutoApproval

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        do throws(PairingAutoApproval.InvalidNetwork) {
            rules = try PairingAutoApproval(role: arguments.value("approve-role"), cidrs: arguments.values("approve-from"))
        } catch {
            throw UsageError("invalid --approve-from: \(TerminalText.sanitize(error.text, maxScalars: 64))",
                             hint: "give a CIDR such as 10.0.0.0/8 or fd00::/8")
        }
        if !rules.isEmpty && !arguments.flag("yes") {
            throw UsageError("--approve-role and --approve-from approve devices: add --yes", hint: "without rules, watch only shows requests")
        }
        if rules.isEmpty && arguments.flag("yes") { throw UsageError("--yes goes with --approve-role or --approve-from") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        // SIGINT/SIGTERM raise the stop, which wakes the watch at once (it sleeps until an event,
        // the stop or a key).
        let stop = TerminationSignals().stopSignal()
        // On a terminal (and not --json): a approves the newest request, r rejects it, q quits.
        let keys = context.globals.json ? nil : KeyInput()
        defer { keys?.restore() }
        var log = PairingWatchLog(rules: rules, jsonLines: context.globals.json, interactive: keys != nil)
        let watch = try Self.watch(arguments, context)
        return try GatewayCLI.run(context) {
            try watch.run(stop: stop, input: keys?.fileDescriptor, poll: {
                let (output, quit) = log.pressed(keys?.available() ?? [])
                if quit { stop.stop() }
                return emit(output, context)
            }) { event in
                emit(log.handle(event, now: context.nowMs), context)
            }
            return .success
        }
    }

    /// The watch on a GatewaySession (its reconnects, its stop). A first connect the way every
    /// operator command connects says what is wrong (a refused credential, a TLS pin, a wrong
    /// scheme) as they do and stores a new identity the gateway answered; when it fails with
    /// what a reconnect can fix (the gateway is down), the session keeps trying.
    static func watch(_ arguments: ParsedArguments, _ context: CommandContext) throws -> PairingWatch {
        let identity = try GatewayCLI.pendingIdentity(context)
        let options = try GatewayCLI.sessionOptions(arguments, context, identity: identity.identity)
        var plan: OperatorPlan
        do {
            let first = try GatewayCLI.connectOperator(arguments, context)
            plan = OperatorPlan(target: first.target, credential: first.credential)
            first.close()
        } catch let shown as PresentedError {
            guard let error = shown.underlying as? GatewayError, PairingWatch.isRetryable(error) else { throw shown }
            plan = try OperatorSession.plan(options)
        }
        // connectOperator stored a new identity once the gateway answered; the session signs with that one.
        let signer = (try? GatewayCLI.pendingIdentity(context).identity) ?? identity.identity
        let session = try GatewaySession(operatorPlan: plan, registry: options.registry, identity: signer, client: options.client, timeout: options.timeout,
                                         reconnect: PairingWatch.sessionPolicy)
        return PairingWatch(session: session, plan: plan, timeout: options.timeout)
    }

    /// Prints `output` (its JSON line, then its lines in order) and returns its actions.
    private func emit(_ output: PairingWatchOutput, _ context: CommandContext) -> [PairingWatchAction] {
        if let json = output.json { context.printJSONLine(json) }
        for line in output.lines {
            if line.isNote { context.note(line.text) } else { context.print(line.text) }
        }
        return output.actions
    }
}
