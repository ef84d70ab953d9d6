// RFC 6455 §5.4–§5.6: frames → messages. The layer above the frame decoder that owns
// fragmentation: it joins continuation frames, refuses interleaving, bounds the message size
// (checked before each fragment is appended) and the fragment count, validates UTF-8 on text
// (§8.1) and parses close frames (§5.5.1, §7.4). Control frames pass through between fragments.

/// A complete message or a control frame, as the application sees them.
public enum WebSocketInboundEvent: Sendable, Equatable {
    /// A complete text message (valid UTF-8).
    case text(String)
    /// A complete binary message.
    case binary([UInt8])
    /// A ping with its application data; the peer expects a pong with the same data.
    case ping([UInt8])
    /// A pong with its application data.
    case pong([UInt8])
    /// The peer's close frame: its status, or nil when the frame was empty (code 1005).
    case close(WebSocketCloseStatus?)
}

/// Assembles frames into messages.
public struct WebSocketMessageAssembler: Sendable {
    /// Default `maxMessageSize`: 25 MiB, an OpenClaw gateway's `policy.maxPayload`.
    public static let defaultMaxMessageSize = 25 << 20
    /// Default `maxFragmentCount`: 1024 fragments per message.
    public static let defaultMaxFragmentCount = 1024

    /// The largest assembled message, in bytes.
    public internal(set) var maxMessageSize: Int
    /// The most frames one message may span.
    public let maxFragmentCount: Int

    private var partialOpcode: WebSocketOpcode?
    private var partial: [UInt8] = []
    private var fragments = 0

    /// An assembler with the given limits (defaults ``defaultMaxMessageSize`` and
    /// ``defaultMaxFragmentCount``).
    public init(maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize,
                maxFragmentCount: Int = WebSocketMessageAssembler.defaultMaxFragmentCount) {
        precondition(maxMessageSize >= 0 && maxFragmentCount >= 1, "limits must be positive")
        self.maxMessageSize = maxMessageSize
        self.maxFragmentCount = maxFragmentCount
    }

    /// Whether a fragmented message is in progress.
    public var isAssembling: Bool { partialOpcode != nil }

    /// Feeds one decoded frame; returns an event when the frame completes a message or is a
    /// control frame, nil for a non-final fragment.
    public mutating func receive(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketInboundEvent? {
        switch frame.opcode {
        case .ping:
            return .ping(frame.payload)
        case .pong:
            return .pong(frame.payload)
        case .close:
            return .close(try Self.parseClose(frame.payload))
        case .text, .binary:
            guard partialOpcode == nil else { throw .messageInterleaved }
            guard frame.payload.count <= maxMessageSize else {
                throw .messageTooLarge(size: frame.payload.count, limit: maxMessageSize)
            }
            if frame.fin { return try Self.complete(frame.opcode, frame.payload) }
            guard maxFragmentCount > 1 else { throw .tooManyFragments(limit: maxFragmentCount) }
            partialOpcode = frame.opcode
            partial = frame.payload
            fragments = 1
            return nil
        case .continuation:
            guard let opcode = partialOpcode else { throw .unexpectedContinuation }
            let size = partial.count + frame.payload.count
            guard size <= maxMessageSize else { throw .messageTooLarge(size: size, limit: maxMessageSize) }
            guard fragments < maxFragmentCount else { throw .tooManyFragments(limit: maxFragmentCount) }
            partial.append(contentsOf: frame.payload)
            fragments += 1
            guard frame.fin else { return nil }
            let payload = partial
            partialOpcode = nil
            partial = []
            fragments = 0
            return try Self.complete(opcode, payload)
        }
    }

    private static func complete(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketInboundEvent {
        guard opcode == .text else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else { throw .invalidUTF8 }
        return .text(text)
    }

    /// Parses a close frame payload (§5.5.1): empty, or a valid code plus a UTF-8 reason.
    static func parseClose(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketCloseStatus? {
        if payload.isEmpty { return nil }
        guard payload.count >= 2 else { throw .closePayloadTooShort }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnWire else { throw .invalidCloseCode(code.rawValue) }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        return WebSocketCloseStatus(code: code, reason: reason)
    }
}
