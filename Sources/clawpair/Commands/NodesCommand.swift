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
                + "role node. WebSocket nodes pair through device pairing ('clawpair devices'); 'pending', 'approve' "
                + "and 'reject' handle the gateway's separate node.pair.* store.",
        ],
        subcommands: [NodesStatusCommand.spec, NodesPendingCommand.spec, NodesApproveCommand.spec, NodesRejectCommand.spec]
    )

    /// Approves or rejects the node request named by the first argument and prints the result.
    static func resolve(approve: Bool, arguments: ParsedArguments, context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let id = arguments.positionals[0]
            let resolution = approve ? try session.approveNode(requestId: id) : try session.rejectNode(requestId: id)
            let verb = approve ? "Approved" : "Rejected"
            if context.globals.json {
                context.printJSON(resolution.json)
            } else {
                context.print("\(verb) node request \(TerminalText.sanitize(id, maxScalars: 64)).")
            }
            return .success
        }
    }

}
