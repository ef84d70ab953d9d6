import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices rename DEVICE LABEL`.
struct DevicesRenameCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "rename",
        abstract: "Give a paired device a label",
        discussion: ["Calls device.pair.rename {deviceId, label} (1 to 64 characters). The label shows in 'clawpair "
                     + "devices list' instead of the name the device sent; the device keeps its id. Give the whole device "
                     + "id, a unique prefix of it (4 or more characters), or its current name or label."],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("device", help: "The paired device's id, a unique prefix, or its name or label."),
                    ArgumentSpec("label", help: "The new label (1 to 64 characters).")],
        examples: [Example("clawpair devices rename 3f0c2d1e 'Anna's phone'", "Label a device")],
        sections: GatewayCLI.sections,
        runner: DevicesRenameCommand.runner
    )

    let arguments: ParsedArguments
    let label: String

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        guard let label = PairedDevice.label(arguments.positionals[1]) else {
            throw UsageError("the label must have 1 to 64 characters", hint: "the gateway refuses longer ones")
        }
        self.label = label
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let device = try DevicesCommand.pairedDevice(arguments.positionals[0], in: try session.listDevices())
            let result = try session.renameDevice(deviceId: device.deviceId, label: label)
            return context.printResult(result.json, lines: ["Renamed device \(RecordText.shortId(device.deviceId)) to "
                                                            + "\(RecordText.field(result.name ?? label, max: 64))."])
        }
    }
}
