// Approving a device without racing its retries (issue #15 §1). Upstream users keep hitting
// "unknown requestId": a device that reconnects with other access supersedes its pending
// request with a new id (`pairing-rpcs.md` §2; openclaw/openclaw `src/infra/device-pairing.ts`),
// so an id copied from `devices list` can be stale a moment later. Here an operator names the
// *device* — its id, a unique prefix of a request or device id as the tables show them
// (`3f0c2d1e8a7b…`), or its display name — and the session approves that device's request as
// it is at approval time, following a supersession once more if it happens in between.
//
// Checklist, adding a way to name a device: a case in `DeviceRequestMatch`, a step in
// `DevicePairingList.resolvePending(_:)` (before the looser ones), a test in
// Tests/ClawpairGatewayTests/DeviceApprovalTests.swift.

import ClawpairCore

/// How a name given by an operator matched a pending request.
public enum DeviceRequestMatch: String, Sendable, Equatable {
    /// The request id, whole.
    case requestId = "request id"
    /// The device id, whole: its current request.
    case deviceId = "device id"
    /// A unique prefix of a request id.
    case requestIdPrefix = "request id prefix"
    /// A unique prefix of a device id.
    case deviceIdPrefix = "device id prefix"
    /// The display name the device sent, or the label an operator gave it (case-insensitive).
    case name = "name"
}

/// A pending request found for what an operator typed.
public struct ResolvedDeviceRequest: Sendable, Equatable {
    /// The device's current pending request.
    public var request: PendingRequest
    /// How the query matched it.
    public var matchedBy: DeviceRequestMatch

    /// The request found, and how it matched what was asked for.
    public init(request: PendingRequest, matchedBy: DeviceRequestMatch) {
        self.request = request
        self.matchedBy = matchedBy
    }
}

extension ResolvedDeviceRequest {
    /// What the operator is told (sanitized): what `query` resolved to, unless it was the
    /// request id, and each superseded request followed to `current`; `verb` is e.g. "approving".
    public func notes(query: String, superseded: [String], current: String, verb: String) -> [String] {
        var lines: [String] = []
        if matchedBy != .requestId {
            lines.append("\(TerminalText.sanitize(query, maxScalars: 80)) (\(matchedBy.rawValue)) is request "
                         + TerminalText.sanitize(request.requestId, maxScalars: 64))
        }
        for old in superseded {
            lines.append("request \(TerminalText.sanitize(old, maxScalars: 64)) was superseded by the device's retry; "
                         + "\(verb) its current request \(TerminalText.sanitize(current, maxScalars: 64))")
        }
        return lines
    }
}

/// Why no single pending request matched.
public enum DeviceRequestLookupError: Error, Sendable, Equatable {
    /// Nothing was given.
    case emptyQuery
    /// Several devices' requests match; the candidates, newest first.
    case ambiguous(query: String, candidates: [PendingRequest])
    /// The query names a paired device that has no pending request.
    case alreadyPaired(query: String, device: PairedDevice)
    /// No pending request or paired device matches.
    case notFound(query: String)
}

extension PendingRequest {
    /// The order of ``DevicePairingList/sortedPending``: newer `ts` first, then request id.
    public static func newerFirst(_ a: PendingRequest, _ b: PendingRequest) -> Bool {
        let ta = a.ts ?? 0, tb = b.ts ?? 0
        return ta != tb ? ta > tb : a.requestId < b.requestId
    }
}

extension DevicePairingList {
    /// The shortest prefix accepted: shorter ones match too much by accident.
    public static let minimumPrefixLength = 4

    /// Pending requests newest first (by `ts`, then request id), whatever order the gateway sent.
    public var sortedPending: [PendingRequest] {
        pending.sorted(by: PendingRequest.newerFirst)
    }

    /// Paired devices most recently approved first (by `approvedAtMs`, then device id).
    public var sortedPaired: [PairedDevice] {
        paired.sorted { a, b in
            let ta = a.approvedAtMs ?? 0, tb = b.approvedAtMs ?? 0
            return ta != tb ? ta > tb : a.deviceId < b.deviceId
        }
    }

    /// The newest pending request of the device `deviceId`.
    public func currentRequest(deviceId: String) -> PendingRequest? {
        sortedPending.first { $0.deviceId == deviceId }
    }

