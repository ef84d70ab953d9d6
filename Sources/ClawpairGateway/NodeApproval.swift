// Approving a node in two steps, as gateways since 2026.7 ask (openclaw/openclaw
// docs/nodes/node-host.md "Pair + name"): step 1, the node's device pairing request
// (`device.pair.*`, a pending request with role node); step 2, after the node reconnects, its
// command surface (`node.pair.list` / `node.pair.approve {requestId}` → `{requestId, node}`; the
// device and node request ids are distinct). Older gateways have only the `node.pair.*` store,
// which step 2 covers too. ``NodeApprovals`` lists both steps and resolves an id to the step it
// belongs to, so `approve`/`reject` can say which step it was and name the node.

import ClawpairCore

/// Which of a node's two approvals a request is.
public enum NodeApprovalStep: String, Sendable, Equatable {
    /// Step 1: the node's device pairing (`device.pair.approve`).
    case devicePairing = "device-pairing"
    /// Step 2: the node's command surface, or an older gateway's node pairing (`node.pair.approve`).
    case commandSurface = "command-surface"
}

/// One pending approval of a node.
public struct NodePendingApproval: Sendable, Equatable {
    /// The step the request is for.
    public var step: NodeApprovalStep
    /// The request id to approve.
    public var requestId: String
    /// The node's id (its deviceId on current gateways).
    public var nodeId: String?
    /// The name shown for it to people (untrusted text: sanitize before printing).
    public var displayName: String?
    /// The platform the client reported (e.g. `linux`).
    public var platform: String?
    /// The commands the node declared (step 2 only).
    public var commands: [String]?
    /// The address the gateway saw the connection come from.
    public var remoteIp: String?
    /// When the gateway made the request (epoch ms).
    public var ts: Int64?

    /// The name to show: the display name, else the node id, else the request id.
    public var name: String { displayName ?? nodeId ?? requestId }

    /// A pending approval with these members.
    public init(step: NodeApprovalStep, requestId: String, nodeId: String? = nil, displayName: String? = nil, platform: String? = nil,
                commands: [String]? = nil, remoteIp: String? = nil, ts: Int64? = nil) {
        self.step = step
        self.requestId = requestId
        self.nodeId = nodeId
        self.displayName = displayName
        self.platform = platform
        self.commands = commands
        self.remoteIp = remoteIp
        self.ts = ts
    }

    /// Step 1 from a pending device pairing request that asks for role node.
    public init?(device request: PendingRequest) {
        let roles = (request.details.roles ?? []) + [request.details.role].compactMap { $0 }
        guard roles.contains("node") else { return nil }
        self.init(step: .devicePairing, requestId: request.requestId, nodeId: request.deviceId, displayName: request.details.displayName,
                  platform: request.details.platform, remoteIp: request.details.remoteIp, ts: request.ts)
    }

    /// Step 2 from a `node.pair.list` pending entry.
    public init(node request: NodePairRequest) {
        self.init(step: .commandSurface, requestId: request.requestId, nodeId: request.nodeId, displayName: request.displayName,
                  platform: request.platform, commands: request.commands, remoteIp: request.remoteIp, ts: request.ts)
    }

    /// `{step, requestId, nodeId, displayName, platform, commands, remoteIp, ts}` (absent values null).
    public var json: JSONValue {
        .object([("step", .string(step.rawValue)), ("requestId", .string(requestId)),
                 ("nodeId", nodeId.map(JSONValue.string) ?? .null), ("displayName", displayName.map(JSONValue.string) ?? .null),
                 ("platform", platform.map(JSONValue.string) ?? .null),
                 ("commands", commands.map { .array($0.map(JSONValue.string)) } ?? .null),
                 ("remoteIp", remoteIp.map(JSONValue.string) ?? .null), ("ts", ts.map(JSONValue.int) ?? .null)])
    }
}

/// Why a node approval failed (other than the gateway failing: a ``GatewayError``).
public enum NodeApprovalError: Error, Sendable, Equatable {
    /// No pending request of either step has this id (or it was resolved meanwhile).
    case unknownRequest(String, pending: Int)
}

extension NodeApprovalError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .unknownRequest(let id, _):
            return "no pending node request has the id \(TerminalText.sanitize(id, maxScalars: 80))"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .unknownRequest(_, let pending):
            return pending == 0 ? "no node request is pending; it may have been approved, rejected or replaced by a retry"
                : "\(pending) node request(s) are pending: list them again and use a current id"
        }
    }
}

/// What approving or rejecting a node request did.
public struct NodeApprovalOutcome: Sendable, Equatable {
    /// The request as it was pending.
    public var request: NodePendingApproval
    /// The name of the node from the gateway's answer (`node.displayName`/`nodeId`), else the request's.
    public var nodeName: String
    /// The gateway's answer, tokens redacted.
    public var json: JSONValue
}

/// Both steps' pending node requests, and approving or rejecting one by id.
public enum NodeApprovals {
    /// `{"ok": true, "pending": [each request's ``NodePendingApproval/json``]}`.
    public static func json(_ pending: [NodePendingApproval]) -> JSONValue {
        .object([("ok", true), ("pending", .array(pending.map(\.json)))])
    }

    /// Step 1 requests (from `device.pair.list`) then step 2 requests (`node.pair.list`).
    public static func pending(_ session: OperatorSession) throws(GatewayError) -> [NodePendingApproval] {
        let devices = try session.listDevices().pending.compactMap(NodePendingApproval.init(device:))
        return devices + (try session.listNodePairing().pending.map(NodePendingApproval.init(node:)))
    }

    /// Approves (`approve` true) or rejects the pending request `requestId` with the RPC of its
    /// step; an id that is not pending, before or during the call, is ``NodeApprovalError/unknownRequest(_:pending:)``,
    /// any other failure the ``GatewayError``.
    public static func resolve(_ requestId: String, approve: Bool, session: OperatorSession) throws -> NodeApprovalOutcome {
        let pending = try Self.pending(session)
        guard let request = pending.first(where: { $0.requestId == requestId }) else {
            throw NodeApprovalError.unknownRequest(requestId, pending: pending.count)
        }
        let answer: JSONValue
        do {
            switch (request.step, approve) {
            case (.devicePairing, true): answer = try session.approveDevice(requestId: requestId).json
            case (.devicePairing, false): answer = try session.rejectDevice(requestId: requestId).json
            case (.commandSurface, true): answer = try session.approveNode(requestId: requestId).json
            case (.commandSurface, false): answer = try session.rejectNode(requestId: requestId).json
            }
        } catch {
            if case .rpcFailed(_, let shape) = error, shape.message.lowercased().contains("unknown requestid") {
                throw NodeApprovalError.unknownRequest(requestId, pending: pending.count - 1)
            }
            throw error
        }
        let node = answer["node"] ?? answer["device"]
        let name = node?["displayName"]?.stringValue ?? node?["nodeId"]?.stringValue ?? node?["deviceId"]?.stringValue ?? request.name
        return NodeApprovalOutcome(request: request, nodeName: name, json: answer)
    }
}
