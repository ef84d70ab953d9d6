// The invoke frames of a node (`upstream-2026-10.md` §2.4; upstream `packages/gateway-protocol/src/schema/nodes.ts`,
// `src/node-host/invoke-payload.ts`, `src/node-host/invoke.ts`):
//
//   gateway → node  event   node.invoke.request {id, nodeId, command, paramsJSON? | params?, timeoutMs?, idempotencyKey?}
//   gateway → node  event   node.invoke.cancel  {invokeId, nodeId}
//   node → gateway  request node.invoke.result  {id, nodeId, ok, payloadJSON?, error?: {code, message}}
//
// Everything here is a pure function of its input: sizes are checked before anything is kept, and
// a payload that names no invoke id cannot be answered, so it is dropped (upstream does the same).

import ClawpairCore

/// Bounds on what one invoke may carry and how much the pipeline keeps. Every bound has a
/// documented default; a payload over a bound is answered with `INVALID_REQUEST`, never cut short.
public struct NodeInvokeLimits: Sendable, Equatable {
    /// Default for ``maxParamsBytes``: 256 KiB of parameters JSON.
    public static let defaultMaxParamsBytes = 256 << 10
    /// Default for ``maxResultBytes``: 1 MiB of result JSON (below the gateway's frame ceiling).
    public static let defaultMaxResultBytes = 1 << 20
    /// Default for ``maxFieldBytes``: 256 bytes per id, node id, command name or idempotency key.
    public static let defaultMaxFieldBytes = 256
    /// Default for ``maxConcurrent``: 8 invokes running at once.
    public static let defaultMaxConcurrent = 8
    /// Default for ``idempotencyEntries``: 256 remembered results.
    public static let defaultIdempotencyEntries = 256
    /// Default for ``idempotencyWindow``: a result is replayed for 10 minutes.
    public static let defaultIdempotencyWindow = Duration.seconds(600)
    /// Default for ``maxTimeout``: a gateway's `timeoutMs` is clamped to 10 minutes.
    public static let defaultMaxTimeout = Duration.seconds(600)

    /// The largest `paramsJSON` (or serialized `params` object), in UTF-8 bytes.
    public var maxParamsBytes: Int
    /// The largest result payload JSON a handler may return, in UTF-8 bytes.
    public var maxResultBytes: Int
    /// The longest id, node id, command name or idempotency key, in UTF-8 bytes.
    public var maxFieldBytes: Int
    /// How many invokes may run at once; more are answered `UNAVAILABLE` at once.
    public var maxConcurrent: Int
    /// How many finished results are kept for idempotent replay (oldest evicted first).
    public var idempotencyEntries: Int
    /// How long a finished result is replayed for a retried invoke with the same idempotency key.
    public var idempotencyWindow: Duration
    /// The longest budget honoured from `timeoutMs`; larger budgets are clamped to this.
    public var maxTimeout: Duration

    /// Limits with the documented defaults unless overridden.
    public init(maxParamsBytes: Int = NodeInvokeLimits.defaultMaxParamsBytes,
                maxResultBytes: Int = NodeInvokeLimits.defaultMaxResultBytes,
                maxFieldBytes: Int = NodeInvokeLimits.defaultMaxFieldBytes,
                maxConcurrent: Int = NodeInvokeLimits.defaultMaxConcurrent,
                idempotencyEntries: Int = NodeInvokeLimits.defaultIdempotencyEntries,
                idempotencyWindow: Duration = NodeInvokeLimits.defaultIdempotencyWindow,
                maxTimeout: Duration = NodeInvokeLimits.defaultMaxTimeout) {
        self.maxParamsBytes = max(0, maxParamsBytes)
        self.maxResultBytes = max(0, maxResultBytes)
        self.maxFieldBytes = max(1, maxFieldBytes)
        self.maxConcurrent = max(1, maxConcurrent)
        self.idempotencyEntries = max(0, idempotencyEntries)
        self.idempotencyWindow = idempotencyWindow
        self.maxTimeout = maxTimeout
    }

