import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes pending`.
struct NodesPendingCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "pending",
        abstract: "List pending requests in the gateway's node pairing store",
        discussion: ["Calls node.pair.list and shows its pending requests (the payload is printed unchanged with --json)."],
        options: GatewayCLI.connectionOptions,
        sections: GatewayCLI.sections(json: "With --json, node.pair.list's payload: {\"pending\": [...], \"paired\": [...]}."),
        runner: NodesPendingCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let listing = try session.listNodePairing()
            if context.globals.json {
                context.printJSON(listing.json)
                return .success
            }
            let pending = listing.pending
            context.print(context.style.bold("Pending node requests") + " (\(pending.count))")
            let rows = pending.map { request -> [String] in
                [GatewayOutput.field(request.requestId, max: 64), GatewayOutput.field(request.nodeId, max: 40),
                 GatewayOutput.field(request.displayName, max: 32), GatewayOutput.field(request.platform, max: 32),
                 GatewayOutput.list(request.commands), GatewayOutput.field(request.remoteIp, max: 46),
                 GatewayOutput.age(request.ts, now: context.nowMs)]
            }
            if rows.isEmpty {
                context.print("  none")
            } else {
                for line in GatewayOutput.table(["REQUEST", "NODE", "NAME", "PLATFORM", "COMMANDS", "IP", "AGE"], rows, style: context.style) {
                    context.print(line)
                }
                if let id = pending.first?.requestId {
                    context.note("")
                    context.note("Approve one: clawpair nodes approve \(TerminalText.sanitize(id, maxScalars: 64))")
                }
            }
            return .success
        }
    }
}
