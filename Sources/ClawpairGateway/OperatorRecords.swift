// The records the operator RPCs return (`pairing-rpcs.md` §2–§5.2; upstream field names from
// openclaw/openclaw `packages/gateway-protocol/src/schema/devices.ts` and `nodes.ts`, the list
// records from `src/infra/device-pairing.ts` / `src/gateway/node-catalog.ts` as the spec gives
// them).
//
// Every record keeps the gateway's payload as `json` for `--json` pass-through, with every
// member named `token` (at any depth) replaced by ``OperatorRecords/redactionMarker``: token
// values never leave this layer by accident. A result of the wrong shape (a list that is not
// an array, an id that is not a string) is `GatewayError.protocolViolation`, never an empty
// list. Members a record does not model are kept in `json` and otherwise ignored; absent or
// `null` optional members read as nil.
//
// Checklist, adding a record: a `struct` with the fields the toolkit reads, `json`, and an
// `init(json:context:) throws(GatewayError)` reading through ``RecordReader``; a shape test in
// Tests/ClawpairGatewayTests/OperatorSessionTests.swift.

import ClawpairCore

/// Redaction of RPC results.
public enum OperatorRecords {
    /// What replaces a token value in a record's `json` (the marker shown instead of a token).
    public static let redactionMarker = "<redacted>"

    /// `json` with the value of every member named `token`, at any depth, replaced by
    /// ``redactionMarker``.
    public static func redactingTokens(_ json: JSONValue) -> JSONValue {
        switch json {
        case .object(let members):
            return .object(members.map { key, value in
                key == "token" ? (key, .string(redactionMarker)) : (key, redactingTokens(value))
            })
        case .array(let elements):
            return .array(elements.map(redactingTokens))
        default:
            return json
        }
    }
}

/// Reads the members of one JSON object of an RPC result; a member of the wrong type is a
/// protocol violation naming where it was (`device.pair.list: pending[2].deviceId`).
struct RecordReader {
    let json: JSONValue
    let context: String

    init(_ json: JSONValue, context: String) throws(GatewayError) {
        guard case .object = json else {
            throw .protocolViolation("\(context) is \(json.typeDescription), not an object")
        }
        self.json = json
        self.context = context
    }

    private func member(_ key: String) -> JSONValue? {
        guard let value = json[key], !value.isNull else { return nil }
        return value
    }

    private func wrongType(_ key: String, _ value: JSONValue, expected: String) -> GatewayError {
        .protocolViolation("\(context).\(key) is \(value.typeDescription), not \(expected)")
    }

    func string(_ key: String) throws(GatewayError) -> String? {
        guard let value = member(key) else { return nil }
        guard let text = value.stringValue else { throw wrongType(key, value, expected: "a string") }
        return text
    }

    func requiredString(_ key: String) throws(GatewayError) -> String {
        guard let text = try string(key) else { throw .protocolViolation("\(context) has no \(key)") }
        return text
    }

    func bool(_ key: String) throws(GatewayError) -> Bool? {
        guard let value = member(key) else { return nil }
        guard let flag = value.boolValue else { throw wrongType(key, value, expected: "a Boolean") }
        return flag
    }

    func int(_ key: String) throws(GatewayError) -> Int64? {
        guard let value = member(key) else { return nil }
        guard let number = value.int64Value else { throw wrongType(key, value, expected: "an integer") }
        return number
    }

    func array(_ key: String) throws(GatewayError) -> [JSONValue]? {
        guard let value = member(key) else { return nil }
        guard let elements = value.arrayValue else { throw wrongType(key, value, expected: "an array") }
        return elements
    }

    func requiredArray(_ key: String) throws(GatewayError) -> [JSONValue] {
        guard let elements = try array(key) else { throw .protocolViolation("\(context) has no \(key) array") }
        return elements
    }