    /// Resolves what an operator typed to one device's current pending request, trying in
    /// order: a whole request id, a whole device id, a unique prefix of request or device ids
    /// (at least ``minimumPrefixLength`` characters; a trailing `…` as the tables print is
    /// ignored; case-insensitive), then a display name or operator label (case-insensitive).
    /// Several requests of one device count as one match: its newest.
    public func resolvePending(_ query: String) throws(DeviceRequestLookupError) -> ResolvedDeviceRequest {
        var text = query.trimmingWhitespace
        while text.hasSuffix("…") { text.removeLast() }
        while text.hasSuffix("...") { text.removeLast(3) }
        guard !text.isEmpty else { throw .emptyQuery }
        if let exact = pending.first(where: { $0.requestId == text }) {
            return ResolvedDeviceRequest(request: exact, matchedBy: .requestId)
        }
        if let current = currentRequest(deviceId: text) {
            return ResolvedDeviceRequest(request: current, matchedBy: .deviceId)
        }
        if let device = paired(deviceId: text) { throw .alreadyPaired(query: query, device: device) }

        let lower = text.lowercased()
        if text.count >= Self.minimumPrefixLength {
            let byRequest = sortedPending.filter { $0.requestId.lowercased().hasPrefix(lower) }
            let byDevice = sortedPending.filter { $0.deviceId.lowercased().hasPrefix(lower) }
            let devices = Set((byRequest + byDevice).map(\.deviceId))
            if devices.count > 1 {
                throw .ambiguous(query: query, candidates: newestPerDevice(byRequest + byDevice))
            }
            if let only = devices.first, let current = currentRequest(deviceId: only) {
                return ResolvedDeviceRequest(request: current, matchedBy: byRequest.isEmpty ? .deviceIdPrefix : .requestIdPrefix)
            }
            let pairedMatches = paired.filter { $0.deviceId.lowercased().hasPrefix(lower) }
            if pairedMatches.count == 1 { throw .alreadyPaired(query: query, device: pairedMatches[0]) }
        }

        // Names: what the request says, or what the paired record is called.
        let named = sortedPending.filter { request in
            if request.displayName?.lowercased() == lower { return true }
            guard let device = paired(deviceId: request.deviceId) else { return false }
            return device.operatorLabel?.lowercased() == lower || device.displayName?.lowercased() == lower
        }
        let namedDevices = Set(named.map(\.deviceId))
        if namedDevices.count > 1 { throw .ambiguous(query: query, candidates: newestPerDevice(named)) }
        if let only = namedDevices.first, let current = currentRequest(deviceId: only) {
            return ResolvedDeviceRequest(request: current, matchedBy: .name)
        }
        let pairedNamed = paired.filter { $0.operatorLabel?.lowercased() == lower || $0.displayName?.lowercased() == lower }
        if pairedNamed.count == 1 { throw .alreadyPaired(query: query, device: pairedNamed[0]) }
        throw .notFound(query: query)
    }

    /// Paired devices that `query` names: the whole id, else a label or display name
    /// (case-insensitive), else a unique id prefix of at least ``minimumPrefixLength``
    /// characters. Empty when none; several when ambiguous.
    public func pairedDevices(matching query: String) -> [PairedDevice] {
        let text = query.trimmingWhitespace
        if let exact = paired(deviceId: text) { return [exact] }
        let lower = text.lowercased()
        let named = paired.filter { $0.operatorLabel?.lowercased() == lower || $0.displayName?.lowercased() == lower }
        if !named.isEmpty { return named }
        guard text.count >= Self.minimumPrefixLength else { return [] }
        return paired.filter { $0.deviceId.lowercased().hasPrefix(lower) }
    }

    /// One request per device (its newest), newest first.
    private func newestPerDevice(_ requests: [PendingRequest]) -> [PendingRequest] {
        var seen = Set<String>()
        var result: [PendingRequest] = []
        for request in requests.sorted(by: { ($0.ts ?? 0) > ($1.ts ?? 0) }) where seen.insert(request.deviceId).inserted {
            result.append(request)
        }
        return result
    }
}

/// What ``OperatorSession/approveCurrentRequest(_:maxAttempts:)`` did.
public struct DeviceApprovalOutcome: Sendable, Equatable {
    /// The request the query resolved to first.
    public var resolved: ResolvedDeviceRequest
    /// The request actually approved: a newer one of the same device when the first was
    /// superseded meanwhile.
    public var approved: PendingRequest
    /// The gateway's answer.
    public var approval: DeviceApproval
    /// Request ids of the device that were superseded between listing and approving.
    public var superseded: [String]

    /// The approved device's role: from the result's device, else from the request.
    public var role: String? {
        approval.device?.role ?? approval.device?.roles?.first ?? approved.role ?? approved.roles?.first
    }

