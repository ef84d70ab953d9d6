import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices remove DEVICE_ID`.
struct DevicesRemoveCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Unpair a device and close its connections",
        discussion: [
            "Calls device.pair.remove: the device's tokens stop working and its open connections are closed. It must "
                + "pair again to come back. Give the full device id ('clawpair devices list --json' shows it); when a "
                + "pending request id is given instead, the error says so.",
        ],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("device-id", help: "The paired device's id (64 hex digits).")],
        examples: [Example("clawpair devices remove 56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c", "Unpair a lost phone")],
        sections: GatewayCLI.sections,
        runner: DevicesRemoveCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let deviceId = arguments.positionals[0]
            let listing = try session.listDevices()
            let shown = TerminalText.sanitize(deviceId, maxScalars: 80)
            if listing.paired(deviceId: deviceId) == nil {
                if let request = listing.pending(requestId: deviceId) {
                    throw GeneralError("\(shown) is a pending request id, not a paired device id", hint:
                        "to refuse the request: clawpair devices reject \(shown) (its device id is \(RecordText.field(request.deviceId, max: 64)))",
                        status: .usage)
                }
                let matches = listing.paired.map(\.deviceId).filter { $0.hasPrefix(deviceId) && !deviceId.isEmpty }
                if matches.count == 1 {
                    throw GeneralError("no paired device has the id \(shown)", hint: "give the whole id: clawpair devices remove \(matches[0])", status: .usage)
                }
                throw GeneralError("no paired device has the id \(shown)", hint: "'clawpair devices list' shows paired devices", status: .notFound)
            }
            let removal = try session.removeDevice(deviceId: deviceId)
            return context.printResult(removal.json, lines: ["Removed device \(shown)."])
        }
    }
}