    /// The documented defaults.
    public static let `default` = NodeInvokeLimits()
}

/// The error a node returns for an invoke: one of upstream's codes and a message
/// (`upstream-2026-10.md` §2.4; upstream `OpenClawNodeErrorCode`).
public struct NodeInvokeError: Error, Sendable, Equatable {
    /// The wire code (`INVALID_REQUEST`, `UNAVAILABLE`, `TIMEOUT`, …).
    public var code: String
    /// What went wrong, for the operator who invoked the command.
    public var message: String

    /// An error with `code` and `message`.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// `INVALID_REQUEST`: malformed or oversized parameters (upstream's answer to both).
    public static func invalidRequest(_ message: String) -> NodeInvokeError {
        NodeInvokeError(code: "INVALID_REQUEST", message: message)
    }

    /// `UNAVAILABLE`: the command is not offered, or it cannot run now.
    public static func unavailable(_ message: String) -> NodeInvokeError {
        NodeInvokeError(code: "UNAVAILABLE", message: message)
    }

    /// `TIMEOUT`: the invoke's budget ran out while it ran.
    public static func timeout(_ message: String) -> NodeInvokeError {
        NodeInvokeError(code: "TIMEOUT", message: message)
    }

    /// Upstream's answer to a command it does not have: `UNAVAILABLE "command not supported"`
    /// (upstream `src/node-host/invoke.ts`).
    public static let commandNotSupported = NodeInvokeError.unavailable("command not supported")
}

/// A parsed `node.invoke.request` event.
public struct NodeInvokeRequest: Sendable, Equatable {
    /// The invoke id the result must carry.
    public var id: String
    /// The node id the gateway addressed (echoed in the result).
    public var nodeId: String
    /// The command name, e.g. `device.status`.
    public var command: String
    /// The parameters as JSON text: `paramsJSON`, or the `params` object serialized.
    public var paramsJSON: String?
    /// The remaining budget in milliseconds, when the gateway gave one (clamped to ≥ 0).
    public var timeoutMs: Int64?
    /// The gateway's idempotency key: a retried invoke with the same key is not run twice.
    public var idempotencyKey: String?

    /// A request with these members.
    public init(id: String, nodeId: String, command: String, paramsJSON: String? = nil, timeoutMs: Int64? = nil,
                idempotencyKey: String? = nil) {
        self.id = id
        self.nodeId = nodeId
        self.command = command
        self.paramsJSON = paramsJSON
        self.timeoutMs = timeoutMs
        self.idempotencyKey = idempotencyKey
    }

