// Nodes and node requests for people (`clawpair nodes list/status/pending`): every string from the
// gateway is sanitized, absent values show as `-`. Colour is the caller's: each marked part goes
// through `paint`; tables are cells, laid out by the caller.
import ClawpairCore

extension NodeListNode {
    /// The columns of ``tableRow(nowMs:)``.
    public static let tableHeader = ["NAME", "NODE", "PLATFORM", "STATE", "IP", "STATUS"]

    /// One table row: name, short id, platform, approval state, address, and `connected`, else
    /// `offline` with how long ago it was last seen (at `nowMs`), as ``statusLines(nowMs:paint:)``
    /// says it: an age under a column called CONNECTED read as a connection.
    public func tableRow(nowMs: Int64) -> [String] {
        let seen = FieldText.age(lastSeenAtMs, now: nowMs)
        return [FieldText.field(displayName, max: 32), FieldText.shortId(nodeId), FieldText.field(platform, max: 16),
                FieldText.field(approvalState, max: 20), FieldText.field(remoteIp, max: 46),
                connected ? "connected" : seen == "-" ? "offline" : "offline, seen \(seen)"]
    }

    /// The node in full: `● name  connected` (``TextRole/good``; `○ … offline` ``TextRole/dim``
    /// when not), then id, platform, versions, client, capabilities, commands, approval state and
    /// when it connected or was last seen, with its address (ages at `nowMs`; empty rows left out).
    public func statusLines(nowMs: Int64, paint: (TextRole, String) -> String = { $1 }) -> [String] {
        let name = FieldText.field(displayName, max: 48)
        let marker = connected ? paint(.good, "●") : paint(.dim, "○")
        var versions: [String] = []
        for (value, label) in [(version, "version"), (coreVersion, "core"), (uiVersion, "ui")] {
            if let value, !value.isEmpty { versions.append("\(label) \(TerminalText.sanitize(value, maxScalars: 32))") }
        }
        var seen = connected ? "connected " + FieldText.age(connectedAtMs, now: nowMs)
            : "last seen " + FieldText.age(lastSeenAtMs, now: nowMs)
        if seen.hasSuffix(" -") { seen = connected ? "connected" : "never seen" }
        let rows: [(String, String)] = [
            ("id", FieldText.field(nodeId, max: 80)),
            ("platform", [FieldText.field(platform), FieldText.field(deviceFamily)].filter { $0 != "-" }.joined(separator: " · ")),
            ("versions", versions.isEmpty ? "-" : versions.joined(separator: " · ")),
            ("client", FieldText.field(clientId) + " / " + FieldText.field(clientMode)),
            ("caps", ScopeList.summary(caps, maxScalars: 300)),
            ("commands", ScopeList.summary(commands, maxScalars: 300)),
            ("state", FieldText.field(approvalState) + (paired ? " · paired" : "")
                + (pendingRequestId.map { " · pending request \(TerminalText.sanitize($0, maxScalars: 64))" } ?? "")),
            ("seen", seen + (remoteIp.map { " · \(TerminalText.sanitize($0, maxScalars: 46))" } ?? "")),
        ]
        let title = "\(marker) \(paint(.bold, name == "-" ? "(unnamed)" : name))  \(connected ? "connected" : "offline")"
        return [title] + rows.filter { !$0.1.isEmpty }.map { "    " + paint(.dim, FieldText.label($0.0, width: 10)) + $0.1 }
    }
}

extension NodeListNode {
    /// Each node's ``statusLines(nowMs:paint:)``, a blank line between two.
    public static func statusLines(_ nodes: [NodeListNode], nowMs: Int64, paint: (TextRole, String) -> String = { $1 }) -> [String] {
        nodes.enumerated().flatMap { index, node in (index > 0 ? [""] : []) + node.statusLines(nowMs: nowMs, paint: paint) }
    }
}

extension NodePendingApproval {
    /// The columns of ``tableRow(nowMs:)``.
    public static let tableHeader = ["REQUEST", "STEP", "NODE", "NAME", "PLATFORM", "COMMANDS", "IP", "AGE"]

    /// One table row: request id, step (`1 device` or `2 commands`), node id, name, platform,
    /// commands, address and the request's age at `nowMs`.
    public func tableRow(nowMs: Int64) -> [String] {
        [FieldText.field(requestId, max: 64), step == .devicePairing ? "1 device" : "2 commands",
         FieldText.field(nodeId, max: 40), FieldText.field(displayName, max: 32),
         FieldText.field(platform, max: 32), FieldText.list(commands),
         FieldText.field(remoteIp, max: 46), FieldText.age(ts, now: nowMs)]
    }
}

extension NodeApprovalOutcome {
    /// What was done, in one sentence naming the step: `Approved the command surface of node NAME
    /// (node request ID, step 2).`, or for the device pairing step `Approved the device pairing of
    /// node NAME (request ID, step 1 of 2).` (`Rejected` unless `approved`).
    public func summary(approved: Bool) -> String {
        let name = TerminalText.sanitize(nodeName, maxScalars: 64), id = TerminalText.sanitize(request.requestId, maxScalars: 64)
        let verb = approved ? "Approved" : "Rejected"
        switch request.step {
        case .commandSurface: return "\(verb) the command surface of node \(name) (node request \(id), step 2)."
        case .devicePairing: return "\(verb) the device pairing of node \(name) (request \(id), step 1 of 2)."
        }
    }
}
