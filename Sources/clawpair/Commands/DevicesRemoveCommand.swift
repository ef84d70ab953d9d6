import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices remove DEVICE`.
struct DevicesRemoveCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Unpair a device and close its connections",
        discussion: [
            "Calls device.pair.remove: the device's tokens stop working and its open connections are closed. It must "
                + "pair again to come back. The device is named as approve, reject and rename name it: its id, its name "
                + "or label, or a unique prefix of its id (as 'clawpair devices list' shows it); when a pending request "
                + "id is given instead, the error says so.",
        ],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("device", help: "The paired device: its id, name or label, or a unique id prefix.")],
        examples: [Example("clawpair devices remove 56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c", "Unpair a lost phone")],
        sections: GatewayCLI.sections,
        runner: DevicesRemoveCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let query = arguments.positionals[0]
            let listing = try session.listDevices()
            let shown = TerminalText.sanitize(query, maxScalars: 80)
            // The resolver of approve, reject and rename: an id, a name or label, or a unique id prefix.
            let device: PairedDevice
            do {
                device = try DevicesCommand.pairedDevice(query, in: listing)
            } catch let error as GeneralError where error.exitStatus == .notFound {
                if let request = listing.pending(requestId: query) {
                    throw GeneralError("\(shown) is a pending request id, not a paired device id", hint:
                        "to refuse the request: clawpair devices reject \(shown) (its device id is \(RecordText.field(request.deviceId, max: 64)))",
                        status: .usage)
                }
                throw error
            }
            if device.deviceId != query {
                context.note("\(shown) is paired device \(RecordText.field(device.deviceId, max: 64)) "
                             + "(\(RecordText.field(device.operatorLabel ?? device.displayName, max: 32)))")
            }
            let removal = try session.removeDevice(deviceId: device.deviceId)
            return context.printResult(removal.json, lines: ["Removed device \(RecordText.shortId(device.deviceId)) "
                                                             + "(\(RecordText.field(device.operatorLabel ?? device.displayName, max: 32)))."])
        }
    }
}