    func strings(_ key: String) throws(GatewayError) -> [String]? {
        guard let elements = try array(key) else { return nil }
        var texts: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = element.stringValue else {
                throw .protocolViolation("\(context).\(key)[\(index)] is \(element.typeDescription), not a string")
            }
            texts.append(text)
        }
        return texts
    }

    /// The objects of the array `key`, each read by `make` with its own context.
    func records<R>(_ key: String, required: Bool = true,
                    _ make: (JSONValue, String) throws(GatewayError) -> R) throws(GatewayError) -> [R] {
        guard let elements = required ? try requiredArray(key) : try array(key) else { return [] }
        var records: [R] = []
        for (index, element) in elements.enumerated() {
            records.append(try make(element, "\(context).\(key)[\(index)]"))
        }
        return records
    }
}

// MARK: - Device pairing

/// What a device told the gateway about itself when it connected (ConnectParams) and the
/// access it asks for or holds: the members pending requests and paired devices share.
public struct DeviceDescription: Sendable, Equatable {
    /// Base64url raw Ed25519 key.
    public var publicKey: String?
    /// The name shown for it to people (untrusted text: sanitize before printing).
    public var displayName: String?
    /// The platform the client reported (e.g. `linux`).
    public var platform: String?
    /// The device family the client reported (e.g. `Linux`).
    public var deviceFamily: String?
    /// The client id it connected with (`openclaw-cli`, `node-host`, …).
    public var clientId: String?
    /// The client mode it connected with (`cli`, `node`, `ui`, …).
    public var clientMode: String?
    /// The role (older builds) …
    public var role: String?
    /// … or roles.
    public var roles: [String]?
    /// The scopes (such as `operator.read`).
    public var scopes: [String]?
    /// The address the gateway saw the connection come from.
    public var remoteIp: String?

    init(_ reader: RecordReader) throws(GatewayError) {
        publicKey = try reader.string("publicKey")
        displayName = try reader.string("displayName")
        platform = try reader.string("platform")
        deviceFamily = try reader.string("deviceFamily")
        clientId = try reader.string("clientId")
        clientMode = try reader.string("clientMode")
        role = try reader.string("role")
        roles = try reader.strings("roles")
        scopes = try reader.strings("scopes")
        remoteIp = try reader.string("remoteIp")
    }
}

/// A device waiting for approval (`device.pair.list` `pending[]`, `pairing-rpcs.md` §5.2). Its
/// ``DeviceDescription`` members read as its own (`request.displayName`).
@dynamicMemberLookup
public struct PendingRequest: Sendable, Equatable {
    /// The id to approve or reject it by.
    public var requestId: String
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String
    /// Who it says it is and what it asks for.
    public var details: DeviceDescription
    /// The gateway will approve it itself.
    public var silent: Bool
    /// The device is already paired and asks again (new key, role or scopes).
    public var isRepair: Bool
    /// When it was requested (epoch ms).
    public var ts: Int64?
    /// The payload entry, tokens redacted.
    public var json: JSONValue

    /// Reads one entry; `context` names it in errors.
    public init(json: JSONValue, context: String = "pending request") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        requestId = try reader.requiredString("requestId")
        deviceId = try reader.requiredString("deviceId")
        details = try DeviceDescription(reader)
        silent = try reader.bool("silent") ?? false
        isRepair = try reader.bool("isRepair") ?? false
        ts = try reader.int("ts")
        self.json = OperatorRecords.redactingTokens(json)
    }

    /// The description's fields, read through the request.
    public subscript<Value>(dynamicMember member: KeyPath<DeviceDescription, Value>) -> Value {
        details[keyPath: member]
    }
}

/// One entry of a paired device's token summary (no token value).
public struct DeviceTokenSummary: Sendable, Equatable {
    /// The role (`operator` or `node`).
    public var role: String
    /// The scopes (such as `operator.read`).
    public var scopes: [String]
    /// When it was created, in ms since the epoch.
    public var createdAtMs: Int64?
    /// When the token was last rotated, in ms since the epoch.
    public var rotatedAtMs: Int64?
    /// When the token was revoked, in ms since the epoch.
    public var revokedAtMs: Int64?
    /// When the token was last used, in ms since the epoch.
    public var lastUsedAtMs: Int64?
}

