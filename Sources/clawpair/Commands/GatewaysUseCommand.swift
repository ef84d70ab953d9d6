import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// `clawpair gateways use NAME`.
struct GatewaysUseCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "use",
        abstract: "Choose the gateway commands use when no --url or --gateway is given",
        arguments: [ArgumentSpec("name", help: "The gateway's name or id ('clawpair gateways list').", completion: ListNamesCommand.gatewayNames)],
        sections: [GatewaysCommand.filesSection],
        runner: GatewaysUseCommand.runner
    )

    let name: String

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        name = arguments.positionals[0]
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let gateway = try registry.gateway(named: name)
        try registry.setActive(gateway)
        if context.globals.json {
            context.printJSON(GatewaysCommand.publicJSON(gateway, active: true))
        } else {
            context.print("Using \(TerminalText.sanitize(gateway.name, maxScalars: 80)) (\(TerminalText.sanitize(gateway.urls[0], maxScalars: 300))).")
        }
        return .success
    }
}
