import ClawpairCLIKit
import ClawpairGateway

/// `clawpair devices reject DEVICE`.
struct DevicesRejectCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "reject",
        abstract: "Reject a pending pairing request",
        discussion: [
            "Names the device as 'clawpair devices approve' does: its device id, a request id, a unique prefix of either "
                + "(at least 4 characters), or its display name, resolved to the device's current request just before "
                + "device.pair.reject. The device stays unpaired and may ask again. To unpair a device that is already "
                + "approved, use 'clawpair devices remove'.",
        ],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("device", help: "A device id, request id, unique prefix of either, or display name.")],
        examples: [Example("clawpair devices reject 3f0c2d1e", "Refuse a request you do not recognise")],
        sections: GatewayCLI.sections,
        runner: DevicesRejectCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            try DevicesCommand.act("reject", arguments.positionals[0], context) { try session.rejectCurrentRequest($0) }
            return .success
        }
    }
}
