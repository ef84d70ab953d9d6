import ClawpairCLIKit
import ClawpairGateway

/// `clawpair nodes remove NODE`.
struct NodesRemoveCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Remove a paired node from the gateway",
        discussion: ["Finds the node in node.list by its id, a unique id prefix, its name or its address, then calls "
                     + "node.pair.remove {nodeId}, as 'openclaw nodes remove --node'. The node must pair again to come "
                     + "back. A WebSocket node is also a paired device: 'clawpair devices remove' revokes that."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("node", help: "The node's id, a unique prefix of it, its name or its address.")],
        examples: [Example("clawpair nodes remove kitchen-pi", "Remove a node")],
        sections: GatewayCLI.sections,
        runner: NodesRemoveCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let (nodeId, payload) = try NodesCommand.withNode(arguments.positionals[0], session) { try session.removeNode(nodeId: $0) }
            return context.printResult(payload, lines: ["Removed node \(RecordText.field(nodeId, max: 80))."])
        }
    }
}