/// An approved device (`device.pair.list` `paired[]`, and `device.pair.approve`'s `device`). Its
/// ``DeviceDescription`` members read as its own (`device.scopes`).
@dynamicMemberLookup
public struct PairedDevice: Sendable, Equatable {
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String
    /// Who it said it was and the access it holds.
    public var details: DeviceDescription
    /// The name an operator gave it (`device.pair.rename`).
    public var operatorLabel: String?
    /// The list form of its tokens (roles and times, never values); empty when not sent.
    public var tokens: [DeviceTokenSummary]
    /// How it was approved (the gateway's word).
    public var approvedVia: String?
    /// When it was created, in ms since the epoch.
    public var createdAtMs: Int64?
    /// When it was approved, in ms since the epoch.
    public var approvedAtMs: Int64?
    /// When it was last seen, in ms since the epoch.
    public var lastSeenAtMs: Int64?
    /// Why it was last seen (the gateway's word, e.g. `connect`).
    public var lastSeenReason: String?
    /// Whether it is connected now (list output only).
    public var connected: Bool
    /// The payload entry, tokens redacted.
    public var json: JSONValue

    /// Reads one entry; `context` names it in errors.
    public init(json: JSONValue, context: String = "paired device") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        deviceId = try reader.requiredString("deviceId")
        details = try DeviceDescription(reader)
        operatorLabel = try reader.string("operatorLabel")
        // The list form is an array; the stored form (a map by role) is tolerated and not read.
        if let summary = json["tokens"], summary.arrayValue != nil {
            tokens = try reader.records("tokens") { entry, path throws(GatewayError) in
                let token = try RecordReader(entry, context: path)
                return DeviceTokenSummary(role: try token.requiredString("role"), scopes: try token.strings("scopes") ?? [],
                                          createdAtMs: try token.int("createdAtMs"), rotatedAtMs: try token.int("rotatedAtMs"),
                                          revokedAtMs: try token.int("revokedAtMs"), lastUsedAtMs: try token.int("lastUsedAtMs"))
            }
        } else {
            tokens = []
        }
        approvedVia = try reader.string("approvedVia")
        createdAtMs = try reader.int("createdAtMs")
        approvedAtMs = try reader.int("approvedAtMs")
        lastSeenAtMs = try reader.int("lastSeenAtMs")
        lastSeenReason = try reader.string("lastSeenReason")
        connected = try reader.bool("connected") ?? false
        self.json = OperatorRecords.redactingTokens(json)
    }

    /// The description's fields, read through the device.
    public subscript<Value>(dynamicMember member: KeyPath<DeviceDescription, Value>) -> Value {
        details[keyPath: member]
    }
}

/// `device.pair.list`'s result: `{pending, paired}`.
public struct DevicePairingList: Sendable, Equatable {
    /// Newest first, as the gateway orders them.
    public var pending: [PendingRequest]
    /// Most recently approved first.
    public var paired: [PairedDevice]
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `device.pair.list` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.pair.list") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        pending = try reader.records("pending") { entry, path throws(GatewayError) in try PendingRequest(json: entry, context: path) }
        paired = try reader.records("paired") { entry, path throws(GatewayError) in try PairedDevice(json: entry, context: path) }
        self.json = OperatorRecords.redactingTokens(json)
    }

    /// The pending request with this id.
    public func pending(requestId: String) -> PendingRequest? { pending.first { $0.requestId == requestId } }
    /// The paired device with this id.
    public func paired(deviceId: String) -> PairedDevice? { paired.first { $0.deviceId == deviceId } }
    /// The newest pending request (largest `ts`).
    public var newestPending: PendingRequest? { pending.max { ($0.ts ?? 0) < ($1.ts ?? 0) } }
}

