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

    /// Calls a `node.pair.*` method with `{requestId}` and prints its payload.
    static func resolve(_ method: String, verb: String, arguments: ParsedArguments, context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let id = arguments.positionals[0]
            let payload = try session.client.call(method, params: .object([("requestId", .string(id))]), timeout: session.timeout)
            if context.globals.json {
                context.printJSON(payload)
            } else {
                context.print("\(verb) node request \(TerminalText.sanitize(id, maxScalars: 64)).")
            }
            return .success
        }
    }

}
