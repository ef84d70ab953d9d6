import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes`: the gateway's nodes, as `openclaw nodes`.
enum NodesCommand {
    static let spec = CommandSpec(
        name: "nodes",
        abstract: "Show a gateway's nodes and handle node pairing requests",
        discussion: [
            "'list' and 'status' show the nodes the gateway knows (node.list): phones, computers and node hosts connected with "
                + "role node. Since OpenClaw 2026.7 a node is approved in two steps: its device pairing, then (after it reconnects) its "
                + "commands; 'pending' lists both steps, 'approve' and 'reject' take a request id of either (older gateways: step 2 only); "
                + "'rename' and 'remove' change a paired node.",
        ],
        subcommands: [NodesListCommand.spec, NodesStatusCommand.spec, NodesPendingCommand.spec, NodesApproveCommand.spec,
                      NodesRejectCommand.spec, NodesRenameCommand.spec, NodesRemoveCommand.spec]
    )

    /// `--connected` and `--last-connected DURATION` (list, status).
    static let filterOptions: [OptionSpec] = [
        .flag("connected", help: "Only nodes connected now."),
        .value("last-connected", "DURATION", help: "Only nodes connected now or seen within DURATION, with a unit (24h, 30m, 7d)."),
    ]

    /// The man-page sections of `nodes list` and `nodes status` (both print node.list's payload).
    static let listSections = GatewayCLI.sections(json: "With --json, node.list's payload: {\"ts\", \"nodes\": [NodeListNode...], "
                                                      + "\"activeNodeId\"?} (with --connected or --last-connected, only the nodes shown).")

    /// `--last-connected` in milliseconds (nil when not given); a bare number is refused.
    static func lastConnected(_ arguments: ParsedArguments) throws -> Int64? {
        guard let text = arguments.value("last-connected") else { return nil }
        guard !text.allSatisfy({ $0.isASCII && $0.isNumber }), let window = DurationText.milliseconds(text), window > 0 else {
            throw UsageError("invalid --last-connected: \(text)", hint: "give a duration with a unit, e.g. 24h, 30m or 7d")
        }
        return window
    }

    /// `nodes list` and `status`: node.list filtered by `--connected` / `--last-connected`, as
    /// JSON, `No nodes.` (or how many a filter hid), or through `printNodes`.
    static func show(_ arguments: ParsedArguments, _ context: CommandContext, printNodes: ([NodeListNode]) -> Void) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let (nodes, payload, hidden) = try session.listNodes().filtered(connectedOnly: arguments.flag("connected"),
                                                                             seenWithinMs: try lastConnected(arguments), nowMs: context.nowMs)
            if context.globals.json {
                context.printJSON(payload)
            } else if !nodes.isEmpty {
                printNodes(nodes)
            } else if hidden > 0 {
                context.print("No nodes match (\(hidden) other\(hidden == 1 ? "" : "s") offline or not seen recently).")
                context.note("Without --connected or --last-connected every node is shown.")
            } else {
                context.print("No nodes.")
                context.note("A node pairs with a setup code: 'clawpair qr --node' prints one.")
            }
            return .success
        }
    }

    /// Runs `body` with the id of the node `query` names: the one node.list entry it matches (id,
    /// unique id prefix, name or address), else `query` itself, since node.pair.* records need
    /// not be in node.list; the gateway's "unknown nodeId" is then "no node matches" (3).
    static func withNode<T>(_ query: String, in list: NodeList, _ body: (String) throws -> T) throws -> T {
        let matches = list.nodes(matching: query)
        let shown = TerminalText.sanitize(query, maxScalars: 80)
        if matches.count > 1 {
            let names = matches.prefix(8).map { "\(TerminalText.sanitize($0.nodeId, maxScalars: 80)) (\(GatewayOutput.field($0.displayName, max: 32)))" }
            throw GeneralError("\(shown) matches \(matches.count) nodes: " + names.joined(separator: "; "),
                               hint: "give the node id", status: .usage)
        }
        do {
            return try body(matches.first?.nodeId ?? query)
        } catch let error as GatewayError {
            guard case .rpcFailed(_, let shape) = error, shape.message.lowercased().contains("unknown nodeid") else { throw error }
            throw GeneralError("no node matches \(shown)", hint: "'clawpair nodes list' and 'clawpair nodes pending' show the gateway's nodes",
                               status: .notFound)
        }
    }

    /// Approves or rejects the node request named by the first argument (either step) and says
    /// which step it was and which node.
    static func resolve(approve: Bool, arguments: ParsedArguments, context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let outcome = try NodeApprovals.resolve(arguments.positionals[0], approve: approve, session: session)
            if context.globals.json { context.printJSON(outcome.json); return .success }
            let name = TerminalText.sanitize(outcome.nodeName, maxScalars: 64), id = TerminalText.sanitize(outcome.request.requestId, maxScalars: 64)
            switch outcome.request.step {
            case .commandSurface: context.print("\(approve ? "Approved" : "Rejected") node \(name) (node request \(id)).")
            case .devicePairing:
                context.print("\(approve ? "Approved" : "Rejected") the device pairing of node \(name) (request \(id), step 1 of 2).")
                if approve { context.note("Next: when the node reconnects, approve its commands (step 2): clawpair nodes pending") }
            }
            return .success
        }
    }
}
