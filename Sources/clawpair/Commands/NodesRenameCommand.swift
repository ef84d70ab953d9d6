import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes rename NODE NAME`.
struct NodesRenameCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "rename",
        abstract: "Give a paired node another display name",
        discussion: ["Finds the node in node.list by its id, a unique id prefix, its name or its address, then calls "
                     + "node.rename {nodeId, displayName}. The node keeps its id."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("node", help: "The node's id, a unique prefix of it, its name or its address."),
                    ArgumentSpec("name", help: "The new display name.")],
        examples: [Example("clawpair nodes rename kitchen-pi 'Kitchen display'", "Rename a node")],
        sections: GatewayCLI.sections(json: "With --json, node.rename's payload: {\"nodeId\", \"displayName\"}."),
        runner: NodesRenameCommand.runner
    )

    let arguments: ParsedArguments
    let name: String

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        name = arguments.positionals[1]
        if name.allSatisfy(\.isWhitespace) { throw UsageError("the new name is empty") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let (nodeId, result) = try NodesCommand.withNode(arguments.positionals[0], in: try session.listNodes()) { nodeId in
                (nodeId, try session.renameNode(nodeId: nodeId, displayName: name))
            }
            if context.globals.json {
                context.printJSON(result.json)
            } else {
                context.print("Renamed node \(GatewayOutput.shortId(nodeId)) to \(GatewayOutput.field(result.name ?? name, max: 64)).")
            }
            return .success
        }
    }
}
