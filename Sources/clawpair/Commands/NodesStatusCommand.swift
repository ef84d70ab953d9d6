import ClawpairCLIKit
import ClawpairGateway

/// `clawpair nodes status`.
struct NodesStatusCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "status",
        abstract: "List the gateway's nodes: connected first, then by name",
        discussion: [
            "Calls node.list and shows each node's name, id, platform and versions, capabilities and invokable "
                + "commands, its approval state (approved, pending approval, pending re-approval), whether it is connected "
                + "(else when it was last seen), when it last connected and disconnected, and the host statistics "
                + "(CPUs, load, memory, disk) a headless node reports (OpenClaw 2026.10 gateways).",
        ],
        options: NodesCommand.filterOptions + GatewayCLI.connectionOptions,
        examples: [Example("clawpair nodes status", "What is connected to the local gateway?"),
                   Example("clawpair nodes status --last-connected 24h", "Nodes seen in the last day")],
        sections: NodesCommand.listSections,
        runner: NodesStatusCommand.runner
    )

    let arguments: ParsedArguments

    static func validate(_ arguments: ParsedArguments) throws { _ = try NodesCommand.lastConnected(arguments) }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.show(arguments, context) { NodeListNode.statusLines($0, nowMs: context.nowMs, paint: context.style.paint) }
    }
}