/// `device.pair.approve`'s result: `{requestId, device}`.
public struct DeviceApproval: Sendable, Equatable {
    /// The pairing request id.
    public var requestId: String?
    /// The approved device, when the gateway sends it.
    public var device: PairedDevice?
    /// The payload, tokens redacted (some gateways return the new device token here).
    public var json: JSONValue

    /// Reads the gateway's `device.pair.approve` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.pair.approve") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        requestId = try reader.string("requestId")
        device = try json["device"].flatMap { $0.isNull ? nil : $0 }.map { device throws(GatewayError) in
            try PairedDevice(json: device, context: context + ".device")
        }
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// `device.pair.reject`'s result: `{requestId, deviceId}`.
public struct DeviceRejection: Sendable, Equatable {
    /// The pairing request id.
    public var requestId: String?
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `device.pair.reject` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.pair.reject") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        requestId = try reader.string("requestId")
        deviceId = try reader.string("deviceId")
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// `device.pair.remove`'s result: `{deviceId}`.
public struct DeviceRemoval: Sendable, Equatable {
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `device.pair.remove` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.pair.remove") throws(GatewayError) {
        deviceId = try RecordReader(json, context: context).string("deviceId")
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// `device.token.rotate`'s result: `{deviceId, role, token?, scopes, rotatedAtMs, tokenDelivery}`.
public struct TokenRotation: Sendable, Equatable {
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String?
    /// The role (`operator` or `node`).
    public var role: String?
    /// The new token, only when the gateway delivered it in band (the caller rotated its own
    /// device's token). A secret: `json` carries the redaction marker instead.
    public var token: String?
    /// The scopes (such as `operator.read`).
    public var scopes: [String]?
    /// When the token was last rotated, in ms since the epoch.
    public var rotatedAtMs: Int64?
    /// `in-band` or `withheld-cross-device`.
    public var tokenDelivery: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `device.token.rotate` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.token.rotate") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        deviceId = try reader.string("deviceId")
        role = try reader.string("role")
        token = try reader.string("token")
        scopes = try reader.strings("scopes")
        rotatedAtMs = try reader.int("rotatedAtMs")
        tokenDelivery = try reader.string("tokenDelivery")
        self.json = OperatorRecords.redactingTokens(json)
    }

