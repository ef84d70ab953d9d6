import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes pending`.
struct NodesPendingCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "pending",
        abstract: "List nodes waiting for approval (device pairing or their commands)",
        discussion: ["Shows the nodes waiting for either approval step: device pairing (step 1, device.pair.list's pending requests with role "
                     + "node) and the node's commands (step 2, node.pair.list; the only step on gateways before 2026.7)."],
        options: GatewayCLI.connectionOptions,
        sections: GatewayCLI.sections,
        runner: NodesPendingCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let pending = try NodeApprovals.pending(session)
            let rows = pending.map { $0.tableRow(nowMs: context.nowMs) }
            let table = rows.isEmpty ? ["  none"] : RecordText.table(NodePendingApproval.tableHeader, rows, style: context.style)
            let title = context.style.bold("Pending node requests") + " (\(pending.count))"
            let next = pending.first.map { "Approve one: clawpair nodes approve \(TerminalText.sanitize($0.requestId, maxScalars: 64))" }
            return context.printResult(NodeApprovals.json(pending), lines: [title] + table, notes: next.map { ["", $0] } ?? [])
        }
    }
}
