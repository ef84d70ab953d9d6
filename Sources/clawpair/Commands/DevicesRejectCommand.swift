import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices reject DEVICE`.
struct DevicesRejectCommand: ParsableCommand {
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
        sections: GatewayCLI.sections(json: "With --json, device.pair.reject's payload: {\"requestId\", \"deviceId\"}."),
        runner: DevicesRejectCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let query = arguments.positionals[0]
            let outcome: DeviceRejectionOutcome
            do {
                outcome = try session.rejectCurrentRequest(query)
            } catch let error as DeviceRequestLookupError {
                throw DevicesCommand.lookupFailure(error, verb: "reject")
            }
            for line in outcome.resolved.notes(query: query, superseded: outcome.superseded, current: outcome.rejected.requestId,
                                               verb: "rejecting") { context.note(line) }
            if context.globals.json {
                context.printJSON(outcome.rejection.json)
            } else {
                context.print("Rejected request \(TerminalText.sanitize(outcome.rejected.requestId, maxScalars: 64)) from device "
                              + "\(GatewayOutput.shortId(outcome.rejected.deviceId)).")
            }
            return .success
        }
    }
}
