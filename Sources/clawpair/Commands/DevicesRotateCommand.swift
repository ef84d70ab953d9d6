import ClawpairCLIKit
import ClawpairGateway

/// `clawpair devices rotate --device ID --role R [--scope S]...`.
struct DevicesRotateCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "rotate",
        abstract: "Issue a new device token for a device's role",
        discussion: [
            "Calls device.token.rotate. The old token stops working. The gateway hands the new token back only when "
                + "a device rotates its own token (tokenDelivery in-band). For another device it is withheld "
                + "(withheld-cross-device): nobody receives it, that device's stored token stops working and its next "
                + "connect is refused until it pairs again. Token values are shown only with --reveal.",
        ],
        options: [
            .value("device", "ID", help: "The device id."),
            .value("role", "ROLE", help: "The role whose token to rotate: operator or node.", completion: .values(["operator", "node"])),
            .repeated("scope", "SCOPE", help: "Limit the new token to these scopes (repeatable; default: unchanged)."),
            .flag("reveal", help: "Print the new token when the gateway returns it (it is a secret)."),
        ] + GatewayCLI.connectionOptions,
        examples: [Example("clawpair devices rotate --device 5647...708c --role operator", "Invalidate a device's operator token")],
        sections: GatewayCLI.sections,
        runner: DevicesRotateCommand.runner
    )

    let arguments: ParsedArguments
    let deviceId: String
    let role: String
    let scopes: [String]

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        (deviceId, role) = try DevicesCommand.deviceAndRole(arguments)
        scopes = arguments.values("scope")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let rotation = try session.rotateDeviceToken(deviceId: deviceId, role: role, scopes: scopes.isEmpty ? nil : scopes)
            let reveal = arguments.flag("reveal")
            context.printResult(reveal ? rotation.revealedJSON : rotation.json,
                                lines: [rotation.summary(deviceId: deviceId, role: role)])
            guard !context.globals.json else { return .success }
            if let token = rotation.token {
                if reveal { context.print(token) } else { context.note("The gateway returned the new token; --reveal prints it.") }
            } else {
                context.note(rotation.withheldNote)
            }
            return .success
        }
    }
}
