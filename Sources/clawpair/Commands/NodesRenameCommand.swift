import ClawpairCLIKit
import ClawpairGateway

/// `clawpair nodes rename NODE NAME`.
struct NodesRenameCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "rename",
        abstract: "Give a paired node another display name",
        discussion: ["Finds the node in node.list by its id, a unique id prefix, its name or its address, then calls "
                     + "node.rename {nodeId, displayName}. The node keeps its id."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("node", help: "The node's id, a unique prefix of it, its name or its address."),
                    ArgumentSpec("name", help: "The new display name.")],
        examples: [Example("clawpair nodes rename kitchen-pi 'Kitchen display'", "Rename a node")],
        sections: GatewayCLI.sections,
        runner: NodesRenameCommand.runner
    )

    let arguments: ParsedArguments
    var name: String { arguments.positionals[1] }

    static func validate(_ arguments: ParsedArguments) throws {
        if arguments.positionals[1].allSatisfy(\.isWhitespace) { throw UsageError("the new name is empty") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let (nodeId, result) = try NodesCommand.withNode(arguments.positionals[0], session) {
                try session.renameNode(nodeId: $0, displayName: name)
            }
            let newName = RecordText.field(result.name ?? name, max: 64)
            return context.printResult(result.json, lines: ["Renamed node \(RecordText.shortId(nodeId)) to \(newName)."])
        }
    }
}
