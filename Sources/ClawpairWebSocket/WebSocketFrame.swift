// RFC 6455 §5: frames, opcodes, masking keys and close status codes.
//
// Checklist, adding an opcode or close code the wire may carry:
// 1. add the case to `WebSocketOpcode` (or the range to `WebSocketCloseCode.isValidOnWire`);
// 2. teach `WebSocketFrameDecoder.parseHeader` and `WebSocketMessageAssembler.receive` about it;
// 3. add a byte-level case to `FrameDecoderTests` and a seed to `Fuzz/seeds/FuzzWebSocketFrames`.

/// A frame opcode (RFC 6455 §5.2). Data opcodes are 0x0–0x2, control opcodes 0x8–0xA; the
/// reserved values 0x3–0x7 and 0xB–0xF are refused by the decoder.
public enum WebSocketOpcode: UInt8, Sendable, CaseIterable {
    /// A non-first fragment of a message.
    case continuation = 0x0
    /// The first (or only) frame of a UTF-8 text message.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// Starts or answers the closing handshake (§5.5.1).
    case close = 0x8
    /// A keep-alive probe the peer must answer with a pong (§5.5.2).
    case ping = 0x9
    /// The answer to a ping, or an unsolicited heartbeat (§5.5.3).
    case pong = 0xA

    /// Whether this is a control opcode (close, ping, pong): never fragmented, at most 125 bytes.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// The 4-byte key a client masks every frame with (RFC 6455 §5.3).
public struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key bytes, applied in order to payload byte `i` as `key[i % 4]`.
    public let bytes: (UInt8, UInt8, UInt8, UInt8)

    /// A key from four bytes.
    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        bytes = (b0, b1, b2, b3)
    }

    /// A fresh key from the system's CSPRNG, as §5.3 requires ("unpredictable").
    public static func random() -> WebSocketMaskingKey {
        var generator = SystemRandomNumberGenerator()
        let word = generator.next() as UInt32
        return WebSocketMaskingKey(UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8),
                                   UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24))
    }

    /// The key byte for payload offset `index`.
    @inline(__always)
    func byte(at index: Int) -> UInt8 {
        switch index & 3 {
        case 0: return bytes.0
        case 1: return bytes.1
        case 2: return bytes.2
        default: return bytes.3
        }
    }

    /// XORs `payload` with the key (masking and unmasking are the same operation), starting at
    /// key offset `offset`.
    func apply(to payload: inout [UInt8], offset: Int = 0) {
        for index in payload.indices { payload[index] ^= byte(at: index &+ offset) }
    }

    /// Equal when every member is.
    public static func == (lhs: WebSocketMaskingKey, rhs: WebSocketMaskingKey) -> Bool {
        lhs.bytes == rhs.bytes
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
        hasher.combine(bytes.2)
        hasher.combine(bytes.3)
    }
}

/// One frame, with its payload already unmasked.
public struct WebSocketFrame: Sendable, Equatable {
    /// Whether this is the final fragment of a message (always true for control frames).
    public var fin: Bool
    /// RSV1–RSV3 as the low three bits (RSV1 = 0b100). Non-zero only with a negotiated extension;
    /// this codec negotiates none, so the decoder refuses non-zero values.
    public var reservedBits: UInt8
    /// The opcode.
    public var opcode: WebSocketOpcode
    /// The application data, unmasked.
    public var payload: [UInt8]

    /// A frame with the given fields.
    public init(fin: Bool = true, reservedBits: UInt8 = 0, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.reservedBits = reservedBits
        self.opcode = opcode
        self.payload = payload
    }
}

/// A close status code (RFC 6455 §7.4) as carried in the first two bytes of a close frame.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The raw value, as on the wire.
    public let rawValue: UInt16
    /// The value with this raw value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page navigation).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: no status code was present (never sent on the wire).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection closed without a close frame (never sent on the wire).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a text message was not UTF-8, or similar inconsistent data.
    public static let invalidPayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a policy violation (OpenClaw gateways use it for auth and pairing refusals).
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether the code may appear in a close frame (§7.4.1, §7.4.2; IANA registry): 1000–1003,
    /// 1007–1014 and 3000–4999. 1004, 1005, 1006 and 1015 are reserved for local use, and
    /// everything below 1000 or in 1016–2999 is unassigned.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// A readable form, for messages and logs.
    public var description: String { String(rawValue) }
}

/// Why a connection closed: the peer's (or our) close code and reason.
public struct WebSocketCloseStatus: Sendable, Equatable {
    /// The close code; `noStatusReceived` when the close frame was empty, `abnormalClosure`
    /// when the transport closed without one.
    public var code: WebSocketCloseCode
    /// The UTF-8 reason text (at most 123 bytes on the wire), possibly empty.
    public var reason: String

    /// A status with `code` and `reason`.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}
