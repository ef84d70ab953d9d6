import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes list`: one line per node.
struct NodesListCommand: ParsableCommand {
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

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        _ = try NodesCommand.lastConnected(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.show(arguments, context) { nodes in
            let rows = nodes.map { node -> [String] in
                [GatewayOutput.field(node.displayName, max: 32), GatewayOutput.shortId(node.nodeId), GatewayOutput.field(node.platform, max: 16),
                 GatewayOutput.field(node.approvalState, max: 20), GatewayOutput.field(node.remoteIp, max: 46),
                 node.connected ? "now" : GatewayOutput.age(node.lastSeenAtMs, now: context.nowMs)]
            }
            for line in GatewayOutput.table(["NAME", "NODE", "PLATFORM", "STATE", "IP", "CONNECTED"], rows, style: context.style) {
                context.print(line)
            }
        }
    }
}
