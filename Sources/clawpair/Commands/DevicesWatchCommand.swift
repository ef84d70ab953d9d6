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
                + "replaced its earlier request). When the connection drops or the gateway restarts, it reconnects "
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
        var pendingByDevice: [String: String] = [:]
        var rule: [String: String] = [:]
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
            try watch.run(until: { stop = stop || signals.pending() != nil; return stop }) { event in
                switch event {
                case .connected(let pending, let reconnect):
                    pendingByDevice = Dictionary(pending.map { ($0.deviceId, $0.requestId) }, uniquingKeysWith: { first, _ in first })
                    emit(.object([("event", "connected"), ("pending", .array(pending.map(\.json))), ("reconnect", .bool(reconnect))]), context) {
                        context.note(reconnect ? "Reconnected; \(pending.count) pending." : "Watching for pairing requests; \(pending.count) pending. Ctrl-C stops.")
                        for request in pending.reversed() { context.print(Self.line(request, supersedes: nil, context: context)) }
                    }
                    return pending.reversed().compactMap { decide($0, &rule, context) }
                case .requested(let request):
                    let previous = pendingByDevice[request.deviceId].flatMap { $0 == request.requestId ? nil : $0 }
                    pendingByDevice[request.deviceId] = request.requestId
                    var json: [(String, JSONValue)] = [("event", "requested"), ("request", request.json)]
                    if let previous { json.append(("supersedes", .string(previous))) }
                    emit(.object(json), context) { context.print(Self.line(request, supersedes: previous, context: context)) }
                    return decide(request, &rule, context).map { [$0] } ?? []
                case .resolved(let resolution):
                    if let device = resolution.deviceId, pendingByDevice[device] == resolution.requestId { pendingByDevice[device] = nil }
                    emit(.object([("event", "resolved"), ("requestId", .string(resolution.requestId)),
                                  ("deviceId", resolution.deviceId.map(JSONValue.string) ?? .null),
                                  ("decision", resolution.decision.map(JSONValue.string) ?? .null)]), context) {
                        context.print("resolved \(TerminalText.sanitize(resolution.requestId, maxScalars: 64)): \(GatewayOutput.field(resolution.decision))")
                    }
                case .setupCompleted(let completion, let uncertain):
                    emit(.object([("event", "setup.completed"), ("completion", completion.json), ("uncertain", .bool(uncertain))]), context) {
                        context.print("setup code used by \(GatewayOutput.field(completion.deviceName)) (\(GatewayOutput.shortId(completion.deviceId))), "
                                      + "access \(GatewayOutput.field(completion.access))" + (uncertain ? " (delivery uncertain)" : ""))
                    }
                case .other(let name, let payload):
                    emit(.object([("event", .string(name)), ("payload", payload ?? .null)]), context) {
                        context.print("event \(TerminalText.sanitize(name, maxScalars: 64))")
                    }
                case .acted(let action, let result):
                    let (verb, id) = Self.describe(action)
                    emit(.object([("event", .string(verb)), ("requestId", .string(id)), ("result", result),
                                  ("rule", rule[id].map(JSONValue.string) ?? .null)]), context) {
                        context.print("\(verb) \(TerminalText.sanitize(id, maxScalars: 64))" + (rule[id].map { " (\($0))" } ?? ""))
                    }
                    context.note("\(verb) \(TerminalText.sanitize(id, maxScalars: 64)) by rule: \(rule[id] ?? "-")")
                case .actionFailed(let action, let error):
                    let (verb, id) = Self.describe(action)
                    emit(.object([("event", "action-failed"), ("action", .string(verb)), ("requestId", .string(id)),
                                  ("error", .string(error.message))]), context) {}
                    context.note("could not mark \(TerminalText.sanitize(id, maxScalars: 64)) \(verb): \(error.message)")
                case .disconnected(let error, let retry):
                    let ms = Int64(retry.components.seconds) * 1000 + Int64(retry.components.attoseconds / 1_000_000_000_000_000)
                    emit(.object([("event", "disconnected"), ("error", .string(error.message)), ("retryInMs", .int(ms))]), context) {}
                    context.note("connection lost: \(error.message); reconnecting in \(DurationText.describe(milliseconds: ms))")
                }
                return []
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

    /// A JSON line under --json, else the human form.
    private func emit(_ json: JSONValue, _ context: CommandContext, human: () -> Void) {
        if context.globals.json { context.printJSONLine(json) } else { human() }
    }

    static func describe(_ action: PairingWatchAction) -> (verb: String, id: String) {
        switch action {
        case .approve(let id): return ("approved", id)
        case .reject(let id): return ("rejected", id)
        }
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
