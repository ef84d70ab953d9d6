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
                + "role node; 'describe' shows one (node.describe). Since OpenClaw 2026.7 a node is approved in two steps: its device pairing, then (after it reconnects) its "
                + "commands; 'pending' lists both steps, 'approve' and 'reject' take a request id of either (older gateways: step 2 only); "
                + "'rename' and 'remove' change a paired node.",
        ],
        subcommands: [
            Subcommand("list") { NodesListCommand.spec },
            Subcommand("status") { NodesStatusCommand.spec },
            Subcommand("describe") { NodesDescribeCommand.spec },
            Subcommand("pending") { NodesPendingCommand.spec },
            Subcommand("approve") { NodesApproveCommand.spec },
            Subcommand("reject") { NodesRejectCommand.spec },
            Subcommand("rename") { NodesRenameCommand.spec },
            Subcommand("remove") { NodesRemoveCommand.spec },
            Subcommand("invoke") { NodesInvokeCommand.spec },
        ]
    )

    /// `--connected` and `--last-connected DURATION` (list, status).
    static let filterOptions: [OptionSpec] = [
        .flag("connected", help: "Only nodes connected now."),
        .value("last-connected", "DURATION", help: "Only nodes connected now or seen within DURATION, with a unit (24h, 30m, 7d)."),
    ]

    /// The man-page sections of `nodes list` and `nodes status` (both print node.list's payload).
    static let listSections = GatewayCLI.sections(json: "With --json, node.list's payload: {\"ts\", \"nodes\": [NodeListNode...], "
                                                      + "\"activeNodeId\"?} (with --connected or --last-connected, only the nodes shown; when none matches, "
                                                      + "exit 3 and \"ok\": false with a not-found error before the payload).")

    /// `--last-connected` in milliseconds (nil when not given); a bare number is refused.
    static func lastConnected(_ arguments: ParsedArguments) throws -> Int64? {
        try DurationOption.spanWithUnit(arguments.value("last-connected"), option: "last-connected")
    }

    /// `nodes list` and `status`: node.list filtered by `--connected` / `--last-connected`, as
    /// JSON, `No nodes.` (or how many a filter hid), or the lines `render` makes of the nodes.
    static func show(_ arguments: ParsedArguments, _ context: CommandContext, render: ([NodeListNode]) -> [String]) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let (nodes, payload, hidden) = try session.listNodes().filtered(connectedOnly: arguments.flag("connected"),
                                                                             seenWithinMs: try lastConnected(arguments), nowMs: context.nowMs)
            if !nodes.isEmpty { return context.printResult(payload, lines: render(nodes)) }
            // A filter that matches nothing found nothing: exit 3, as an empty discover.
            let filtered = arguments.flag("connected") || arguments.value("last-connected") != nil
            let others = "\(hidden) other\(hidden == 1 ? "" : "s")"
            if context.globals.json {
                guard filtered else { return context.printResult(payload, lines: []) }
                let shown = PresentedError(GeneralError(""), status: .notFound, message: hidden > 0
                                           ? "no node matches (\(others) offline or not seen recently)" : "the gateway has no nodes",
                                           hint: nil, code: "not-found")
                context.printJSON(JSONEnvelope.failure(shown, document: payload))
                throw shown
            }
            guard hidden > 0 else {
                context.printResult(payload, lines: ["No nodes."],
                                    notes: ["A node pairs with a setup code: 'clawpair qr --node' prints one."])
                return filtered ? .notFound : .success
            }
            context.printResult(payload, lines: ["No nodes match (\(others) offline or not seen recently)."],
                                notes: ["Without --connected or --last-connected every node is shown."])
            return .notFound
        }
    }

    /// ``OperatorSession/withNode(matching:_:)``, its failures with the command line's hints:
    /// several nodes match (usage, 2), none does (3).
    static func withNode<T>(_ query: String, _ session: OperatorSession,
                            _ body: (String) throws -> T) throws -> (nodeId: String, result: T) {
        do {
            return try session.withNode(matching: query, body)
        } catch let error as NodeLookupError {
            guard case .unknownNode = error else { throw GeneralError(error.message, hint: "give the node id", status: .usage) }
            throw GeneralError(error.message, hint: "'clawpair nodes list' and 'clawpair nodes pending' show the gateway's nodes",
                               status: .notFound)
        }
    }

    /// Approves or rejects the node request named by the first argument (either step) and says
    /// which step it was and which node.
    static func resolve(approve: Bool, arguments: ParsedArguments, context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let outcome = try NodeApprovals.resolve(arguments.positionals[0], approve: approve, session: session)
            let next = approve && outcome.request.step == .devicePairing
                ? ["Next: when the node reconnects, approve its commands (step 2): clawpair nodes pending"] : []
            // Which step was resolved leads the gateway's payload: device pairing or command surface.
            var json = outcome.json
            if case .object(let members) = json {
                json = .object([("step", .string(outcome.request.step.rawValue))] + members.filter { $0.0 != "step" })
            }
            return context.printResult(json, lines: [outcome.summary(approved: approve)], notes: next)
        }
    }
}
