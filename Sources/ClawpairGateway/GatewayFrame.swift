// Gateway RPC frames (`identity-and-handshake.md` §3): one JSON object per WebSocket text
// message. Requests go out; responses, events (and, from newer gateways, cancels) come in.
//
// Decoding is bounded (`maxBytes`, nesting depth) and strict about the fields it uses: a frame
// whose `type` is unknown, or whose `id`/`ok`/`event` has the wrong type, is a protocol
// violation. Fields this toolkit does not use are ignored (a newer gateway may add them).
//
// Checklist, adding a frame type: a case in `GatewayFrame`, a branch in `decode`, a unit case
// in `GatewayFrameTests`, and a seed in `Fuzz/seeds.py` for the frame fuzzer.

import ClawpairCore

/// `ErrorShape`: what a failed response carries.
public struct GatewayErrorShape: Sendable, Equatable {
    /// The top-level code (`NOT_PAIRED`, `INVALID_REQUEST`, `UNAVAILABLE`, …).
    public var code: String
    /// The gateway's message (untrusted text: sanitize before printing).
    public var message: String
    /// Structured details; `details.code` is the stable detail code clients key on.
    public var details: JSONValue?
    /// Whether the request may be retried.
    public var retryable: Bool?
    /// How long to wait before retrying, in ms, when the gateway says.
    public var retryAfterMs: Int64?

    /// An error shape with these members.
    public init(code: String, message: String, details: JSONValue? = nil, retryable: Bool? = nil, retryAfterMs: Int64? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.retryable = retryable
        self.retryAfterMs = retryAfterMs
    }

    /// `details.code`, when present.
    public var detailCode: String? { details?["code"]?.stringValue }

    /// The scope a method call lacked: `details.missingScope` of a `MISSING_SCOPE` detail
    /// (2026.10: top-level `FORBIDDEN`), else the scope of an older gateway's message
    /// `missing scope: <scope>` (`INVALID_REQUEST`), as upstream's `readMissingScopeError`
    /// reads it (`packages/gateway-protocol/src/gateway-error-details.ts`); nil otherwise.
    /// Either way only a scope name is taken (``isScopeName(_:)``): a detail that is none falls
    /// back to the message.
    public var missingScope: String? {
        if detailCode == "MISSING_SCOPE", let scope = details?["missingScope"]?.stringValue, Self.isScopeName(scope) { return scope }
        let prefix = "missing scope:"
        guard message.hasPrefix(prefix) else { return nil }
        var scope = message.dropFirst(prefix.count)
        while scope.first == " " { scope = scope.dropFirst() }
        while scope.last == " " { scope = scope.dropLast() }
        return Self.isScopeName(scope) ? String(scope) : nil
    }

    /// `details.requiredScopes` of a `MISSING_SCOPE` detail (the scopes any one of which allows
    /// the call), scope names only, at most 16; empty otherwise.
    public var requiredScopes: [String] {
        guard detailCode == "MISSING_SCOPE" else { return [] }
        return (details?["requiredScopes"]?.arrayValue ?? []).compactMap(\.stringValue).filter { Self.isScopeName($0) }.prefix(16).map { $0 }
    }

    /// Whether `text` can be a scope name (upstream's are dotted words such as `operator.admin`):
    /// 1…128 bytes without whitespace or a control character. A peer's "scope" that is not one
    /// never reaches a message or hint as if it were (the text around it would read as clawpair's).
    static func isScopeName(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && !text.unicodeScalars.contains { scalar in
            scalar.properties.isWhitespace || scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
    }

    /// The object form, as the gateway sent it (for JSON error reports).
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("code", .string(code)), ("message", .string(message))]
        if let details { members.append(("details", details)) }
        if let retryable { members.append(("retryable", .bool(retryable))) }
        if let retryAfterMs { members.append(("retryAfterMs", .int(retryAfterMs))) }
        return .object(members)
    }
}

/// One decoded frame.
public enum GatewayFrame: Sendable, Equatable {
    /// `{"type":"res","id","ok","payload"?,"error"?}`.
    case response(id: String, ok: Bool, payload: JSONValue?, error: GatewayErrorShape?)
    /// `{"type":"event","event","payload"?,"seq"?}`.
    case event(name: String, payload: JSONValue?, seq: Int64?)
    /// `{"type":"req","id","method","params"?}` (servers do not send these to clients today).
    case request(id: String, method: String, params: JSONValue?)
    /// `{"type":"cancel","id"}` (newer gateways).
    case cancel(id: String)
}

