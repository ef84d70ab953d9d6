// RFC 6455 §5.2 frame encoding: the shortest length form, and the client's mask (§5.3).

/// Serializes frames.
public enum WebSocketFrameEncoder {
    /// The wire bytes of `frame`, masked with `maskingKey` when one is given (clients must mask
    /// every frame; servers must not).
    public static func encode(_ frame: WebSocketFrame, maskingKey: WebSocketMaskingKey?) -> [UInt8] {
        var out: [UInt8] = []
        let count = frame.payload.count
        out.reserveCapacity(count + 14)
        out.append((frame.fin ? 0x80 : 0) | (frame.reservedBits & 0x7) << 4 | frame.opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if count < 126 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(truncatingIfNeeded: count >> 8))
            out.append(UInt8(truncatingIfNeeded: count))
        } else {
            out.append(maskBit | 127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        }
        if let maskingKey {
            out.append(maskingKey.bytes.0)
            out.append(maskingKey.bytes.1)
            out.append(maskingKey.bytes.2)
            out.append(maskingKey.bytes.3)
            let start = out.count
            out.append(contentsOf: frame.payload)
            for i in 0..<count { out[start + i] ^= maskingKey.byte(at: i) }
        } else {
            out.append(contentsOf: frame.payload)
        }
        return out
    }

    /// The payload of a close frame: the code big-endian, then the reason as UTF-8, cut to the
    /// 123 bytes a control frame leaves for it (on a character boundary). `nil` gives an empty payload.
    public static func closePayload(_ status: WebSocketCloseStatus?) -> [UInt8] {
        guard let status else { return [] }
        var out: [UInt8] = [UInt8(truncatingIfNeeded: status.code.rawValue >> 8), UInt8(truncatingIfNeeded: status.code.rawValue)]
        var reason: [UInt8] = []
        for character in status.reason {
            let bytes = Array(String(character).utf8)
            if reason.count + bytes.count > WebSocketFrameDecoder.maxControlPayloadSize - 2 { break }
            reason.append(contentsOf: bytes)
        }
        out.append(contentsOf: reason)
        return out
    }
}
