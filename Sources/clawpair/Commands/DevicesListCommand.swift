import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices list`: pending requests and paired devices.
struct DevicesListCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "Show pending pairing requests and paired devices",
        discussion: [
            "Calls device.pair.list. Pending requests come newest first, with the request id to approve, the device, "
                + "the role and scopes it asks for, its address and age, and flags: repair (an already paired device "
                + "asks again: a new key, role or scopes) and silent (the gateway will approve it itself). Paired "
                + "devices come most recently approved first, with their roles, scopes, address, when they were last "
                + "seen and whether they are connected now. Token values are never shown.",
        ],
        options: GatewayCLI.connectionOptions,
        examples: [
            Example("clawpair devices list", "Pending requests and paired devices of the local gateway"),
            Example("clawpair devices list --json | jq -r '.pending[0].requestId'", "The newest pending request id"),
        ],
        sections: GatewayCLI.sections(json: "With --json, the RPC's payload exactly: {\"pending\": [PendingRequest...], \"paired\": [PairedDevice...]} "
                    + "with the gateway's field names (requestId, deviceId, publicKey, displayName, platform, clientId, "
                    + "role, roles, scopes, remoteIp, silent, isRepair, ts; paired entries: tokens (a summary without "
                    + "values), approvedAtMs, lastSeenAtMs, connected, ...). On failure: {\"ok\": false, \"error\": {...}}.",),
        runner: DevicesListCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let listing = try session.listDevices()
            if context.globals.json {
                context.printJSON(listing.json)
                return .success
            }
            Self.printHuman(listing, context: context)
            return .success
        }
    }

    static func printHuman(_ listing: DevicePairingList, context: CommandContext) {
        let now = context.nowMs
        let pending = listing.sortedPending
        let paired = listing.sortedPaired
        context.print(context.style.bold("Pending") + " (\(pending.count))")
        if pending.isEmpty {
            context.print("  none")
        } else {
            let rows = pending.map { request -> [String] in
                var flags: [String] = []
                if request.isRepair { flags.append("repair") }
                if request.silent { flags.append("silent") }
                let role = request.role != nil ? GatewayOutput.field(request.role, max: 16) : GatewayOutput.list(request.roles, max: 24)
                return [GatewayOutput.field(request.requestId, max: 64), GatewayOutput.shortId(request.deviceId),
                        GatewayOutput.field(request.displayName, max: 32), role, ScopeList.summary(request.scopes ?? []),
                        GatewayOutput.field(request.remoteIp, max: 46), GatewayOutput.age(request.ts, now: now),
                        flags.isEmpty ? "-" : flags.joined(separator: ",")]
            }
            for line in GatewayOutput.table(["REQUEST", "DEVICE", "NAME", "ROLE", "SCOPES", "IP", "AGE", "FLAGS"], rows, style: context.style) {
                context.print(line)
            }
        }
        context.print("")
        context.print(context.style.bold("Paired") + " (\(paired.count))")
        if paired.isEmpty {
            context.print("  none")
        } else {
            let rows = paired.map { device -> [String] in
                let name = device.operatorLabel != nil ? GatewayOutput.field(device.operatorLabel, max: 32)
                    : GatewayOutput.field(device.displayName, max: 32)
                let roles = device.roles != nil ? GatewayOutput.list(device.roles, max: 24) : GatewayOutput.field(device.role, max: 16)
                return [GatewayOutput.shortId(device.deviceId), name, roles, ScopeList.summary(device.scopes ?? []),
                        GatewayOutput.field(device.remoteIp, max: 46), GatewayOutput.age(device.approvedAtMs, now: now),
                        device.connected ? "now" : GatewayOutput.age(device.lastSeenAtMs, now: now)]
            }
            for line in GatewayOutput.table(["DEVICE", "NAME", "ROLES", "SCOPES", "IP", "APPROVED", "SEEN"], rows, style: context.style) {
                context.print(line)
            }
        }
        if let newest = pending.first?.requestId {
            context.note("")
            context.note("Approve a request: clawpair devices approve \(TerminalText.sanitize(newest, maxScalars: 64))")
        }
    }
}
