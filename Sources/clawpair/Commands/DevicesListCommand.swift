import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair devices list`: pending requests and paired devices.
struct DevicesListCommand: ArgumentsCommand {
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
        sections: GatewayCLI.sections,
        runner: DevicesListCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let listing = try session.listDevices()
            let tables = Self.section("Pending", DevicePairingList.pendingColumns, listing.pendingRows(now: context.nowMs), context)
                + [""] + Self.section("Paired", DevicePairingList.pairedColumns, listing.pairedRows(now: context.nowMs), context)
            let next = listing.sortedPending.first.map { newest in
                ["", "Approve a request: clawpair devices approve \(TerminalText.sanitize(newest.requestId, maxScalars: 64))"]
            }
            return context.printResult(listing.json, lines: tables, notes: next ?? [])
        }
    }

    /// `Pending (2)` in bold and the table, or `none`.
    private static func section(_ title: String, _ columns: [String], _ rows: [[String]], _ context: CommandContext) -> [String] {
        let table = rows.isEmpty ? ["  none"] : RecordText.table(columns, rows, style: context.style)
        return [context.style.bold(title) + " (\(rows.count))"] + table
    }
}
