// Renames, removals, clearing and setup status (issue #13 "Verbs", #15 §1 upstream parity).
// Params and results as openclaw/openclaw `packages/gateway-protocol/src/schema/devices.ts`
// (DevicePairRenameParamsSchema: deviceId, label 1..64) and `schema/nodes.ts`
// (NodeRenameParamsSchema: nodeId, displayName; NodePairRemoveParamsSchema: nodeId);
// `device.pair.setupStatus {setupId}` → `{completion?}` / `{deliveryUncertain?}` and `devices
// clear` (list, then remove each paired device, reject each pending request with --pending)
// as `shared/spec/pairing-rpcs.md` §2–§3 and `upstream-2026.md` give them.

import ClawpairCore

enum ManageMethod {
    static let devicePairRename = "device.pair.rename"
    static let nodeRename = "node.rename"
    static let nodePairRemove = "node.pair.remove"
    static let devicePairSetupStatus = "device.pair.setupStatus"
}

/// `device.pair.rename`'s result `{deviceId, label}`, or `node.rename`'s `{nodeId, displayName}`.
public struct RenameResult: Sendable, Equatable {
    /// The device or node id.
    public var id: String?
    /// The name it has now.
    public var name: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    init(json: JSONValue, idKey: String, nameKey: String, context: String) throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        id = try reader.string(idKey)
        name = try reader.string(nameKey)
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// A setup code's use, from `device.pair.setupStatus` or a `device.pair.setup.*` event:
/// `{setupId, deviceId, deviceName?, access, ts}`.
public struct SetupCompletion: Sendable, Equatable {
    /// The setup code's id, to wait for its use.
    public var setupId: String?
    /// The device that redeemed the code.
    public var deviceId: String?
    /// The name the device gave.
    public var deviceName: String?
    /// `full`, `limited` or `node`.
    public var access: String?
    /// When the gateway recorded it, in ms since the epoch.
    public var ts: Int64?
    /// The record, tokens redacted.
    public var json: JSONValue

    /// Reads one record; `context` names it in errors.
    public init(json: JSONValue, context: String = "setup completion") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        setupId = try reader.string("setupId")
        deviceId = try reader.string("deviceId")
        deviceName = try reader.string("deviceName")
        access = try reader.string("access")
        ts = try reader.int("ts")
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// `device.pair.setupStatus`'s result.
public enum SetupStatus: Sendable, Equatable {
    /// Not used yet — or expired, or forgotten by the gateway: the gateway cannot tell.
    case outstanding
    /// A device redeemed the code.
    case completed(SetupCompletion)
    /// A device redeemed it but the gateway could not confirm it received its credentials.
    case deliveryUncertain(SetupCompletion)

    /// Reads `{completion?}` / `{deliveryUncertain?}` / `{}`.
    public init(json: JSONValue, context: String = "device.pair.setupStatus") throws(GatewayError) {
        _ = try RecordReader(json, context: context)
        if let completion = json["completion"], !completion.isNull {
            self = .completed(try SetupCompletion(json: completion, context: context + ".completion"))
        } else if let uncertain = json["deliveryUncertain"], !uncertain.isNull {
            self = .deliveryUncertain(try SetupCompletion(json: uncertain, context: context + ".deliveryUncertain"))
        } else {
            self = .outstanding
        }
    }
}

/// What ``OperatorSession/clearDevices(rejectPending:keepDeviceId:)`` did, as upstream's
/// `devices clear` reports it: `{removedDevices, rejectedPending}`.
public struct DeviceClearing: Sendable, Equatable {
    /// The ids of the devices removed.
    public var removedDevices: [String] = []
    /// The ids of the pending requests rejected.
    public var rejectedPending: [String] = []
    /// Paired devices not removed: the one this session runs as.
    public var kept: [String] = []

    /// Nothing removed or rejected yet.
    public init() {}

    /// `{removedDevices, rejectedPending}`.
    public var json: JSONValue {
        .object([("removedDevices", .array(removedDevices.map(JSONValue.string))),
                 ("rejectedPending", .array(rejectedPending.map(JSONValue.string)))])
    }
}

extension OperatorSession {
    /// `device.pair.rename {deviceId, label}`; the label is 1–64 characters.
    public func renameDevice(deviceId: String, label: String) throws(GatewayError) -> RenameResult {
        try RenameResult(json: call(ManageMethod.devicePairRename, [("deviceId", .string(deviceId)), ("label", .string(label))]),
                         idKey: "deviceId", nameKey: "label", context: ManageMethod.devicePairRename)
    }

    /// `node.rename {nodeId, displayName}`.
    public func renameNode(nodeId: String, displayName: String) throws(GatewayError) -> RenameResult {
        try RenameResult(json: call(ManageMethod.nodeRename, [("nodeId", .string(nodeId)), ("displayName", .string(displayName))]),
                         idKey: "nodeId", nameKey: "displayName", context: ManageMethod.nodeRename)
    }

    /// `node.pair.remove {nodeId}`: the node leaves the gateway's node trust set.
    public func removeNode(nodeId: String) throws(GatewayError) -> JSONValue {
        let payload = try call(ManageMethod.nodePairRemove, [("nodeId", .string(nodeId))])
        return OperatorRecords.redactingTokens(payload)
    }

