// Incremental RFC 6455 §5.2 frame decoder: a value-type state machine with no I/O.
//
// Bytes go in with `append`, frames come out of `next()`. The header is parsed as soon as its
// bytes are there, and the declared payload length is checked against `maxFramePayloadSize`
// (and control frames against 125) before any payload is waited for, so a hostile length can
// never make the decoder buffer more than one limit's worth. Every header rule of §5.2 is
// checked: reserved bits and opcodes, FIN on control frames, minimal length encodings, the
// 64-bit high bit, and the masking direction. Errors are sticky: after one, `next()` throws it
// again, since the stream can no longer be framed.

/// Decodes a byte stream into frames.
public struct WebSocketFrameDecoder: Sendable {
    /// Which end of the connection the decoder runs at, which fixes the masking rule (§5.1).
    public enum Role: Sendable, Equatable {
        /// Decodes frames sent by a server: they must not be masked.
        case client
        /// Decodes frames sent by a client: they must be masked.
        case server
    }

    /// Default `maxFramePayloadSize`: 25 MiB, an OpenClaw gateway's `policy.maxPayload`.
    public static let defaultMaxFramePayloadSize = 25 << 20
    /// The largest control frame payload (§5.5).
    public static let maxControlPayloadSize = 125

    /// The role this decoder checks masking for.
    public let role: Role
    /// The largest payload accepted in one frame; a larger declared length fails before buffering.
    public internal(set) var maxFramePayloadSize: Int

    private struct Header: Sendable {
        var fin: Bool
        var reservedBits: UInt8
        var opcode: WebSocketOpcode
        var maskingKey: WebSocketMaskingKey?
        var length: Int
        var headerSize: Int
    }

    private enum State: Sendable {
        case awaitingHeader
        case awaitingPayload(Header)
        case failed(WebSocketProtocolError)
    }

    private var state: State = .awaitingHeader
    private var buffer: [UInt8] = []
    private var readIndex = 0

    /// A decoder for `role`, refusing frames whose payload exceeds `maxFramePayloadSize` bytes
    /// (default ``defaultMaxFramePayloadSize``; must be at least 125).
    public init(role: Role, maxFramePayloadSize: Int = WebSocketFrameDecoder.defaultMaxFramePayloadSize) {
        precondition(maxFramePayloadSize >= Self.maxControlPayloadSize, "the frame limit must admit control frames")
        self.role = role
        self.maxFramePayloadSize = maxFramePayloadSize
    }

    /// Bytes received but not yet returned as part of a frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes. Call `next()` until it returns nil after each append.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .awaitingHeader:
                let header: Header?
                do {
                    header = try parseHeader()
                } catch {
                    state = .failed(error)
                    throw error
                }
                guard let header else { return nil }
                readIndex += header.headerSize
                state = .awaitingPayload(header)
            case .awaitingPayload(let header):
                guard bufferedByteCount >= header.length else { return nil }
                var payload = Array(buffer[readIndex..<(readIndex + header.length)])
                readIndex += header.length
                header.maskingKey?.apply(to: &payload)
                state = .awaitingHeader
                return WebSocketFrame(fin: header.fin, reservedBits: header.reservedBits, opcode: header.opcode,
                                      payload: payload)
            }
        }
    }

    /// Parses the header at `readIndex` without consuming it; nil when incomplete.
    private func parseHeader() throws(WebSocketProtocolError) -> Header? {
        let available = bufferedByteCount
        guard available >= 2 else { return nil }
        let b0 = buffer[readIndex], b1 = buffer[readIndex + 1]
        let fin = b0 & 0x80 != 0
        let reservedBits = (b0 >> 4) & 0x7
        guard reservedBits == 0 else { throw .reservedBitsSet(reservedBits) }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else { throw .unknownOpcode(b0 & 0x0F) }
        let masked = b1 & 0x80 != 0
        let shortLength = b1 & 0x7F
        if opcode.isControl {
            guard fin else { throw .fragmentedControlFrame(opcode) }
        }
        switch (role, masked) {
        case (.client, true): throw .maskedFrameFromServer
        case (.server, false): throw .unmaskedFrameFromClient
        case (.client, false), (.server, true): break
        }

        var offset = 2
        let length: UInt64
        switch shortLength {
        case 126:
            guard available >= offset + 2 else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            offset += 2
            guard length >= 126 else { throw .nonMinimalLength(length) }
        case 127:
            guard available >= offset + 8 else { return nil }
            var value: UInt64 = 0
            for i in 0..<8 { value = value << 8 | UInt64(buffer[readIndex + 2 + i]) }
            offset += 8
            guard value & (1 << 63) == 0 else { throw .lengthHighBitSet }
            guard value > 0xFFFF else { throw .nonMinimalLength(value) }
            length = value
        default:
            length = UInt64(shortLength)
        }
        // Checked once the extended length is read, so the error carries the frame's true size.
        guard !opcode.isControl || length <= UInt64(Self.maxControlPayloadSize) else {
            throw .controlFrameTooLong(opcode, length: Int(clamping: length))
        }
        guard length <= UInt64(maxFramePayloadSize) else { throw .frameTooLarge(length: length, limit: maxFramePayloadSize) }

        var maskingKey: WebSocketMaskingKey?
        if masked {
            guard available >= offset + 4 else { return nil }
            let base = readIndex + offset
            maskingKey = WebSocketMaskingKey(buffer[base], buffer[base + 1], buffer[base + 2], buffer[base + 3])
            offset += 4
        }
        return Header(fin: fin, reservedBits: reservedBits, opcode: opcode, maskingKey: maskingKey,
                      length: Int(length), headerSize: offset)
    }
}