    /// Its roles, when it holds several.
    public var roles: [String] {
        if let roles = approval.device?.roles, !roles.isEmpty { return roles }
        if let role = approval.device?.role { return [role] }
        if let roles = approved.roles, !roles.isEmpty { return roles }
        return approved.role.map { [$0] } ?? []
    }

    /// Its scopes: from the result's device, else what the request asked for.
    public var scopes: [String] {
        approval.device?.scopes ?? approved.scopes ?? []
    }
}

extension GatewayError {
    /// The gateway answered that the request id is not (or no longer) pending.
    public var isUnknownRequestId: Bool {
        guard case .rpcFailed(_, let shape) = self else { return false }
        return shape.message.lowercased().contains("unknown requestid")
    }
}

/// What ``OperatorSession/rejectCurrentRequest(_:maxAttempts:)`` did.
public struct DeviceRejectionOutcome: Sendable, Equatable {
    /// The request the query resolved to first.
    public var resolved: ResolvedDeviceRequest
    /// The request actually rejected: a newer one of the same device when the first was
    /// superseded meanwhile.
    public var rejected: PendingRequest
    /// The gateway's answer.
    public var rejection: DeviceRejection
    /// Request ids of the device that were superseded between listing and rejecting.
    public var superseded: [String]
}

/// An approval refused because the request would grant more than the operator was shown
/// (issue #25.3: a device seen asking to be a node re-asked as an operator and was approved as
/// `node,operator` with five operator scopes). What was shown: the roles and scopes of the
/// request named by its exact id, else of the device as already paired, else of the request the
/// name resolved to; a request followed after that (the device's newer one) may ask for no more.
public struct DeviceApprovalUpgrade: Error, Sendable, Equatable {
    /// The request that was not approved.
    public var request: PendingRequest
    /// The roles the operator was shown.
    public var shownRoles: [String]
    /// The scopes the operator was shown.
    public var shownScopes: [String]
    /// The roles the request asks for beyond them.
    public var addedRoles: [String]
    /// The scopes the request asks for beyond them.
    public var addedScopes: [String]

    /// The roles and scopes added, for people (sanitized): `role operator; scopes operator.admin,…`.
    public var difference: String {
        var parts: [String] = []
        if !addedRoles.isEmpty { parts.append("role\(addedRoles.count > 1 ? "s" : "") \(ScopeList.summary(addedRoles))") }
        if !addedScopes.isEmpty { parts.append("scope\(addedScopes.count > 1 ? "s" : "") \(ScopeList.summary(addedScopes, maxScalars: 200))") }
        return parts.joined(separator: "; ")
    }
}

extension DeviceApprovalUpgrade: ClawpairError {
    /// `approval-upgrade`.
    public var code: String { "approval-upgrade" }
    /// What was not approved and what it adds.
    public var message: String {
        "request \(TerminalText.sanitize(request.requestId, maxScalars: 64)) asks for more than was shown (shown: "
            + "\(shownRoles.isEmpty ? "no role" : ScopeList.summary(shownRoles)), scopes \(ScopeList.summary(shownScopes, maxScalars: 200))); "
            + "it adds \(difference); nothing was approved"
    }
    /// None here: the command line names the command that approves exactly that request.
    public var hint: String? { nil }
}

extension PendingRequest {
    /// The roles this request asks for (`roles`, else `role`).
    public var askedRoles: [String] {
        if let roles = details.roles, !roles.isEmpty { return roles }
        return details.role.map { [$0] } ?? []
    }

    /// The roles and scopes it asks for beyond `roles` and `scopes`.
    public func asksBeyond(roles: [String], scopes: [String]) -> (roles: [String], scopes: [String]) {
        let knownRoles = Set(roles), knownScopes = Set(scopes)
        var addedRoles: [String] = []
        for role in askedRoles where !knownRoles.contains(role) && !addedRoles.contains(role) { addedRoles.append(role) }
        var addedScopes: [String] = []
        for scope in details.scopes ?? [] where !knownScopes.contains(scope) && !addedScopes.contains(scope) { addedScopes.append(scope) }
        return (addedRoles, addedScopes)
    }
}

extension PairedDevice {
    /// The roles and scopes it holds now (its record and its tokens).
    public var grantedRolesAndScopes: (roles: [String], scopes: [String]) {
        var roles = details.roles ?? []
        if let role = details.role, !roles.contains(role) { roles.append(role) }
        var scopes = details.scopes ?? []
        for token in tokens {
            if !roles.contains(token.role) { roles.append(token.role) }
            for scope in token.scopes where !scopes.contains(scope) { scopes.append(scope) }
        }
        return (roles, scopes)
    }
}

