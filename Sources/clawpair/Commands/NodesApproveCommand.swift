import ClawpairCLIKit

/// `clawpair nodes approve REQUEST_ID`.
struct NodesApproveCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "approve",
        abstract: "Approve a node pairing request",
        discussion: ["Calls node.pair.approve, which issues the node a fresh token. Approving a node that declares "
                     + "commands needs operator.write as well, and system.run, system.run.prepare or system.which need "
                     + "operator.admin."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("request-id", help: "The node request's id ('clawpair nodes pending').")],
        sections: GatewayCLI.sections,
        runner: NodesApproveCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.resolve(approve: true, arguments: arguments, context: context)
    }
}
