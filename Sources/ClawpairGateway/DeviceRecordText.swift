// Device pairing records for people: the rows of `devices list`, a request's details, the
// one-line forms `devices watch` and `devices approve` print. Every string a gateway sent is
// sanitized and cut (FieldText); absent values read `-`. No line names a command: what to
// run next is the caller's wording.

import ClawpairCore

extension PendingRequest {
    /// Its role, else its roles: `node`, `operator,node`.
    var roleText: String {
        self.role != nil ? FieldText.field(self.role, max: 16) : FieldText.list(self.roles, max: 24)
    }

    /// `repair`, `silent`, and `supersedes ID` when `supersedes` is given.
    func flags(supersedes: String? = nil) -> [String] {
        var flags: [String] = []
        if isRepair { flags.append("repair") }
        if silent { flags.append("silent") }
        if let supersedes { flags.append("supersedes \(TerminalText.sanitize(supersedes, maxScalars: 64))") }
        return flags
    }

    /// The request as label/value rows: request, device, name, platform, client, role, scopes,
    /// address, age at `now` (epoch ms) and whether it is a repair.
    public func details(now: Int64) -> [(label: String, value: String)] {
        [
            ("Request", FieldText.field(requestId, max: 64)),
            ("Device", FieldText.field(deviceId, max: 64)),
            ("Name", FieldText.field(self.displayName)),
            ("Platform", FieldText.field(self.platform)),
            ("Client", FieldText.field(self.clientId) + " / " + FieldText.field(self.clientMode)),
            ("Role", self.role != nil ? FieldText.field(self.role) : FieldText.list(self.roles)),
            ("Scopes", ScopeList.summary(self.scopes ?? [], maxScalars: 200)),
            ("Address", FieldText.field(self.remoteIp, max: 46)),
            ("Requested", FieldText.age(ts, now: now)),
            ("Repair", isRepair ? "yes (already paired; asks again)" : "no"),
        ]
    }

    /// `request <id>  <name> (<device>)  <role>  <scopes>  from <ip>  <age>  [flags]`, as a
    /// live event: the age is never negative (a request stamped after `now`, by a gateway clock
    /// ahead of ours, is `0ms` old), and `supersedes` is the request id it replaced.
    public func eventLine(supersedes: String?, now: Int64) -> String {
        let marks = flags(supersedes: supersedes)
        let age = FieldText.age(ts, now: max(now, ts ?? 0))
        return "request \(FieldText.field(requestId, max: 64))  \(FieldText.field(self.displayName, max: 32)) "
            + "(\(FieldText.shortId(deviceId)))  \(roleText)  \(ScopeList.summary(self.scopes ?? []))  from "
            + "\(FieldText.field(self.remoteIp, max: 46))  \(age)" + (marks.isEmpty ? "" : "  [\(marks.joined(separator: ", "))]")
    }
}

extension DevicePairingList {
    /// The columns of ``pendingRows(now:)``.
    public static let pendingColumns = ["REQUEST", "DEVICE", "NAME", "ROLE", "SCOPES", "IP", "AGE", "FLAGS"]
    /// The columns of ``pairedRows(now:)``.
    public static let pairedColumns = ["DEVICE", "NAME", "ROLES", "SCOPES", "IP", "APPROVED", "SEEN"]

    /// One row per pending request, newest first (``sortedPending``), ages at `now` (epoch ms).
    public func pendingRows(now: Int64) -> [[String]] {
        sortedPending.map { request in
            let marks = request.flags()
            return [FieldText.field(request.requestId, max: 64), FieldText.shortId(request.deviceId),
                    FieldText.field(request.displayName, max: 32), request.roleText, ScopeList.summary(request.scopes ?? []),
                    FieldText.field(request.remoteIp, max: 46), FieldText.age(request.ts, now: now),
                    marks.isEmpty ? "-" : marks.joined(separator: ",")]
        }
    }

