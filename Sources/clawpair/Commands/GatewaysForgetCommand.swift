import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair gateways forget NAME`.
struct GatewaysForgetCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "forget",
        abstract: "Remove a gateway from the registry, with its tokens and TLS pin",
        discussion: ["Deletes the record on this machine only; the gateway still lists this device as paired until an "
                     + "operator removes it there ('clawpair devices remove DEVICE_ID')."],
        arguments: [ArgumentSpec("name", help: "The gateway's name or id (a record that cannot be read is removed by its id).", completion: ListNamesCommand.gatewayNames)],
        sections: [GatewaysCommand.filesSection],
        runner: GatewaysForgetCommand.runner
    )

    let arguments: ParsedArguments
    var name: String { arguments.positionals[0] }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let gateway: PairedGateway
        do {
            gateway = try registry.gateway(named: name)
        } catch {
            // A record that cannot be used (damaged, readable by others, a symbolic link) is
            // forgotten by its id, the file name without .json.
            guard let file = try registry.forget(id: name) else { throw error }
            return context.printResult(.object([("forgotten", .string(name)), ("name", .null)]),
                                       lines: ["Removed the unreadable gateway record \(file)."])
        }
        try registry.forget(gateway)
        let forgot = "Forgot \(TerminalText.sanitize(gateway.name, maxScalars: 80)) (\(gateway.id)): its tokens and TLS pin are deleted."
        return context.printResult(.object([("forgotten", .string(gateway.id)), ("name", .string(gateway.name))]), lines: [forgot],
                                   notes: ["To unpair on the gateway too: clawpair devices remove \(gateway.deviceId) (run as an operator there)"])
    }
}
