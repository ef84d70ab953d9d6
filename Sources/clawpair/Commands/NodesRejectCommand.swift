import ClawpairCLIKit

/// `clawpair nodes reject REQUEST_ID`.
struct NodesRejectCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "reject",
        abstract: "Reject a node pairing request",
        discussion: ["Calls node.pair.reject."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("request-id", help: "The node request's id ('clawpair nodes pending').")],
        sections: GatewayCLI.sections,
        runner: NodesRejectCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.resolve(approve: false, arguments: arguments, context: context)
    }
}
