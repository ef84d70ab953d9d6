// IPv4 and IPv6 addresses as A and AAAA records carry them, with strict text forms.

/// An IPv4 address (the body of an A record, RFC 1035 §3.4.1).
public struct IPv4Address: Sendable, Hashable, CustomStringConvertible {
    /// The address in host order: `10.0.0.1` is `0x0A000001`.
    public let value: UInt32

    /// The address whose 32 bits, in network order, are `value`.
    public init(_ value: UInt32) { self.value = value }

    /// The four bytes in network order.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 else { return nil }
        value = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }

    /// Strict dotted decimal: four parts of 1–3 digits, each ≤ 255, no leading zeros
    /// (`010.0.0.1` is refused: some parsers read it as octal).
    public init?(_ text: String) {
        guard let value = Self.parse(Array(text.utf8)[...]) else { return nil }
        self.value = value
    }

    static func parse(_ text: ArraySlice<UInt8>) -> UInt32? {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            if part.count > 1 && part.first == 48 { return nil }
            let number = part.reduce(UInt32(0)) { $0 * 10 + UInt32($1 - 48) }
            guard number <= 255 else { return nil }
            value = value << 8 | number
        }
        return value
    }

    /// The four bytes in network order.
    public var bytes: [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Whether the address is in `network`/`prefixLength`.
    public func isIn(_ network: IPv4Address, prefixLength: Int) -> Bool {
        guard prefixLength > 0 else { return true }
        let mask = prefixLength >= 32 ? UInt32.max : ~(UInt32.max >> UInt32(prefixLength))
        return value & mask == network.value & mask
    }

    /// Dotted decimal.
    public var description: String { bytes.map(String.init).joined(separator: ".") }
}

/// An IPv6 address (the body of an AAAA record, RFC 3596 §2.2).
public struct IPv6Address: Sendable, Hashable, CustomStringConvertible {
    /// The first and last 64 bits, in host order.
    public let high: UInt64
    /// The low 64 bits.
    public let low: UInt64

    /// The address of these two halves (network order).
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The sixteen bytes in network order.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// RFC 4291 §2.2 text: eight groups of 1–4 hex digits, one `::` for a run of zero groups, and
    /// optionally a dotted-quad IPv4 address as the last 32 bits. No zone index, no brackets.
    public init?(_ text: String) {
        guard let groups = Self.parse(Array(text.utf8)) else { return nil }
        high = groups[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        low = groups[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
    }

    private static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 48...57: return UInt32(c - 48)
        case 97...102: return UInt32(c - 87)
        case 65...70: return UInt32(c - 55)
        default: return nil
        }
    }

    private static func parse(_ s: [UInt8]) -> [UInt16]? {
        guard (2...45).contains(s.count) else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var compressed = false
        var i = 0
        let colon = UInt8(ascii: ":")
        if s[0] == colon {
            guard s[1] == colon else { return nil }
            compressed = true
            i = 2
        }
        while i < s.count {
            let start = i
            var value: UInt32 = 0
            var digits = 0
            while i < s.count, digits < 5, let h = hexValue(s[i]) {
                value = value << 4 | h
                digits += 1
                i += 1
            }
            if i < s.count, s[i] == UInt8(ascii: ".") {
                guard let v4 = IPv4Address.parse(s[start...]) else { return nil }
                let groups = [UInt16(v4 >> 16), UInt16(v4 & 0xFFFF)]
                if compressed { tail += groups } else { head += groups }
                i = s.count
                break
            }
            guard (1...4).contains(digits) else { return nil }
            if compressed { tail.append(UInt16(value)) } else { head.append(UInt16(value)) }
            if i == s.count { break }
            guard s[i] == colon else { return nil }
            i += 1
            guard i < s.count else { return nil }
            if s[i] == colon {
                guard !compressed else { return nil }
                compressed = true
                i += 1
            }
        }
        let count = head.count + tail.count
        if compressed {
            guard count <= 7 else { return nil }
            return head + Array(repeating: 0, count: 8 - count) + tail
        }
        return count == 8 ? head : nil
    }

    /// The sixteen bytes in network order.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8((high >> UInt64(56 - 8 * $0)) & 0xFF) } + (0..<8).map { UInt8((low >> UInt64(56 - 8 * $0)) & 0xFF) }
    }

    /// The eight 16-bit groups.
    public var groups: [UInt16] {
        (0..<4).map { UInt16((high >> UInt64(48 - 16 * $0)) & 0xFFFF) }
            + (0..<4).map { UInt16((low >> UInt64(48 - 16 * $0)) & 0xFFFF) }
    }

    /// Whether the address is in `network`/`prefixLength`.
    public func isIn(_ network: IPv6Address, prefixLength: Int) -> Bool {
        func masked(_ word: UInt64, _ bits: Int) -> UInt64 {
            bits <= 0 ? 0 : bits >= 64 ? word : word & ~(UInt64.max >> UInt64(bits))
        }
        return masked(high, prefixLength) == masked(network.high, prefixLength)
            && masked(low, prefixLength - 64) == masked(network.low, prefixLength - 64)
    }

    /// RFC 5952 canonical text: lowercase, no leading zeros, the longest run (the first, on a
    /// tie) of two or more zero groups as `::`, and IPv4-mapped addresses as `::ffff:a.b.c.d`.
    public var description: String {
        let g = groups
        if high == 0, low >> 32 == 0xFFFF {
            return "::ffff:" + IPv4Address(UInt32(low & 0xFFFF_FFFF)).description
        }
        var bestStart = -1, bestLength = 0, i = 0
        while i < 8 {
            if g[i] == 0 {
                var j = i
                while j < 8, g[j] == 0 { j += 1 }
                if j - i > bestLength && j - i >= 2 {
                    bestStart = i
                    bestLength = j - i
                }
                i = j
            } else {
                i += 1
            }
        }
        let hex = g.map { String($0, radix: 16) }
        guard bestStart >= 0 else { return hex.joined(separator: ":") }
        let left = hex[0..<bestStart].joined(separator: ":")
        let right = hex[(bestStart + bestLength)...].joined(separator: ":")
        return left + "::" + right
    }
}
