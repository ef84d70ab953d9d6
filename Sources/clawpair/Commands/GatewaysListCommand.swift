import ClawpairCLIKit
import ClawpairGateway

/// `clawpair gateways list`.
struct GatewaysListCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "Show the paired gateways",
        discussion: ["Shows each paired gateway: its name and id, URLs, TLS pin, the roles this machine holds tokens for "
                     + "(never the tokens), and when it was paired and last seen. The chosen one is marked with *."],
        sections: [
            .inManSource("JSON OUTPUT"),
            .inManSource("LIMITS"),
            GatewaysCommand.filesSection,
        ],
        runner: GatewaysListCommand.runner
    )

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {}

    func run(_ context: CommandContext) throws -> ExitStatus {
        let snapshot = try GatewaysCommand.registry(context).snapshot()
        for problem in snapshot.problems { context.warn(problem.message) }
        let none = snapshot.gateways.isEmpty
        let lines = none ? ["No paired gateways."] : snapshot.textLines(nowMs: context.nowMs, paint: context.style.paint)
        let notes = none ? ["Pair with a setup code: clawpair pair - < code.txt"] : []
        return context.printResult(snapshot.publicJSON, lines: lines, notes: notes)
    }
}