    /// `device.pair.setupStatus {setupId}` (needs operator.admin; G4 gateways).
    public func setupStatus(setupId: String) throws(GatewayError) -> SetupStatus {
        try SetupStatus(json: call(ManageMethod.devicePairSetupStatus, [("setupId", .string(setupId))]))
    }

    /// Clears the gateway's devices: removes every paired device except `keepDeviceId` (the session's own,
    /// so the operator does not lock itself out mid-way), and with `rejectPending` rejects
    /// every pending request too. Stops at the first failure.
    public func clearDevices(rejectPending: Bool, keepDeviceId: String?) throws(GatewayError) -> DeviceClearing {
        let listing = try listDevices()
        var result = DeviceClearing()
        if rejectPending {
            for request in listing.sortedPending {
                _ = try rejectDevice(requestId: request.requestId)
                result.rejectedPending.append(request.requestId)
            }
        }
        for device in listing.sortedPaired {
            if device.deviceId == keepDeviceId {
                result.kept.append(device.deviceId)
                continue
            }
            _ = try removeDevice(deviceId: device.deviceId)
            result.removedDevices.append(device.deviceId)
        }
        return result
    }
}

extension NodeList {
    /// ``sortedNodes`` seen within `window` of `nowMs` (connected now, or `lastSeenAtMs` /
    /// `connectedAtMs` at most `window` ago).
    public func nodes(seenWithinMs window: Int64, nowMs: Int64) -> [NodeListNode] {
        let since = nowMs.subtractingReportingOverflow(max(0, window))
        let cutoff = since.overflow ? Int64.min : since.partialValue
        return sortedNodes.filter { node in
            node.connected || max(node.lastSeenAtMs ?? Int64.min, node.connectedAtMs ?? Int64.min) >= cutoff
        }
    }

    /// ``sortedNodes`` kept by the filters (only the connected ones with `connectedOnly`, only
    /// those seen within `seenWithinMs` when given), the payload with only those nodes, and how
    /// many the filters left out.
    public func filtered(connectedOnly: Bool, seenWithinMs: Int64?, nowMs: Int64) -> (nodes: [NodeListNode], json: JSONValue, hidden: Int) {
        var kept = seenWithinMs.map { nodes(seenWithinMs: $0, nowMs: nowMs) } ?? sortedNodes
        if connectedOnly { kept = kept.filter(\.connected) }
        var payload = json
        if kept.count != nodes.count, case .object(let members) = payload {
            payload = .object(members.map { $0.0 == "nodes" ? ("nodes", .array(kept.map(\.json))) : $0 })
        }
        return (kept, payload, nodes.count - kept.count)
    }

    /// Nodes whose id, unique id prefix (4+ characters), display name (case-insensitive) or
    /// remote address equals `query` (upstream names a node by any of them). Empty when none;
    /// several when ambiguous.
    public func nodes(matching query: String) -> [NodeListNode] {
        if let exact = nodes.first(where: { $0.nodeId == query }) { return [exact] }
        let lower = query.lowercased()
        let named = nodes.filter { $0.displayName?.lowercased() == lower || $0.remoteIp == query }
        if !named.isEmpty { return named }
        guard query.count >= DevicePairingList.minimumPrefixLength else { return [] }
        return nodes.filter { $0.nodeId.lowercased().hasPrefix(lower) }
    }
}

extension GatewayError {
    /// The gateway answered the connect and did not accept its credential: an auth, device-auth
    /// or pairing refusal, or a connect rejection that says so only in words (some gateways send
    /// `unauthorized: …` without `details.code`): a refusal, not a failure to reach the gateway.
    public var isCredentialRefusal: Bool {
        switch self {
        case .authRejected, .deviceAuthRejected, .pairingRequired:
            return true
        case .connectRejected(let shape):
            let message = shape.message.lowercased()
            return Self.isPermissionCode(shape) || message.hasPrefix("unauthorized") || message.contains("token")
                || message.contains("not paired") || message.contains("pairing required")
        default:
            return false
        }
    }

    /// Nothing answered: no URL was reachable (or none could be tried).
    public var isNothingAnswered: Bool {
        switch self {
        case .unreachable, .notConnected, .invalidURL: return true
        default: return false
        }
    }
}

extension SetupCodeRequest {
    /// The `voice-node` bootstrap profile (roles node + operator, scopes operator.read and
    /// operator.talk; openclaw/openclaw `src/shared/device-bootstrap-profile.ts`, accepted as
    /// `bootstrapProfile: "voice-node"` by `src/gateway/server-methods/device-pair-setup.ts`).
    public static let voiceNodeProfile = "voice-node"

    /// The URL a minted code should carry when the operator named none: the one this session
    /// reached the gateway through, unless it is loopback (a phone cannot dial the gateway's
    /// loopback address; the gateway then picks its own).
    public static func reachedURL(_ endpoint: GatewayEndpoint) -> String? {
        endpoint.isLoopback ? nil : endpoint.url
    }
}