    /// One row per paired device, most recently approved first (``sortedPaired``): its label
    /// (else its name), roles, scopes, address, approval age and `now` when connected, else
    /// when it was last seen.
    public func pairedRows(now: Int64) -> [[String]] {
        sortedPaired.map { device in
            let roles = device.roles != nil ? FieldText.list(device.roles, max: 24) : FieldText.field(device.role, max: 16)
            return [FieldText.shortId(device.deviceId), FieldText.field(device.operatorLabel ?? device.displayName, max: 32),
                    roles, ScopeList.summary(device.scopes ?? []), FieldText.field(device.remoteIp, max: 46),
                    FieldText.age(device.approvedAtMs, now: now),
                    device.connected ? "now" : FieldText.age(device.lastSeenAtMs, now: now)]
        }
    }
}

/// What acting on a named device's current request did (``DeviceApprovalOutcome``,
/// ``DeviceRejectionOutcome``): the gateway's answer and the lines that tell a person.
public protocol DeviceRequestOutcome: Sendable {
    /// The request the query resolved to first.
    var resolved: ResolvedDeviceRequest { get }
    /// The request acted on (a newer one when the first was superseded meanwhile).
    var current: PendingRequest { get }
    /// Request ids of the device that were superseded before the action took.
    var superseded: [String] { get }
    /// The gateway's answer as JSON, tokens redacted.
    var json: JSONValue { get }
    /// One line for people: what was done to which device.
    var summary: String { get }
    /// `approving` or `rejecting`, for the notes.
    static var verb: String { get }
}

extension DeviceRequestOutcome {
    /// What `query` resolved to and each supersession followed (``ResolvedDeviceRequest/notes(query:superseded:current:verb:)``).
    public func notes(query: String) -> [String] {
        resolved.notes(query: query, superseded: superseded, current: current.requestId, verb: Self.verb)
    }
}

extension DeviceApprovalOutcome: DeviceRequestOutcome {
    /// The request as approved.
    public var current: PendingRequest { approved }
    /// The approval as JSON.
    public var json: JSONValue { approval.json }
    /// `approving`, for messages.
    public static var verb: String { "approving" }

    /// `Approved Pixel 8 (aaaaaaaaaaaa…) as operator with scopes operator.read,operator.write.`
    public var summary: String {
        let device = approval.device
        let name = FieldText.field(device?.operatorLabel ?? device?.displayName ?? approved.displayName)
        var line = "Approved \(name == "-" ? "device" : name) (\(FieldText.shortId(device?.deviceId ?? approved.deviceId)))"
        let roles = self.roles.map { TerminalText.sanitize($0, maxScalars: 24) }
        if !roles.isEmpty {
            line += " as " + roles.joined(separator: ",")
            line += scopes.isEmpty ? " with no scopes" : " with scopes " + ScopeList.summary(scopes, maxScalars: 200)
        }
        return line + "."
    }
}

extension DeviceRejectionOutcome: DeviceRequestOutcome {
    /// The request as rejected.
    public var current: PendingRequest { rejected }
    /// The rejection as JSON.
    public var json: JSONValue { rejection.json }
    /// `rejecting`, for messages.
    public static var verb: String { "rejecting" }

    /// `Rejected request <id> from device <short id>.`
    public var summary: String {
        "Rejected request \(TerminalText.sanitize(rejected.requestId, maxScalars: 64)) from device "
            + "\(FieldText.shortId(rejected.deviceId))."
    }
}

extension DeviceClearing {
    /// `Removed 2 devices, rejected 1 pending request.`; the rejections only when
    /// `rejectingPending` (they were asked for).
    public func summary(rejectingPending: Bool) -> String {
        "Removed \(removedDevices.count) device\(removedDevices.count == 1 ? "" : "s")"
            + (rejectingPending ? ", rejected \(rejectedPending.count) pending request"
               + (rejectedPending.count == 1 ? "" : "s") : "") + "."
    }
}

