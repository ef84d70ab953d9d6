import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices clear --yes [--pending]`.
struct DevicesClearCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "clear",
        abstract: "Remove every paired device (and with --pending, reject every pending request)",
        discussion: ["As 'openclaw devices clear': lists the devices, then calls device.pair.remove for each paired device "
                     + "and, with --pending, device.pair.reject for each pending request. The device clawpair is connected "
                     + "as is kept, so the operator is not locked out halfway; remove it last with 'clawpair devices "
                     + "remove'. Needs --yes: removed devices must pair again."],
        options: [
            .flag("yes", short: "y", help: "Really remove them (required)."),
            .flag("pending", help: "Also reject every pending request."),
        ] + GatewayCLI.connectionOptions,
        examples: [Example("clawpair devices clear --yes --pending", "Start over: no paired devices, no pending requests")],
        sections: GatewayCLI.sections,
        runner: DevicesClearCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        guard arguments.flag("yes") else {
            throw UsageError("devices clear removes every paired device: add --yes", hint: "'clawpair devices list' shows what it would remove")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let identity = try GatewayCLI.identity(context)
            let result = try session.clearDevices(rejectPending: arguments.flag("pending"), keepDeviceId: identity.deviceId)
            let kept = result.kept.first.map { "Kept this machine's device \(RecordText.shortId($0)); to remove it too: "
                + "clawpair devices remove \(TerminalText.sanitize($0, maxScalars: 80))" }
            return context.printResult(result.json, lines: [result.summary(rejectingPending: arguments.flag("pending"))],
                                       notes: kept.map { [$0] } ?? [])
        }
    }
}
