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
                + "r rejects it, q quits; a status line on stderr names the request and the keys. When the connection drops or the gateway restarts, it reconnects "
                + "(after 0.5 s, 1 s, 2 s, then every 5 s) and lists the pending requests again. Stop it with Ctrl-C.",
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
        sections: GatewayCLI.sections(json: "With --json, one JSON object per line: {\"event\": \"connected\", \"pending\": [PendingRequest...], "
                    + "\"reconnect\"}, {\"event\": \"requested\", \"request\": PendingRequest, \"supersedes\"?}, {\"event\": \"resolved\", "
                    + "\"requestId\", \"deviceId\", \"decision\"}, {\"event\": \"setup.completed\", \"completion\", \"uncertain\"}, "
                    + "{\"event\": \"approved\" | \"rejected\", \"requestId\", \"result\", \"rule\"}, {\"event\": \"action-failed\", ...}, "
                    + "{\"event\": \"disconnected\", \"error\", \"retryInMs\"} and {\"event\": <other name>, \"payload\"}."),
        runner: DevicesWatchCommand.runner
    )

    let arguments: ParsedArguments
    let rules: PairingAutoApproval

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        var networks: [IPNetwork] = []
        for text in arguments.values("approve-from") {
            guard let network = IPNetwork(text) else {
                throw UsageError("invalid --approve-from: \(TerminalText.sanitize(text, maxScalars: 64))", hint: "give a CIDR such as 10.0.0.0/8 or fd00::/8")
            }
            networks.append(network)
        }
        rules = PairingAutoApproval(role: arguments.value("approve-role"), networks: networks)
        if !rules.isEmpty && !arguments.flag("yes") {
            throw UsageError("--approve-role and --approve-from approve devices: add --yes", hint: "without rules, watch only shows requests")
        }
        if rules.isEmpty && arguments.flag("yes") { throw UsageError("--yes goes with --approve-role or --approve-from") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let signals = TerminationSignals()
        var stop = false
        var rule: [String: String] = [:]
        // On a terminal (and not --json): a approves the newest request, r rejects it, q quits.
        let keys = context.globals.json ? nil : KeyInput()
        defer { keys?.restore() }
        var keyed = PairingWatchKeys()
        let watch = PairingWatch {
            do {
                return try GatewayCLI.connectOperator(arguments, context)
            } catch let shown as PresentedError {
                // The watch retries what a reconnect can fix; the rest ends it as presented.
                if let error = shown.underlying as? GatewayError, PairingWatch.isRetryable(error) { throw error }
                throw shown
            }
        }
        return try GatewayCLI.run(context) {
            try watch.run(until: { stop = stop || signals.pending() != nil; return stop }, poll: {
                let asked = keyed.actions(for: keys?.available() ?? [])
                if asked.quit { stop = true }
                if asked.nothingPending { context.note("no request pending") }
                return asked.actions
            }) { event in
                let changed = keyed.observe(event)
                defer { if keys != nil, changed { context.note(keyed.statusLine) } }
                var actions: [PairingWatchAction] = []
                if context.globals.json { context.printJSONLine(event.json(rule: (event.action?.requestId).flatMap { rule[$0] })) }
                switch event {
                case .connected(let pending, let reconnect):
                    if !context.globals.json {
                        context.note(reconnect ? "Reconnected; \(pending.count) pending." : "Watching for pairing requests; \(pending.count) pending. Ctrl-C stops.")
                        for request in pending.reversed() { context.print(Self.line(request, supersedes: nil, context: context)) }
                    }
                    actions = pending.reversed().compactMap { decide($0, &rule, context) }
                case .requested(let request, let supersedes):
                    human(context) { Self.line(request, supersedes: supersedes, context: context) }
                    actions = decide(request, &rule, context).map { [$0] } ?? []
                case .resolved(let resolution):
                    human(context) { "resolved \(TerminalText.sanitize(resolution.requestId, maxScalars: 64)): \(GatewayOutput.field(resolution.decision))" }
                case .setupCompleted(let completion, let uncertain):
                    human(context) {
                        "setup code used by \(GatewayOutput.field(completion.deviceName)) (\(GatewayOutput.shortId(completion.deviceId))), "
                            + "access \(GatewayOutput.field(completion.access))" + (uncertain ? " (delivery uncertain)" : "")
                    }
                case .other(let name, _):
                    human(context) { "event \(TerminalText.sanitize(name, maxScalars: 64))" }
                case .acted(let action, _):
                    let id = TerminalText.sanitize(action.requestId, maxScalars: 64)
                    human(context) { "\(action.pastTense) \(id)" + (rule[action.requestId].map { " (\($0))" } ?? "") }
                    context.note("\(action.pastTense) \(id) " + (rule[action.requestId].map { "by rule: \($0)" } ?? "by key"))
                case .actionFailed(let action, let error):
                    context.note("could not mark \(TerminalText.sanitize(action.requestId, maxScalars: 64)) \(action.pastTense): \(error.message)")
                case .disconnected(let error, let retry):
                    context.note("connection lost: \(error.message); reconnecting in "
                                 + DurationText.describe(milliseconds: PairingWatchEvent.milliseconds(retry)))
                }
                return actions
            }
            return .success
        }
    }

    /// The rule decision for `request`, logged; an approval when every rule holds and --yes.
    private func decide(_ request: PendingRequest, _ rule: inout [String: String], _ context: CommandContext) -> PairingWatchAction? {
        guard !rules.isEmpty else { return nil }
        let (approve, reason) = rules.check(request)
        guard approve else {
            context.note("not approving \(TerminalText.sanitize(request.requestId, maxScalars: 64)): \(reason)")
            return nil
        }
        rule[request.requestId] = reason
        return .approve(requestId: request.requestId)
    }

    /// Prints `line()` unless --json.
    private func human(_ context: CommandContext, _ line: () -> String) {
        if !context.globals.json { context.print(line()) }
    }

    /// `request <id>  <name> (<device>)  <role>  <scopes>  from <ip>  <age>  [flags]`.
    static func line(_ request: PendingRequest, supersedes: String?, context: CommandContext) -> String {
        let role = request.role != nil ? GatewayOutput.field(request.role, max: 16) : GatewayOutput.list(request.roles, max: 24)
        var flags: [String] = []
        if request.isRepair { flags.append("repair") }
        if request.silent { flags.append("silent") }
        if let supersedes { flags.append("supersedes \(TerminalText.sanitize(supersedes, maxScalars: 64))") }
        let age = GatewayOutput.age(request.ts, now: max(context.nowMs, request.ts ?? 0))
        return "request \(GatewayOutput.field(request.requestId, max: 64))  \(GatewayOutput.field(request.displayName, max: 32)) "
            + "(\(GatewayOutput.shortId(request.deviceId)))  \(role)  \(ScopeList.summary(request.scopes ?? []))  from "
            + "\(GatewayOutput.field(request.remoteIp, max: 46))  \(age)" + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]")
    }
}