    /// Why an invoke payload was refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// No usable id or node id: there is nobody to answer, the payload is dropped.
        case unanswerable(String)
        /// Answerable, but refused with this error (the result carries it).
        case answered(id: String, nodeId: String, NodeInvokeError)
    }

    /// Reads a `node.invoke.request` payload. Strings are trimmed as upstream's
    /// `coerceNodeInvokePayload` does; `params` given as an object is accepted in place of
    /// `paramsJSON`; every field and the parameters are checked against `limits` first.
    public static func parse(_ payload: JSONValue?, limits: NodeInvokeLimits = .default) -> Result<NodeInvokeRequest, Refusal> {
        guard let payload, case .object = payload else { return .failure(.unanswerable("the payload is not an object")) }
        func field(_ name: String) -> String? {
            guard let raw = payload[name]?.stringValue, raw.utf8.count <= limits.maxFieldBytes else { return nil }
            let trimmed = raw.trimmingWhitespace()
            return trimmed.isEmpty ? nil : trimmed
        }
        guard let id = field("id") else { return .failure(.unanswerable("no usable invoke id")) }
        guard let nodeId = field("nodeId") else { return .failure(.unanswerable("no usable node id")) }
        func refuse(_ message: String) -> Result<NodeInvokeRequest, Refusal> {
            .failure(.answered(id: id, nodeId: nodeId, .invalidRequest(message)))
        }
        guard let command = field("command") else { return refuse("command required") }
        var paramsJSON: String?
        if let raw = payload["paramsJSON"], !raw.isNull {
            guard let text = raw.stringValue else { return refuse("paramsJSON must be a string") }
            guard text.utf8.count <= limits.maxParamsBytes else {
                return refuse("params larger than \(limits.maxParamsBytes) bytes")
            }
            paramsJSON = text
        } else if let params = payload["params"], !params.isNull {
            let text = params.compact()
            guard text.utf8.count <= limits.maxParamsBytes else {
                return refuse("params larger than \(limits.maxParamsBytes) bytes")
            }
            paramsJSON = text
        }
        var timeoutMs: Int64?
        if let raw = payload["timeoutMs"], !raw.isNull {
            guard let number = raw.doubleValue, number.isFinite else { return refuse("timeoutMs must be a number") }
            timeoutMs = number <= 0 ? 0 : (number >= 9.0e15 ? Int64(9.0e15) : Int64(number.rounded(.down)))
        }
        var key: String?
        if let raw = payload["idempotencyKey"], !raw.isNull {
            guard let text = raw.stringValue else { return refuse("idempotencyKey must be a string") }
            guard text.utf8.count <= limits.maxFieldBytes else {
                return refuse("idempotencyKey longer than \(limits.maxFieldBytes) bytes")
            }
            key = text.isEmpty ? nil : text
        }
        return .success(NodeInvokeRequest(id: id, nodeId: nodeId, command: command, paramsJSON: paramsJSON,
                                          timeoutMs: timeoutMs, idempotencyKey: key))
    }
}

/// A parsed `node.invoke.cancel` event: the gateway gave up on `invokeId`.
public struct NodeInvokeCancel: Sendable, Equatable {
    /// The invoke to abort.
    public var invokeId: String
    /// The node id the gateway addressed.
    public var nodeId: String

    /// A cancel of `invokeId`.
    public init(invokeId: String, nodeId: String) {
        self.invokeId = invokeId
        self.nodeId = nodeId
    }

    /// Reads a `node.invoke.cancel` payload, or `nil` when it names no invoke.
    public static func parse(_ payload: JSONValue?, limits: NodeInvokeLimits = .default) -> NodeInvokeCancel? {
        guard let invokeId = payload?["invokeId"]?.stringValue, let nodeId = payload?["nodeId"]?.stringValue,
              !invokeId.isEmpty, invokeId.utf8.count <= limits.maxFieldBytes, nodeId.utf8.count <= limits.maxFieldBytes
        else { return nil }
        return NodeInvokeCancel(invokeId: invokeId.trimmingWhitespace(), nodeId: nodeId)
    }
}

/// How an invoke ended: a payload (or none) or an error.
public enum NodeInvokeOutcome: Sendable, Equatable {
    /// Success; the payload is sent as `payloadJSON` (omitted when `nil`).
    case success(JSONValue?)
    /// Failure with an upstream error code.
    case failure(NodeInvokeError)
}

/// The params of a `node.invoke.result` request for one invoke.
public struct NodeInvokeResult: Sendable, Equatable {
    /// The invoke id answered.
    public var id: String
    /// The node id the request named.
    public var nodeId: String
    /// How it ended.
    public var outcome: NodeInvokeOutcome

    /// The result of invoke `id`.
    public init(id: String, nodeId: String, outcome: NodeInvokeOutcome) {
        self.id = id
        self.nodeId = nodeId
        self.outcome = outcome
    }

    /// The request params: `{id, nodeId, ok, payloadJSON?}` or `{id, nodeId, ok:false, error:{code, message}}`.
    /// Upstream always answers with `payloadJSON`, a string (§2.4).
    public var params: JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(id)), ("nodeId", .string(nodeId))]
        switch outcome {
        case .success(let payload):
            members.append(("ok", .bool(true)))
            if let payload { members.append(("payloadJSON", .string(payload.compact()))) }
        case .failure(let error):
            members.append(("ok", .bool(false)))
            members.append(("error", .object([("code", .string(error.code)), ("message", .string(error.message))])))
        }
        return .object(members)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
