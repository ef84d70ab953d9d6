import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices approve REQUEST_ID | --latest [--yes]`.
struct DevicesApproveCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "approve",
        abstract: "Approve a pending pairing request by its request id",
        discussion: [
            "Checks that the request is still pending (a device that reconnects with other access supersedes its "
                + "request with a new id), then calls device.pair.approve. Give the request id, not the device id: "
                + "when a device id is given, the error names the request id to use.",
            "--latest shows the newest pending request and the exact command that approves it, and approves "
                + "nothing; with --yes as well it approves that request. Review a request before approving it: an "
                + "approved device can act on the gateway with the role and scopes shown.",
        ],
        options: [
            .flag("latest", help: "Pick the newest pending request: show it, and approve it only with --yes."),
            .flag("yes", short: "y", help: "With --latest: approve it without asking."),
        ] + GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("request-id", help: "The pending request's id (from 'clawpair devices list' or the device's screen).",
                                 optional: true)],
        examples: [
            Example("clawpair devices approve 3f0c2d1e-8a7b-4c5d-9e6f-0a1b2c3d4e5f", "Approve one request"),
            Example("clawpair devices approve --latest", "Show the newest request and the command that approves it"),
        ],
        sections: GatewayCLI.sections(json: "With --json, device.pair.approve's payload: {\"requestId\", \"device\": PairedDevice} (redacted). With "
                    + "--latest and no --yes: {\"approved\": false, \"request\": PendingRequest, \"command\": \"...\"}.",),
        runner: DevicesApproveCommand.runner
    )

    let arguments: ParsedArguments
    let requestId: String?
    let latest: Bool
    let yes: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        requestId = arguments.positionals.first
        latest = arguments.flag("latest")
        yes = arguments.flag("yes")
        if latest && requestId != nil { throw UsageError("give a request id or --latest, not both") }
        if !latest && requestId == nil {
            throw UsageError("missing argument <request-id> for 'clawpair devices approve'",
                             hint: "'clawpair devices list' shows pending requests; --latest picks the newest")
        }
        if yes && !latest { throw UsageError("--yes goes with --latest", hint: "with an explicit request id no confirmation is needed") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let listing = try session.listDevices()
            let request: PendingRequest
            if latest {
                guard let newest = listing.newestPending else {
                    throw GeneralError("no pairing request is pending", hint: "the device shows a request id while it waits; "
                                       + "'clawpair devices list' shows paired devices too", status: .notFound)
                }
                request = newest
                guard yes else {
                    let command = "clawpair devices approve \(TerminalText.sanitize(newest.requestId, maxScalars: 64))"
                    if context.globals.json {
                        context.printJSON(.object([("approved", false), ("request", newest.json), ("command", .string(command))]))
                    } else {
                        Self.describe(newest, context: context)
                        context.print("")
                        context.print("To approve it: \(command)")
                        context.note("(nothing was approved: check the device, then run that command, or add --yes)")
                    }
                    return .success
                }
            } else {
                request = try DevicesCommand.requirePending(requestId!, in: listing, verb: "approve")
            }
            let approval = try session.approveDevice(requestId: request.requestId)
            if context.globals.json {
                context.printJSON(approval.json)
            } else {
                let device = approval.device
                let name = GatewayOutput.field(device?.displayName ?? request.displayName)
                let scopes = GatewayOutput.list(device?.scopes ?? request.scopes)
                context.print("Approved \(name == "-" ? "device" : name) (\(GatewayOutput.shortId(device?.deviceId ?? request.deviceId))) "
                              + "as \(GatewayOutput.field(device?.role ?? request.role))"
                              + (scopes == "-" ? " (no scopes)." : " with scopes \(scopes)."))
            }
            return .success
        }
    }

    static func describe(_ request: PendingRequest, context: CommandContext) {
        let rows: [(String, String)] = [
            ("Request", GatewayOutput.field(request.requestId, max: 64)),
            ("Device", GatewayOutput.field(request.deviceId, max: 64)),
            ("Name", GatewayOutput.field(request.displayName)),
            ("Platform", GatewayOutput.field(request.platform)),
            ("Client", GatewayOutput.field(request.clientId) + " / " + GatewayOutput.field(request.clientMode)),
            ("Role", request.role != nil ? GatewayOutput.field(request.role) : GatewayOutput.list(request.roles)),
            ("Scopes", GatewayOutput.list(request.scopes, max: 200)),
            ("Address", GatewayOutput.field(request.remoteIp, max: 46)),
            ("Requested", GatewayOutput.age(request.ts, now: context.nowMs)),
            ("Repair", request.isRepair ? "yes (already paired; asks again)" : "no"),
        ]
        for (label, value) in rows {
            context.print(IdentityCLI.row(label, value))
        }
    }
}
