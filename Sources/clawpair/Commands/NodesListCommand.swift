import ClawpairCLIKit
import ClawpairGateway

/// `clawpair nodes list`: one line per node.
struct NodesListCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the gateway's nodes, one line each: connected first, then by name",
        discussion: [
            "Calls node.list, as 'openclaw nodes list'. Shows each node's name, id, platform, approval state, address "
                + "and whether it is connected now (else when it was last seen). 'clawpair nodes status' shows each node "
                + "in full.",
        ],
        options: NodesCommand.filterOptions + GatewayCLI.connectionOptions,
        examples: [Example("clawpair nodes list --last-connected 24h", "Nodes connected now or seen in the last day")],
        sections: NodesCommand.listSections,
        runner: NodesListCommand.runner
    )

    let arguments: ParsedArguments

    static func validate(_ arguments: ParsedArguments) throws { _ = try NodesCommand.lastConnected(arguments) }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.show(arguments, context) { nodes in
            RecordText.table(NodeListNode.tableHeader, nodes.map { $0.tableRow(nowMs: context.nowMs) }, style: context.style)
        }
    }
}
