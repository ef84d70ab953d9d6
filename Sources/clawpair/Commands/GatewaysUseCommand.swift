import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair gateways use NAME`.
struct GatewaysUseCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "use",
        abstract: "Choose the gateway commands use when no --url or --gateway is given",
        arguments: [ArgumentSpec("name", help: "The gateway's name or id ('clawpair gateways list').", completion: ListNamesCommand.gatewayNames)],
        sections: [GatewaysCommand.filesSection],
        runner: GatewaysUseCommand.runner
    )

    let arguments: ParsedArguments
    var name: String { arguments.positionals[0] }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let gateway = try registry.gateway(named: name)
        try registry.setActive(gateway)
        let shown = "\(TerminalText.sanitize(gateway.name, maxScalars: 80)) (\(TerminalText.sanitize(gateway.urls[0], maxScalars: 300)))"
        return context.printResult(gateway.publicJSON(active: true), lines: ["Using \(shown)."])
    }
}