    /// `json` with the top-level token put back: for a user who asked to see it.
    public var revealedJSON: JSONValue {
        guard let token, case .object(let members) = json else { return json }
        return .object(members.map { $0.0 == "token" ? ("token", .string(token)) : $0 })
    }
}

/// `device.token.revoke`'s result: `{deviceId, role, revokedAtMs}`.
public struct TokenRevocation: Sendable, Equatable {
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String?
    /// The role (`operator` or `node`).
    public var role: String?
    /// When the token was revoked, in ms since the epoch.
    public var revokedAtMs: Int64?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `device.token.revoke` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.token.revoke") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        deviceId = try reader.string("deviceId")
        role = try reader.string("role")
        revokedAtMs = try reader.int("revokedAtMs")
        self.json = OperatorRecords.redactingTokens(json)
    }
}

// MARK: - Nodes

/// A node the gateway knows (`node.list` `nodes[]`, `pairing-rpcs.md` §5.2 NodeListNode).
public struct NodeListNode: Sendable, Equatable {
    /// The node id.
    public var nodeId: String
    /// The name shown for it to people (untrusted text: sanitize before printing).
    public var displayName: String?
    /// The platform the client reported (e.g. `linux`).
    public var platform: String?
    /// The version it reported.
    public var version: String?
    /// The core version it reported.
    public var coreVersion: String?
    /// The UI version it reported.
    public var uiVersion: String?
    /// The client id it connected with (`openclaw-cli`, `node-host`, …).
    public var clientId: String?
    /// The client mode it connected with (`cli`, `node`, `ui`, …).
    public var clientMode: String?
    /// The device family the client reported (e.g. `Linux`).
    public var deviceFamily: String?
    /// The hardware model identifier the client reported, if any.
    public var modelIdentifier: String?
    /// The address the gateway saw the connection come from.
    public var remoteIp: String?
    /// Capabilities and invokable commands (empty when not sent).
    public var caps: [String]
    /// The commands it declared.
    public var commands: [String]
    /// `approved`, `unapproved`, `pending-approval` or `pending-reapproval`.
    public var approvalState: String?
    /// The id of its pending pairing request, if any.
    public var pendingRequestId: String?
    /// When the current connection was made, in ms since the epoch.
    public var connectedAtMs: Int64?
    /// When it was last seen, in ms since the epoch.
    public var lastSeenAtMs: Int64?
    /// When it was approved, in ms since the epoch.
    public var approvedAtMs: Int64?
    /// Whether it is paired.
    public var paired: Bool
    /// Whether it is connected now.
    public var connected: Bool
    /// When the node last connected and disconnected (2026.10 `node.list`; absent on older gateways).
    public var lastConnectedAtMs: Int64?
    /// When the node last disconnected (2026.10).
    public var lastDisconnectedAtMs: Int64?
    /// Whether this node is the gateway's active computer (2026.10; headless hosts never are).
    public var active: Bool?
    /// The node's last `node.host.stats` (headless node hosts, 2026.9+), when the gateway has it.
    public var hostStats: NodeHostStats?
    /// The payload entry, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `node` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "node") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        nodeId = try reader.requiredString("nodeId")
        displayName = try reader.string("displayName")
        platform = try reader.string("platform")
        version = try reader.string("version")
        coreVersion = try reader.string("coreVersion")
        uiVersion = try reader.string("uiVersion")
        clientId = try reader.string("clientId")
        clientMode = try reader.string("clientMode")
        deviceFamily = try reader.string("deviceFamily")
        modelIdentifier = try reader.string("modelIdentifier")
        remoteIp = try reader.string("remoteIp")
        caps = try reader.strings("caps") ?? []
        commands = try reader.strings("commands") ?? []
        approvalState = try reader.string("approvalState")
        pendingRequestId = try reader.string("pendingRequestId")
        connectedAtMs = try reader.int("connectedAtMs")
        lastSeenAtMs = try reader.int("lastSeenAtMs")
        approvedAtMs = try reader.int("approvedAtMs")
        paired = try reader.bool("paired") ?? false
        connected = try reader.bool("connected") ?? false
        lastConnectedAtMs = try reader.int("lastConnectedAtMs")
        lastDisconnectedAtMs = try reader.int("lastDisconnectedAtMs")
        active = try reader.bool("active")
        if let stats = json["hostStats"], !stats.isNull {
            hostStats = try NodeHostStats(json: stats, context: context + ".hostStats")
        } else {
            hostStats = nil
        }
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// A headless node's host statistics (`node.host.stats`, upstream `docs/gateway/protocol/presence.md`:
/// `{cpuCount, loadAverage?[3], memoryTotalBytes, memoryFreeBytes, diskTotalBytes?, diskAvailableBytes?}`).
/// Numbers from the gateway are kept only when they are in range (a count 1…4096, sizes ≥ 0).
public struct NodeHostStats: Sendable, Equatable {
    /// Logical CPUs (1…4096).
    public var cpuCount: Int64?
    /// The 1, 5 and 15 minute load averages (absent when the node sent none).
    public var loadAverage: [Double]
    /// Total memory in bytes.
    public var memoryTotalBytes: Int64?
    /// Free plus reclaimable memory in bytes.
    public var memoryFreeBytes: Int64?
    /// The home volume's size in bytes.
    public var diskTotalBytes: Int64?
    /// The home volume's available bytes.
    public var diskAvailableBytes: Int64?

