import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices approve [DEVICE] | --latest [--yes]`.
struct DevicesApproveCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "approve",
        abstract: "Approve a device's pending pairing request",
        discussion: [
            "Name the device by its device id, a request id, a unique prefix of either (at least 4 characters, as "
                + "'clawpair devices list' shows them), or its display name. clawpair lists the pending requests just "
                + "before approving and approves that device's current request, says what the name resolved to, and "
                + "when the device's retry supersedes the request in between, approves the newer one. A name that fits "
                + "several devices is exit 2 with the candidates; nothing pending is exit 3.",
            "A request is approved only if it asks for no more role or scope than was shown: the request named by its exact id, "
                + "else what the device already holds when it is paired, else the request the name resolved to. A device that "
                + "re-asks for more (a node asking to be an operator, more scopes), by a name or by a retry that supersedes the "
                + "request, is not approved: the difference is shown (exit 4, code approval-upgrade) with the exact "
                + "request id to approve after checking it. --yes never covers such an upgrade.",
            "With no name, or with --latest, shows the newest pending request and the exact command that approves it, "
                + "and approves nothing; with --latest --yes it approves that request. Review a request before "
                + "approving it: an approved device can act on the gateway with the role and scopes shown.",
        ],
        options: [
            .flag("latest", help: "Pick the newest pending request: show it, and approve it only with --yes."),
            .flag("yes", short: "y", help: "With --latest: approve it without asking."),
        ] + GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("device", help: "A device id, request id, unique prefix of either, or display name "
                                 + "(default: show the newest request).", optional: true)],
        examples: [
            Example("clawpair devices approve 3f0c2d1e", "Approve the device whose request or device id starts so"),
            Example("clawpair devices approve 'Pixel 8'", "Approve the device by the name it sent"),
            Example("clawpair devices approve", "Show the newest request and the command that approves it"),
        ],
        sections: GatewayCLI.sections,
        runner: DevicesApproveCommand.runner
    )

    let arguments: ParsedArguments
    let query: String?
    let yes: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        query = arguments.positionals.first
        let latest = arguments.flag("latest")
        yes = arguments.flag("yes")
        if latest && query != nil { throw UsageError("give a device or --latest, not both") }
        if yes && !latest { throw UsageError("--yes goes with --latest", hint: "with a device named no confirmation is needed") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            guard let query else { return try preview(session, context) }
            try DevicesCommand.act("approve", query, context) { try session.approveCurrentRequest($0) }
            return .success
        }
    }

    /// No name or --latest: the newest request and the command that approves it; with --yes, approve it.
    private func preview(_ session: OperatorSession, _ context: CommandContext) throws -> ExitStatus {
        guard let newest = try session.listDevices().sortedPending.first else {
            throw GeneralError("no pairing request is pending", hint: "the device shows a request id while it waits; "
                               + "'clawpair devices watch' shows requests as they arrive", status: .notFound)
        }
        if yes {
            let outcome = try session.approveCurrentRequest(newest.requestId)
            return context.printResult(outcome.json, lines: [outcome.summary])
        }
        let command = "clawpair devices approve \(TerminalText.sanitize(newest.requestId, maxScalars: 64))"
        return context.printResult(.object([("approved", false), ("request", newest.json), ("command", .string(command))]),
                                   lines: newest.details(now: context.nowMs).map { TextColumns.label($0.label, width: 13) + $0.value }
                                       + ["", "To approve it: \(command)"],
                                   notes: ["(nothing was approved: check the device, then run that command, or add --latest --yes)"])
    }
}