extension DeviceRequestLookupError: ClawpairError {
    /// What did not match, the query sanitized; candidates by request id, name and short device id.
    public var message: String {
        switch self {
        case .emptyQuery:
            return "give a device id, request id, prefix or name"
        case .ambiguous(let query, let candidates):
            let shown = candidates.prefix(8).map { request in
                "\(TerminalText.sanitize(request.requestId, maxScalars: 64)) (\(FieldText.field(request.displayName, max: 32)), "
                    + "device \(FieldText.shortId(request.deviceId)))"
            }
            return "\(TerminalText.sanitize(query, maxScalars: 80)) matches \(candidates.count) devices' requests: "
                + shown.joined(separator: "; ")
        case .alreadyPaired(let query, let device):
            return "\(TerminalText.sanitize(query, maxScalars: 80)) is a paired device's id or name, with no pending request "
                + "(device \(FieldText.shortId(device.deviceId)))"
        case .notFound(let query):
            return "no pending pairing request matches \(TerminalText.sanitize(query, maxScalars: 80))"
        }
    }
}

/// Why ``DevicePairingList/pairedDevice(named:)`` found no single device.
public enum PairedDeviceLookupError: ClawpairError, Equatable {
    /// No paired device has that id, name, label or id prefix.
    case notFound(query: String)
    /// Several paired devices match.
    case ambiguous(query: String, candidates: [PairedDevice])

    /// What did not match, the query sanitized; up to 8 candidates by short id and name.
    public var message: String {
        switch self {
        case .notFound(let query):
            return "no paired device matches \(TerminalText.sanitize(query, maxScalars: 80))"
        case .ambiguous(let query, let candidates):
            let names = candidates.prefix(8).map {
                "\(FieldText.shortId($0.deviceId)) (\(FieldText.field($0.operatorLabel ?? $0.displayName, max: 32)))"
            }
            return "\(TerminalText.sanitize(query, maxScalars: 80)) matches \(candidates.count) paired devices: "
                + names.joined(separator: "; ")
        }
    }
}

extension DevicePairingList {
    /// The one paired device `query` names (``pairedDevices(matching:)``: id, label or name, or
    /// a unique id prefix).
    public func pairedDevice(named query: String) throws(PairedDeviceLookupError) -> PairedDevice {
        let matches = pairedDevices(matching: query)
        if matches.count == 1 { return matches[0] }
        throw matches.isEmpty ? .notFound(query: query) : .ambiguous(query: query, candidates: matches)
    }
}

extension PairingResult {
    /// `Paired with NAME (URL) as ROLE with scopes S.` and `Stored node token(s) in DIRECTORY
    /// (gateway id ID).`; `registryDirectory` is where the registry keeps the record.
    public func summary(registryDirectory: String) -> [String] {
        ["Paired with \(TerminalText.sanitize(gateway.name, maxScalars: 80)) (\(url)) as \(token.role)"
            + (token.scopes.isEmpty ? "" : " with scopes \(token.scopes.joined(separator: ","))") + ".",
         "Stored \(tokens.map(\.role).joined(separator: " and ")) token(s) in \(registryDirectory) (gateway id \(gateway.id))."]
            + recordNotes
    }

    /// Which record was written and why, and what stayed the default: an existing record only
    /// when the gateway proved it is that record's gateway; other records listing the same URL
    /// are named, unchanged.
    public var recordNotes: [String] {
        let name = TerminalText.sanitize(gateway.name, maxScalars: 80)
        var lines: [String] = []
        if let identityProof {
            lines.append("Updated the existing record '\(name)' (\(identityProof.summary)).")
        } else {
            lines.append("Made a new record '\(name)'.")
        }
        for other in sharingRoute {
            lines.append("The record '\(TerminalText.sanitize(other, maxScalars: 80))' also lists \(TerminalText.sanitize(url, maxScalars: 200)) but the "
                         + "gateway there did not prove to be its gateway, so it was left unchanged.")
        }
        return lines
    }
}

