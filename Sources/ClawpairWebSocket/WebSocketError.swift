import ClawpairCore

/// A peer broke RFC 6455 framing or messaging rules, or exceeded a configured limit. Each case
/// maps to the close code an endpoint answers it with (`closeCode`).
public enum WebSocketProtocolError: Error, Sendable, Equatable {
    /// RSV1–RSV3 were set (the bits, low three) although no extension was negotiated (§5.2).
    case reservedBitsSet(UInt8)
    /// A reserved opcode (0x3–0x7, 0xB–0xF) (§5.2).
    case unknownOpcode(UInt8)
    /// A control frame without FIN (§5.5).
    case fragmentedControlFrame(WebSocketOpcode)
    /// A control frame with more than 125 payload bytes (§5.5).
    case controlFrameTooLong(WebSocketOpcode, length: Int)
    /// A 16- or 64-bit payload length that fits in a shorter form (§5.2: "the minimal number of
    /// bytes MUST be used").
    case nonMinimalLength(UInt64)
    /// A 64-bit payload length with the most significant bit set (§5.2).
    case lengthHighBitSet
    /// The declared frame payload exceeds the decoder's `maxFramePayloadSize`; nothing of it was buffered.
    case frameTooLarge(length: UInt64, limit: Int)
    /// A server sent a masked frame (§5.1: the client must fail the connection).
    case maskedFrameFromServer
    /// A client sent an unmasked frame (§5.1).
    case unmaskedFrameFromClient
    /// A continuation frame arrived with no message in progress (§5.4).
    case unexpectedContinuation
    /// A new text or binary frame arrived while a fragmented message was in progress (§5.4).
    case messageInterleaved
    /// The message would exceed the assembler's `maxMessageSize` (bytes so far plus this frame).
    case messageTooLarge(size: Int, limit: Int)
    /// The message would need more fragments than `maxFragmentCount`.
    case tooManyFragments(limit: Int)
    /// A text message, or a close reason, is not valid UTF-8 (§8.1).
    case invalidUTF8
    /// A close frame with a one-byte payload (§5.5.1).
    case closePayloadTooShort
    /// A close frame carrying a code that may not be sent (§7.4).
    case invalidCloseCode(UInt16)

    /// The close code an endpoint sends when failing the connection for this error (§7.4.1).
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .invalidUTF8: return .invalidPayloadData
        case .frameTooLarge, .messageTooLarge, .tooManyFragments: return .messageTooBig
        default: return .protocolError
        }
    }
}

extension WebSocketProtocolError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .reservedBitsSet(let bits): return "WebSocket frame has reserved bits set (0b\(String(bits, radix: 2))) without a negotiated extension"
        case .unknownOpcode(let op): return "WebSocket frame has the reserved opcode 0x\(String(op, radix: 16))"
        case .fragmentedControlFrame(let op): return "WebSocket \(op) frame is fragmented (control frames may not be)"
        case .controlFrameTooLong(let op, let length): return "WebSocket \(op) frame carries \(length) bytes (control frames carry at most 125)"
        case .nonMinimalLength(let length): return "WebSocket frame length \(length) is not in its shortest encoding"
        case .lengthHighBitSet: return "WebSocket frame has a 64-bit length with the high bit set"
        case .frameTooLarge(let length, let limit): return "WebSocket frame of \(length) bytes exceeds the limit of \(limit) bytes"
        case .maskedFrameFromServer: return "the server sent a masked WebSocket frame"
        case .unmaskedFrameFromClient: return "the client sent an unmasked WebSocket frame"
        case .unexpectedContinuation: return "WebSocket continuation frame without a message in progress"
        case .messageInterleaved: return "new WebSocket message started before the previous fragmented one ended"
        case .messageTooLarge(let size, let limit): return "WebSocket message of \(size)+ bytes exceeds the limit of \(limit) bytes"
        case .tooManyFragments(let limit): return "WebSocket message has more than \(limit) fragments"
        case .invalidUTF8: return "WebSocket text is not valid UTF-8"
        case .closePayloadTooShort: return "WebSocket close frame has a one-byte payload"
        case .invalidCloseCode(let code): return "WebSocket close frame carries the code \(code), which may not be sent"
        }
    }
}

/// Why the opening handshake (RFC 6455 §4.1, client side) failed.
public enum WebSocketHandshakeError: Error, Sendable, Equatable {
    /// The response head is not well-formed HTTP/1.x (the detail says where).
    case malformedResponse(String)
    /// The response head exceeds `maxHeadBytes` without ending.
    case responseHeadTooLarge(limit: Int)
    /// More header fields than `maxHeaderCount`.
    case tooManyHeaders(limit: Int)
    /// The status is not 101 Switching Protocols (the server may be a plain HTTP server).
    case unexpectedStatus(code: Int, reason: String)
    /// `Upgrade: websocket` is missing or different (the value seen, if any).
    case missingUpgradeHeader(String?)
    /// `Connection` does not contain the `Upgrade` token (the value seen, if any).
    case missingConnectionUpgrade(String?)
    /// `Sec-WebSocket-Accept` is missing or does not match the key we sent (the value seen).
    case acceptMismatch(String?)
    /// The server selected an extension we did not offer.
    case unexpectedExtension(String)
    /// The server selected a subprotocol we did not offer.
    case unexpectedSubprotocol(String)
    /// The connection closed before the response head ended (bytes received so far).
    case closedBeforeResponse(receivedBytes: Int)
}

extension WebSocketHandshakeError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .malformedResponse(let detail): return "not an HTTP response: \(detail)"
        case .responseHeadTooLarge(let limit): return "HTTP response head exceeds \(limit) bytes"
        case .tooManyHeaders(let limit): return "HTTP response has more than \(limit) header fields"
        case .unexpectedStatus(let code, let reason):
            return "HTTP \(code)\(reason.isEmpty ? "" : " " + reason) instead of 101 Switching Protocols"
        case .missingUpgradeHeader(let value): return "response lacks 'Upgrade: websocket'" + (value.map { " (got '\($0)')" } ?? "")
        case .missingConnectionUpgrade(let value): return "response lacks 'Connection: Upgrade'" + (value.map { " (got '\($0)')" } ?? "")
        case .acceptMismatch(let value): return "Sec-WebSocket-Accept " + (value.map { "'\($0)' does not match the key sent" } ?? "is missing")
        case .unexpectedExtension(let value): return "server chose the extension '\(value)', which was not offered"
        case .unexpectedSubprotocol(let value): return "server chose the subprotocol '\(value)', which was not offered"
        case .closedBeforeResponse(let count): return "connection closed after \(count) bytes, before the HTTP response ended"
        }
    }
}

extension WebSocketStateError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String { "the WebSocket connection is closing; nothing more can be sent" }
}