    /// Reads `hostStats`; a member of the wrong type is a protocol violation, an out-of-range
    /// number is dropped.
    public init(json: JSONValue, context: String = "hostStats") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        func size(_ key: String) throws(GatewayError) -> Int64? {
            guard let value = try reader.int(key), value >= 0 else { return nil }
            return value
        }
        cpuCount = try reader.int("cpuCount").flatMap { (1...4096).contains($0) ? $0 : nil }
        loadAverage = (try reader.array("loadAverage") ?? []).prefix(3).compactMap(\.doubleValue)
            .filter { $0.isFinite && $0 >= 0 && $0 < 1_000_000 }
        memoryTotalBytes = try size("memoryTotalBytes")
        memoryFreeBytes = try size("memoryFreeBytes")
        diskTotalBytes = try size("diskTotalBytes")
        diskAvailableBytes = try size("diskAvailableBytes")
    }
}

/// `node.list`'s result: `{ts, nodes, activeNodeId?}`.
public struct NodeList: Sendable, Equatable {
    /// When the gateway recorded it, in ms since the epoch.
    public var ts: Int64?
    /// In the gateway's order.
    public var nodes: [NodeListNode]
    /// The node the gateway treats as active, if any.
    public var activeNodeId: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `node.list` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "node.list") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        ts = try reader.int("ts")
        nodes = try reader.records("nodes") { entry, path throws(GatewayError) in try NodeListNode(json: entry, context: path) }
        activeNodeId = try reader.string("activeNodeId")
        self.json = OperatorRecords.redactingTokens(json)
    }

    /// Connected first, then by lowercased display name, then by id (`pairing-rpcs.md` §5.2).
    public var sortedNodes: [NodeListNode] {
        nodes.sorted { a, b in
            if a.connected != b.connected { return a.connected }
            let na = (a.displayName ?? "").lowercased(), nb = (b.displayName ?? "").lowercased()
            if na != nb { return na < nb }
            return a.nodeId < b.nodeId
        }
    }
}

/// A request in the gateway's `node.pair.*` store (`node.pair.list` `pending[]`). Its shape is
/// not fixed by the spec beyond these members.
public struct NodePairRequest: Sendable, Equatable {
    /// The pairing request id.
    public var requestId: String
    /// The node id.
    public var nodeId: String?
    /// The name shown for it to people (untrusted text: sanitize before printing).
    public var displayName: String?
    /// The platform the client reported (e.g. `linux`).
    public var platform: String?
    /// The commands it declared.
    public var commands: [String]?
    /// The address the gateway saw the connection come from.
    public var remoteIp: String?
    /// When the gateway recorded it, in ms since the epoch.
    public var ts: Int64?
    /// The payload entry, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `node pairing request` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "node pairing request") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        requestId = try reader.requiredString("requestId")
        nodeId = try reader.string("nodeId")
        displayName = try reader.string("displayName")
        platform = try reader.string("platform")
        commands = try reader.strings("commands")
        remoteIp = try reader.string("remoteIp")
        ts = try reader.int("ts")
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// `node.pair.list`'s result: `{pending, paired}`; paired entries stay opaque JSON.
public struct NodePairingList: Sendable, Equatable {
    /// The pending node pairing requests.
    public var pending: [NodePairRequest]
    /// The paired node records, tokens redacted.
    public var paired: [JSONValue]
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `node.pair.list` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "node.pair.list") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        pending = try reader.records("pending") { entry, path throws(GatewayError) in try NodePairRequest(json: entry, context: path) }
        paired = try reader.records("paired", required: false) { entry, path throws(GatewayError) in
            _ = try RecordReader(entry, context: path)
            return OperatorRecords.redactingTokens(entry)
        }
        self.json = OperatorRecords.redactingTokens(json)
    }
}

