import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes reject REQUEST_ID`.
struct NodesRejectCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "reject",
        abstract: "Reject a node pairing request",
        discussion: ["Calls node.pair.reject."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("request-id", help: "The node request's id ('clawpair nodes pending').")],
        sections: GatewayCLI.sections(json: "With --json, node.pair.reject's payload, unchanged."),
        runner: NodesRejectCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.resolve(approve: false, arguments: arguments, context: context)
    }
}
