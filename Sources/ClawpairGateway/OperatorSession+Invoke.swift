// `node.invoke`: an operator asks a connected node to run one command (`upstream-2026-10.md`
// §2.4: `{nodeId, command, params?, timeoutMs?, idempotencyKey (required)}`). The gateway
// forwards it as `node.invoke.request` and answers with what the node returned.

import ClawpairCore

/// What `node.invoke` asks a node to run.
public struct NodeInvokeCall: Sendable, Equatable {
    /// The node's id.
    public var nodeId: String
    /// The command, e.g. `device.status`.
    public var command: String
    /// Its parameters (an object), or `nil` for none.
    public var params: JSONValue?
    /// How long the gateway waits for the node, in milliseconds.
    public var timeoutMs: Int64
    /// The key that makes a retried call run once: the same key for the same intent.
    public var idempotencyKey: String

    /// A call of `command` on `nodeId`.
    public init(nodeId: String, command: String, params: JSONValue? = nil, timeoutMs: Int64 = 30_000,
                idempotencyKey: String = NodeInvokeCall.makeIdempotencyKey()) {
        self.nodeId = nodeId
        self.command = command
        self.params = params
        self.timeoutMs = timeoutMs
        self.idempotencyKey = idempotencyKey
    }

    /// A fresh random key (128 bits, base64url).
    public static func makeIdempotencyKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// The request params, members in upstream's order.
    public var requestParams: JSONValue {
        var members: [(String, JSONValue)] = [("nodeId", .string(nodeId)), ("command", .string(command))]
        if let params { members.append(("params", params)) }
        members.append(("timeoutMs", .int(timeoutMs)))
        members.append(("idempotencyKey", .string(idempotencyKey)))
        return .object(members)
    }
}

/// A node's answer to `node.invoke`.
public struct NodeInvokeAnswer: Sendable, Equatable {
    /// The payload the node returned (`payloadJSON` parsed, or `payload`), `nil` when none.
    public var payload: JSONValue?
    /// The gateway's whole response.
    public var json: JSONValue

    /// Reads the gateway's response: `payloadJSON` (a string, parsed within the payload ceiling)
    /// wins over `payload`.
    public init(json: JSONValue) throws(GatewayError) {
        self.json = json
        if let text = json["payloadJSON"]?.stringValue {
            do {
                payload = try JSONValue.parse(text, limits: JSONLimits(maxInputBytes: GatewayClientConfiguration.defaultMaxPayloadCeiling))
            } catch {
                throw .protocolViolation("node.invoke: payloadJSON is not JSON: \(error.description)")
            }
        } else if let value = json["payload"], !value.isNull {
            payload = value
        } else {
            payload = nil
        }
    }
}

extension OperatorSession {
    /// `node.invoke`: runs `call.command` on the node and returns its payload. A node's refusal
    /// (`UNAVAILABLE`, `INVALID_REQUEST`, `TIMEOUT`, …) is ``GatewayError/rpcFailed(method:_:)``.
    /// The connection waits `call.timeoutMs` plus this session's own timeout.
    public func invokeNode(_ call: NodeInvokeCall) throws(GatewayError) -> NodeInvokeAnswer {
        let wait = timeout + .milliseconds(max(0, min(call.timeoutMs, 600_000)))
        return try NodeInvokeAnswer(json: connection.call("node.invoke", params: call.requestParams, timeout: wait))
    }
}