/// Why a message is not a valid frame.
public enum GatewayFrameError: Error, Sendable, Equatable {
    /// Longer than the limit in force.
    case tooLarge(size: Int, limit: Int)
    /// Not JSON (the parser's reason).
    case notJSON(String)
    /// JSON, but not an object.
    case notObject
    /// `type` is missing or not one of req/res/event/cancel.
    case unknownType(String?)
    /// A required field is missing or has the wrong type.
    case badField(String, expected: String)
}

extension GatewayFrameError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .tooLarge(let size, let limit): return "a \(size)-byte frame exceeds the \(limit)-byte limit"
        case .notJSON(let reason): return "a frame is not JSON (\(reason))"
        case .notObject: return "a frame is not a JSON object"
        case .unknownType(let type):
            return type.map { "a frame has the unknown type '\(TerminalText.sanitize($0, maxScalars: 32))'" } ?? "a frame has no type"
        case .badField(let field, let expected): return "a frame's '\(field)' is missing or not \(expected)"
        }
    }
}

/// Encoding and decoding of frames.
public enum GatewayFrames {
    /// Frames before `connect` succeeds are capped at 64 KiB (the gateway's pre-auth limit).
    public static let preConnectMaxBytes = 64 * 1024
    /// The largest nesting accepted in a frame.
    public static let maxDepth = 64

    /// Decodes one text message of at most `maxBytes` UTF-8 bytes.
    public static func decode(_ text: String, maxBytes: Int) throws(GatewayFrameError) -> GatewayFrame {
        let size = text.utf8.count
        guard size <= maxBytes else { throw .tooLarge(size: size, limit: maxBytes) }
        let json: JSONValue
        do {
            json = try JSONValue.parse(text, limits: JSONLimits(maxInputBytes: maxBytes, maxDepth: maxDepth,
                                                                maxStringBytes: maxBytes))
        } catch {
            throw .notJSON(error.description)
        }
        guard case .object = json else { throw .notObject }
        func string(_ key: String) throws(GatewayFrameError) -> String {
            guard let value = json[key]?.stringValue else { throw .badField(key, expected: "a string") }
            return value
        }
        func optional(_ key: String) -> JSONValue? {
            guard let value = json[key], !value.isNull else { return nil }
            return value
        }
        switch json["type"]?.stringValue {
        case "res":
            let id = try string("id")
            guard let ok = json["ok"]?.boolValue else { throw .badField("ok", expected: "a Boolean") }
            var error: GatewayErrorShape?
            if let shape = optional("error") {
                error = try errorShape(shape)
            } else if !ok {
                throw .badField("error", expected: "an ErrorShape on a failed response")
            }
            return .response(id: id, ok: ok, payload: optional("payload"), error: error)
        case "event":
            let name = try string("event")
            var seq: Int64?
            if let value = optional("seq") {
                guard let number = value.int64Value, number >= 0 else { throw .badField("seq", expected: "an integer ≥ 0") }
                seq = number
            }
            return .event(name: name, payload: optional("payload"), seq: seq)
        case "req":
            return .request(id: try string("id"), method: try string("method"), params: optional("params"))
        case "cancel":
            return .cancel(id: try string("id"))
        case let other:
            throw .unknownType(other)
        }
    }

    private static func errorShape(_ value: JSONValue) throws(GatewayFrameError) -> GatewayErrorShape {
        guard case .object = value else { throw .badField("error", expected: "an object") }
        guard let code = value["code"]?.stringValue else { throw .badField("error.code", expected: "a string") }
        let message = value["message"]?.stringValue ?? ""
        let details = value["details"].flatMap { $0.isNull ? nil : $0 }
        return GatewayErrorShape(code: code, message: message, details: details,
                                 retryable: value["retryable"]?.boolValue, retryAfterMs: value["retryAfterMs"]?.int64Value)
    }

    /// A request frame as compact JSON text. `params` is left out when nil.
    public static func request(id: String, method: String, params: JSONValue?) -> String {
        var members: [(String, JSONValue)] = [("type", "req"), ("id", .string(id)), ("method", .string(method))]
        if let params { members.append(("params", params)) }
        return JSONValue.object(members).compact()
    }
}
