import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices reject REQUEST_ID`.
struct DevicesRejectCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "reject",
        abstract: "Reject a pending pairing request",
        discussion: [
            "Checks that the request is still pending, then calls device.pair.reject. The device stays unpaired and may "
                + "ask again. To unpair a device that is already approved, use 'clawpair devices remove'.",
        ],
        options: GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("request-id", help: "The pending request's id.")],
        examples: [Example("clawpair devices reject 3f0c2d1e-8a7b-4c5d-9e6f-0a1b2c3d4e5f", "Refuse a request you do not recognise")],
        sections: GatewayCLI.sections(json: "With --json, device.pair.reject's payload: {\"requestId\", \"deviceId\"}."),
        runner: DevicesRejectCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let request = try DevicesCommand.requirePending(arguments.positionals[0], in: try session.listDevices(), verb: "reject")
            let rejection = try session.rejectDevice(requestId: request.requestId)
            if context.globals.json {
                context.printJSON(rejection.json)
            } else {
                context.print("Rejected request \(TerminalText.sanitize(request.requestId, maxScalars: 64)) from device "
                              + "\(GatewayOutput.shortId(request.deviceId)).")
            }
            return .success
        }
    }
}
