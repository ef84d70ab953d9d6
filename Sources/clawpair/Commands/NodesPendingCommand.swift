import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes pending`.
struct NodesPendingCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "pending",
        abstract: "List nodes waiting for approval (device pairing or their commands)",
        discussion: ["Shows the nodes waiting for either approval step: device pairing (step 1, device.pair.list's pending requests with role "
                     + "node) and the node's commands (step 2, node.pair.list; the only step on gateways before 2026.7)."],
        options: GatewayCLI.connectionOptions,
        sections: GatewayCLI.sections(json: "With --json, {\"ok\": true, \"pending\": [{\"step\": \"device-pairing\"|\"command-surface\", "
                                      + "\"requestId\", \"nodeId\", \"displayName\", \"platform\", \"commands\", \"remoteIp\", \"ts\"}]}."),
        runner: NodesPendingCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let pending = try NodeApprovals.pending(session)
            if context.globals.json { context.printJSON(NodeApprovals.json(pending)); return .success }
            context.print(context.style.bold("Pending node requests") + " (\(pending.count))")
            let rows = pending.map { request -> [String] in
                [GatewayOutput.field(request.requestId, max: 64), request.step == .devicePairing ? "1 device" : "2 commands",
                 GatewayOutput.field(request.nodeId, max: 40), GatewayOutput.field(request.displayName, max: 32),
                 GatewayOutput.field(request.platform, max: 32), GatewayOutput.list(request.commands),
                 GatewayOutput.field(request.remoteIp, max: 46), GatewayOutput.age(request.ts, now: context.nowMs)]
            }
            guard let first = pending.first else {
                context.print("  none")
                return .success
            }
            for line in GatewayOutput.table(["REQUEST", "STEP", "NODE", "NAME", "PLATFORM", "COMMANDS", "IP", "AGE"], rows, style: context.style) {
                context.print(line)
            }
            context.note("")
            context.note("Approve one: clawpair nodes approve \(TerminalText.sanitize(first.requestId, maxScalars: 64))")
            return .success
        }
    }
}
