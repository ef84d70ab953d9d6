import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// `clawpair gateways list`.
struct GatewaysListCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "Show the paired gateways",
        discussion: ["Shows each paired gateway: its name and id, URLs, TLS pin, the roles this machine holds tokens for "
                     + "(never the tokens), and when it was paired and last seen. The chosen one is marked with *."],
        sections: [
            DocSection("JSON OUTPUT", ["With --json: {\"active\": id or null, \"gateways\": [{\"id\", \"name\", \"active\", \"urls\", "
                                       + "\"tlsFingerprint\", \"deviceId\", \"tokens\": [{\"role\", \"scopes\", \"issuedAtMs\"}], "
                                       + "\"pairedAtMs\", \"lastSeenAtMs\"}]}."]),
            GatewaysCommand.filesSection,
        ],
        runner: GatewaysListCommand.runner
    )

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {}

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let (gateways, damaged) = registry.list()
        let active = registry.active()?.id
        for problem in damaged { context.warn(problem.message) }
        if context.globals.json {
            context.printJSON(.object([("active", active.map(JSONValue.string) ?? .null),
                                       ("gateways", .array(gateways.map { GatewaysCommand.publicJSON($0, active: $0.id == active) }))]))
            return .success
        }
        if gateways.isEmpty {
            context.print("No paired gateways.")
            context.note("Pair with a setup code: clawpair pair - < code.txt")
            return .success
        }
        for (index, gateway) in gateways.enumerated() {
            if index > 0 { context.print("") }
            let mark = gateway.id == active ? "* " : "  "
            context.print(mark + context.style.bold(TerminalText.sanitize(gateway.name, maxScalars: 80)) + "  " + context.style.dim(gateway.id))
            let rows: [(String, String)] = [
                ("urls", gateway.urls.map { TerminalText.sanitize($0, maxScalars: 300) }.joined(separator: ", ")),
                ("tls pin", gateway.tlsFingerprint ?? "-"),
                ("tokens", gateway.tokens.isEmpty ? "-" : gateway.tokens.map { "\($0.role)" + ($0.scopes.isEmpty ? "" : " (\($0.scopes.joined(separator: ",")))") }.joined(separator: ", ")),
                ("device", String(gateway.deviceId.prefix(16)) + "…"),
                ("paired", GatewayOutput.age(.int(gateway.pairedAtMs), now: context.nowMs)),
                ("last seen", GatewayOutput.age(gateway.lastSeenAtMs.map(JSONValue.int), now: context.nowMs)),
            ]
            for (label, value) in rows { context.print("    " + context.style.dim(TextColumns.label(label, width: 10)) + value) }
        }
        return .success
    }
}
