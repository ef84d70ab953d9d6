import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes status`.
struct NodesStatusCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "status",
        abstract: "List the gateway's nodes: connected first, then by name",
        discussion: [
            "Calls node.list and shows each node's name, id, platform and versions, capabilities and invokable "
                + "commands, its approval state, and whether it is connected (else when it was last seen).",
        ],
        options: NodesCommand.filterOptions + GatewayCLI.connectionOptions,
        examples: [Example("clawpair nodes status", "What is connected to the local gateway?"),
                   Example("clawpair nodes status --last-connected 24h", "Nodes seen in the last day")],
        sections: NodesCommand.listSections,
        runner: NodesStatusCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        _ = try NodesCommand.lastConnected(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try NodesCommand.show(arguments, context) { nodes in
            for (index, node) in nodes.enumerated() {
                if index > 0 { context.print("") }
                Self.printNode(node, context: context)
            }
        }
    }

    static func printNode(_ node: NodeListNode, context: CommandContext) {
        let connected = node.connected
        let name = GatewayOutput.field(node.displayName, max: 48)
        let marker = connected ? context.style.green("●") : context.style.dim("○")
        context.print("\(marker) \(context.style.bold(name == "-" ? "(unnamed)" : name))  \(connected ? "connected" : "offline")")
        var versions: [String] = []
        for (value, label) in [(node.version, "version"), (node.coreVersion, "core"), (node.uiVersion, "ui")] {
            if let value, !value.isEmpty { versions.append("\(label) \(TerminalText.sanitize(value, maxScalars: 32))") }
        }
        var seen = connected ? "connected " + GatewayOutput.age(node.connectedAtMs, now: context.nowMs)
            : "last seen " + GatewayOutput.age(node.lastSeenAtMs, now: context.nowMs)
        if seen.hasSuffix(" -") { seen = connected ? "connected" : "never seen" }
        let rows: [(String, String)] = [
            ("id", GatewayOutput.field(node.nodeId, max: 80)),
            ("platform", [GatewayOutput.field(node.platform), GatewayOutput.field(node.deviceFamily)].filter { $0 != "-" }.joined(separator: " · ")),
            ("versions", versions.isEmpty ? "-" : versions.joined(separator: " · ")),
            ("client", GatewayOutput.field(node.clientId) + " / " + GatewayOutput.field(node.clientMode)),
            ("caps", ScopeList.summary(node.caps, maxScalars: 300)),
            ("commands", ScopeList.summary(node.commands, maxScalars: 300)),
            ("state", GatewayOutput.field(node.approvalState) + (node.paired ? " · paired" : "")
                + (node.pendingRequestId.map { " · pending request \(TerminalText.sanitize($0, maxScalars: 64))" } ?? "")),
            ("seen", seen + (node.remoteIp.map { " · \(TerminalText.sanitize($0, maxScalars: 46))" } ?? "")),
        ]
        for (label, value) in rows where !value.isEmpty {
            context.print("    " + context.style.dim(TextColumns.label(label, width: 10)) + value)
        }
    }
}
