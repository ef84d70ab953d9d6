import ClawpairCLIKit
import ClawpairGateway

/// `clawpair devices revoke --device ID --role R`.
struct DevicesRevokeCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "revoke",
        abstract: "Revoke a device's token for one role",
        discussion: ["Calls device.token.revoke: the device can no longer connect with that role until it is approved again."],
        options: [
            .value("device", "ID", help: "The device id."),
            .value("role", "ROLE", help: "The role whose token to revoke: operator or node.", completion: .values(["operator", "node"])),
        ] + GatewayCLI.connectionOptions,
        examples: [Example("clawpair devices revoke --device 5647...708c --role node", "Stop a node from connecting")],
        sections: GatewayCLI.sections,
        runner: DevicesRevokeCommand.runner
    )

    let arguments: ParsedArguments
    let deviceId: String
    let role: String

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        (deviceId, role) = try DevicesCommand.deviceAndRole(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let revocation = try session.revokeDeviceToken(deviceId: deviceId, role: role)
            return context.printResult(revocation.json, lines: [revocation.summary(deviceId: deviceId, role: role)])
        }
    }
}