extension PairingProgress {
    /// What the person pairing is told at this step (none for the ends, which the result or the
    /// error reports): where the gateway answers, the pending request and how an operator
    /// approves it, the time waited. `approveCommand` is the caller's command that approves a
    /// request id (nil: the gateway gave none); OpenClaw's own command is named beside it.
    public func notes(approveCommand: (String?) -> String) -> [String] {
        switch self {
        case .reachable(let url):
            return ["Gateway answers at \(url)"]
        case .pending(let pairing), .superseded(let pairing):
            let id = pairing.requestId.map { TerminalText.sanitize($0, maxScalars: 80) }
            return ["Waiting for approval of pairing request \(id ?? "(id not given)").",
                    "On the gateway host run: \(approveCommand(pairing.requestId))",
                    "  (or: openclaw devices approve \(id ?? "<requestId>"))"]
        case .handoffTokensIgnored(let count):
            return ["Ignored \(count) hand-off token(s) issued over plaintext to a non-local host."]
        case .stillWaiting(let elapsed, let id):
            let waited = DurationText.describe(milliseconds: GatewayPairing.milliseconds(elapsed))
            return ["Still waiting (\(waited)) for approval of pairing "
                    + "request \(GatewayError.describe(requestId: id)); on the gateway host run: \(approveCommand(id))"]
        case .approved, .rejected, .expired, .waiting:
            return []
        }
    }
}

extension JoinCode {
    /// The advice for a code only this machine can use (``loopbackOnly``); nil otherwise.
    public var loopbackWarning: String? {
        guard loopbackOnly else { return nil }
        return "the gateway is only bound to loopback: this join URL works only on this machine or through a tunnel; "
            + "set gateway.publicOrigin to the gateway's public HTTPS origin so other machines can join"
    }
}

extension TokenRotation {
    /// `Rotated the ROLE token of DEVICE (scopes S).`: `deviceId` and `role` as asked (the answer
    /// may omit them).
    public func summary(deviceId: String, role: String) -> String {
        "Rotated the \(TerminalText.sanitize(role, maxScalars: 16)) token of \(FieldText.shortId(deviceId)) "
            + "(scopes \(FieldText.list(scopes, max: 200)))."
    }

    /// What happens next when the answer does not carry the new token. Upstream hands a rotated
    /// token back only to the device rotating its own (`src/gateway/server-methods/devices.ts`,
    /// `tokenDelivery: "withheld-cross-device"` otherwise): the token is not kept for the device
    /// and not sent on its next connect, and its stored token no longer matches, so that connect
    /// is refused (`AUTH_DEVICE_TOKEN_MISMATCH`) until the device pairs again. Older gateways omit
    /// `tokenDelivery`.
    public var withheldNote: String {
        switch tokenDelivery {
        case "withheld-cross-device":
            return "The gateway withheld the new token (withheld-cross-device): it is not sent to the device, whose stored "
                + "token no longer works, so its next connect is refused; pair that device again with a new setup code."
        case nil:
            return "The gateway did not return the new token (an older gateway, which does not say where it went; upstream added "
                + "tokenDelivery in \(GatewayMethodSupport.addedIn(GatewayMethodSupport.tokenDelivery) ?? "a newer OpenClaw")): the "
                + "device's stored token no longer works; pair that device again with a new setup code."
        case let other?:
            return "The gateway did not return the new token (tokenDelivery \(FieldText.field(other))): the device's stored "
                + "token no longer works; pair that device again with a new setup code."
        }
    }
}

extension TokenRevocation {
    /// `Revoked the ROLE token of DEVICE.`: `deviceId` and `role` as asked (the answer may omit them).
    public func summary(deviceId: String, role: String) -> String {
        "Revoked the \(TerminalText.sanitize(role, maxScalars: 16)) token of \(FieldText.shortId(deviceId))."
    }
}

extension PairedDevice {
    /// The longest label `device.pair.rename` takes, in characters.
    public static let maxLabelLength = 64

    /// `text` as a label the gateway takes: without surrounding whitespace, 1 to
    /// ``maxLabelLength`` characters; nil otherwise.
    public static func label(_ text: String) -> String? {
        let label = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        return (1...maxLabelLength).contains(label.count) ? label : nil
    }
}