extension OperatorSession {
    /// Lists, resolves `query` to the named device's current request, and approves it. When
    /// the request is superseded between the list and the approval (the gateway answers
    /// "unknown requestId"), lists again and approves that device's newer request, up to
    /// `maxAttempts` approvals in all. Unless `allowUpgrade`, a request that asks for more roles
    /// or scopes than was shown is not approved: ``DeviceApprovalUpgrade`` (shown: the request
    /// named by its exact id, else the device as paired, else the request the name resolved to).
    public func approveCurrentRequest(_ query: String, maxAttempts: Int = 3, allowUpgrade: Bool = false) throws -> DeviceApprovalOutcome {
        var shown: (roles: [String], scopes: [String])?
        let (resolved, request, approval, superseded) = try actOnCurrentRequest(query, maxAttempts: maxAttempts, check: { list, resolved, request in
            if shown == nil {
                let first = resolved.request
                if resolved.matchedBy != .requestId, let paired = list.paired(deviceId: first.deviceId) {
                    shown = paired.grantedRolesAndScopes
                } else {
                    shown = (first.askedRoles, first.details.scopes ?? [])
                }
            }
            guard !allowUpgrade, let baseline = shown else { return }
            let added = request.asksBeyond(roles: baseline.roles, scopes: baseline.scopes)
            if !added.roles.isEmpty || !added.scopes.isEmpty {
                throw DeviceApprovalUpgrade(request: request, shownRoles: baseline.roles, shownScopes: baseline.scopes,
                                            addedRoles: added.roles, addedScopes: added.scopes)
            }
        }) { (id: String) throws(GatewayError) in try approveDevice(requestId: id) }
        return DeviceApprovalOutcome(resolved: resolved, approved: request, approval: approval, superseded: superseded)
    }

    /// As ``approveCurrentRequest(_:maxAttempts:)``, rejecting: the same names resolve to the
    /// same device's current request, and a supersession in between is followed.
    public func rejectCurrentRequest(_ query: String, maxAttempts: Int = 3) throws -> DeviceRejectionOutcome {
        let (resolved, request, rejection, superseded) = try actOnCurrentRequest(query, maxAttempts: maxAttempts) {
            (id: String) throws(GatewayError) in try rejectDevice(requestId: id)
        }
        return DeviceRejectionOutcome(resolved: resolved, rejected: request, rejection: rejection, superseded: superseded)
    }

    /// Resolves `query`, then calls `act` with the request id, following the device's newer
    /// request while the gateway answers "unknown requestId".
    private func actOnCurrentRequest<Answer>(
        _ query: String, maxAttempts: Int,
        check: (DevicePairingList, ResolvedDeviceRequest, PendingRequest) throws -> Void = { _, _, _ in },
        _ act: (String) throws(GatewayError) -> Answer
    ) throws -> (ResolvedDeviceRequest, PendingRequest, Answer, [String]) {
        var list = try listDevices()
        let resolved = try list.resolvePending(query)
        var request = resolved.request
        var superseded: [String] = []
        for attempt in 1...max(1, maxAttempts) {
            try check(list, resolved, request)
            let result: Result<Answer, GatewayError>
            do {
                result = .success(try act(request.requestId))
            } catch {
                result = .failure(error)
            }
            switch result {
            case .success(let answer):
                return (resolved, request, answer, superseded)
            case .failure(let error):
                guard error.isUnknownRequestId, attempt < maxAttempts else { throw error }
                list = try listDevices()
                guard let newer = list.currentRequest(deviceId: request.deviceId), newer.requestId != request.requestId else { throw error }
                superseded.append(request.requestId)
                request = newer
            }
        }
        throw GatewayError.protocolViolation("unreachable: attempts exhausted")
    }
}

/// Scope lists for people: whole scopes only, never cut mid-word.
public enum ScopeList {
    /// The scopes joined with commas within `maxScalars` characters; those that do not fit are
    /// counted (`operator.read,operator.write +3 more`). `-` for none.
    public static func summary(_ scopes: [String], maxScalars: Int = 60) -> String {
        guard !scopes.isEmpty else { return "-" }
        var shown: [String] = []
        var length = 0
        for (index, scope) in scopes.enumerated() {
            let clean = TerminalText.sanitize(scope, maxScalars: 80)
            let rest = scopes.count - index - 1
            let tail = rest > 0 ? " +\(rest) more".count : 0
            let added = (shown.isEmpty ? 0 : 1) + clean.count
            if !shown.isEmpty && length + added + tail > maxScalars {
                return shown.joined(separator: ",") + " +\(scopes.count - index) more"
            }
            shown.append(clean)
            length += added
        }
        return shown.joined(separator: ",")
    }
}

private extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
