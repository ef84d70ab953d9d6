import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes`: the gateway's nodes, as `openclaw nodes`.
enum NodesCommand {
    static let spec = CommandSpec(
        name: "nodes",
        abstract: "Show a gateway's nodes and handle node pairing requests",
        discussion: [
            "'status' lists the nodes the gateway knows (node.list): phones, computers and node hosts connected with "
                + "role node. Since OpenClaw 2026.7 a node is approved in two steps: its device pairing, then (after it reconnects) its "
                + "commands; 'pending' lists both steps, 'approve' and 'reject' take a request id of either (older gateways: step 2 only).",
        ],
        subcommands: [NodesStatusCommand.spec, NodesPendingCommand.spec, NodesApproveCommand.spec, NodesRejectCommand.spec]
    )

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
