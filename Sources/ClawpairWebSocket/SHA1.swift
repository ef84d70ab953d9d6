// SHA-1 (FIPS 180-4 §6.1), used for one thing only: the `Sec-WebSocket-Accept` check of the
// opening handshake (RFC 6455 §4.2.2 step 5.4). SHA-1 is not used for anything that needs
// collision resistance here; the value only proves the server read our key.
//
// Kept in this module so the codec depends on nothing but the standard library (the transport,
// which links OpenSSL, sits above it).

/// A minimal one-shot SHA-1.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func digest(_ message: some Collection<UInt8>) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        var block = [UInt8]()
        block.reserveCapacity(64)
        var schedule = [UInt32](repeating: 0, count: 80)

        func compress(_ chunk: [UInt8]) {
            for t in 0..<16 {
                schedule[t] = UInt32(chunk[4 * t]) << 24 | UInt32(chunk[4 * t + 1]) << 16
                    | UInt32(chunk[4 * t + 2]) << 8 | UInt32(chunk[4 * t + 3])
            }
            for t in 16..<80 {
                let x = schedule[t - 3] ^ schedule[t - 8] ^ schedule[t - 14] ^ schedule[t - 16]
                schedule[t] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = h
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ schedule[t]
                e = d
                d = c
                c = b << 30 | b >> 2
                b = a
                a = temp
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }

        var length: UInt64 = 0
        for byte in message {
            block.append(byte)
            length &+= 1
            if block.count == 64 {
                compress(block)
                block.removeAll(keepingCapacity: true)
            }
        }
        // Padding: 0x80, zeros to 56 mod 64, then the bit length big-endian.
        block.append(0x80)
        if block.count > 56 {
            block.append(contentsOf: repeatElement(0, count: 64 - block.count))
            compress(block)
            block.removeAll(keepingCapacity: true)
        }
        block.append(contentsOf: repeatElement(0, count: 56 - block.count))
        let bits = length &* 8
        for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        compress(block)

        var out = [UInt8]()
        out.reserveCapacity(20)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }
}