/// The result of `node.pair.approve` or `node.pair.reject`, whose shapes vary by version: kept
/// as opaque JSON (tokens redacted: approving issues the node a token).
public struct NodePairResolution: Sendable, Equatable {
    /// The pairing request id.
    public var requestId: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's answer to a node pairing decision.
    public init(json: JSONValue) {
        requestId = json["requestId"]?.stringValue
        self.json = OperatorRecords.redactingTokens(json)
    }
}

// MARK: - Setup codes

/// What `device.pair.setupCode` should mint (`pairing-rpcs.md` §3; closed params).
public struct SetupCodeRequest: Sendable, Equatable {
    /// `limited` or `node`; nil: the full profile.
    public var bootstrapProfile: String?
    /// Put this URL in the code (`publicUrl`).
    public var publicURL: String?
    /// Prefer `gateway.remote.url` (`preferRemoteUrl`).
    public var preferRemoteURL: Bool
    /// Ask for `qrDataUrl` (`includeQr`; the gateway's default is true).
    public var includeQR: Bool
    /// Ask for a single-use join URL (`joinUrl`, 2026.7+; the gateway wants bootstrapProfile node).
    public var joinURL = false

    /// A request for a setup code; every field is optional.
    public init(bootstrapProfile: String? = nil, publicURL: String? = nil, preferRemoteURL: Bool = false, includeQR: Bool = false) {
        self.bootstrapProfile = bootstrapProfile
        self.publicURL = publicURL
        self.preferRemoteURL = preferRemoteURL
        self.includeQR = includeQR
    }

    /// The closed params object: only the keys that are set.
    public var params: JSONValue {
        var members: [(String, JSONValue)] = [("includeQr", .bool(includeQR))]
        if let publicURL { members.append(("publicUrl", .string(publicURL))) }
        if preferRemoteURL { members.append(("preferRemoteUrl", true)) }
        if let bootstrapProfile { members.append(("bootstrapProfile", .string(bootstrapProfile))) }
        if joinURL { members.append(("joinUrl", true)) }
        return .object(members)
    }
}

/// `device.pair.setupCode`'s result.
public struct SetupCodeResult: Sendable, Equatable {
    /// The code (a secret until it expires).
    public var setupCode: String
    /// The QR code as a `data:` URL, when one was asked for.
    public var qrDataUrl: String?
    /// The gateway URL the code carries.
    public var gatewayUrl: String?
    /// 2..8 routes, when there is more than one.
    public var gatewayUrls: [String]?
    /// `token` or `password` (a label; the credential is never returned).
    public var auth: String?
    /// Where the gateway took that URL from (its own word).
    public var urlSource: String?
    /// `full`, `limited` or `node`.
    public var access: String?
    /// The gateway limited a full code because a URL is plaintext.
    public var accessDowngraded: Bool
    /// G4: the id `device.pair.setupStatus` takes, and when the code expires.
    public var setupId: String?
    /// When the code expires, in ms since the epoch.
    public var expiresAtMs: Int64?
    /// The join link for the code, when the gateway made one.
    public var joinUrl: String?
    /// The payload, tokens redacted.
    public var json: JSONValue

    /// Reads the gateway's `device.pair.setupCode` answer; `context` names it in error messages.
    public init(json: JSONValue, context: String = "device.pair.setupCode") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        guard let code = try reader.string("setupCode"), !code.isEmpty else {
            throw .protocolViolation("\(context) returned no setupCode")
        }
        setupCode = code
        qrDataUrl = try reader.string("qrDataUrl")
        gatewayUrl = try reader.string("gatewayUrl")
        gatewayUrls = try reader.strings("gatewayUrls")
        auth = try reader.string("auth")
        urlSource = try reader.string("urlSource")
        access = try reader.string("access")
        accessDowngraded = try reader.bool("accessDowngraded") ?? false
        setupId = try reader.string("setupId")
        expiresAtMs = try reader.int("expiresAtMs")
        joinUrl = try reader.string("joinUrl")
        self.json = OperatorRecords.redactingTokens(json)
    }
}
