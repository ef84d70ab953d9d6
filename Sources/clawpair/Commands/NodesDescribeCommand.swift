import ClawpairCLIKit
import ClawpairGateway

/// `clawpair nodes describe NODE`.
struct NodesDescribeCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "describe",
        abstract: "Show one node in full, as the gateway describes it",
        discussion: ["Finds the node in node.list by its id, a unique id prefix, its name or its address, then calls "
                     + "node.describe {nodeId}, as 'openclaw nodes describe'. Shows what 'clawpair nodes status' shows for "
                     + "it: platform and versions, capabilities and commands, approval state (approved, pending approval, "
                     + "pending re-approval), when it last connected and disconnected, and the host statistics a headless "
                     + "node reports. A gateway whose hello-ok does not list node.describe is not asked."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("node", help: "The node's id, a unique prefix of it, its name or its address.")],
        examples: [Example("clawpair nodes describe kitchen-pi", "Everything the gateway knows about one node")],
        sections: GatewayCLI.sections(json: "With --json, node.describe's payload: {\"ts\", \"nodeId\", …} (a NodeListNode)."),
        runner: NodesDescribeCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let (_, node) = try NodesCommand.withNode(arguments.positionals[0], session) { try session.describeNode(nodeId: $0) }
            return context.printResult(node.json, lines: node.statusLines(nowMs: context.nowMs, paint: context.style.paint))
        }
    }
}
