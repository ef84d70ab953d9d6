// IP address literals: WHATWG URL host forms (IPv4 numbers in decimal/octal/hex, IPv6 with `::`
// and an embedded dotted quad) and the strict dotted-decimal form the plaintext policy accepts.
//
// All parsers work on ASCII bytes, check every index, and cap number accumulation so that no
// input can overflow or trap.

/// IPv4 literals as 32-bit values.
enum IPv4Literal {
    /// Strict dotted decimal: exactly four parts of 1–3 digits, no leading zeros, each ≤ 255.
    /// `127.1`, `0x7f.0.0.1` and `010.0.0.1` are not accepted (they are DNS names to the policy,
    /// which then refuses them: an ambiguous literal never unlocks plaintext).
    static func parseStrict(_ text: [UInt8]) -> UInt32? {
        var value: UInt32 = 0
        var parts = 0
        var i = 0
        while parts < 4 {
            var part: UInt32 = 0
            var digits = 0
            let start = i
            while i < text.count, TextRules.isASCIIDigit(text[i]), digits < 4 {
                part = part * 10 + UInt32(text[i] - UInt8(ascii: "0"))
                digits += 1
                i += 1
            }
            guard digits >= 1, digits <= 3, part <= 255 else { return nil }
            if digits > 1 && text[start] == UInt8(ascii: "0") { return nil }
            value = value << 8 | part
            parts += 1
            if parts < 4 {
                guard i < text.count, text[i] == UInt8(ascii: ".") else { return nil }
                i += 1
            }
        }
        return i == text.count ? value : nil
    }

    /// WHATWG "ends in a number" checker: whether the host parser must treat `text` as IPv4.
    static func endsInNumber(_ text: [UInt8]) -> Bool {
        var parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if let last = parts.last, last.isEmpty {
            if parts.count == 1 { return false }
            parts.removeLast()
        }
        guard let last = parts.last else { return false }
        if !last.isEmpty && last.allSatisfy(TextRules.isASCIIDigit) { return true }
        return parseNumber(Array(last)) != nil
    }

    /// WHATWG IPv4 number parser: decimal, `0x` hex or leading-`0` octal. Values saturate just
    /// above 2^32 so huge inputs fail the range check instead of overflowing.
    static func parseNumber(_ input: [UInt8]) -> UInt64? {
        guard !input.isEmpty else { return nil }
        var digits = input[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
           let x = digits.dropFirst().first, x == UInt8(ascii: "x") || x == UInt8(ascii: "X") {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            radix = 8
            digits = digits.dropFirst()
        }
        if digits.isEmpty { return 0 }
        let cap: UInt64 = 1 << 33
        var value: UInt64 = 0
        for c in digits {
            let d: UInt64
            switch radix {
            case 16:
                guard let h = TextRules.hexValue(c) else { return nil }
                d = UInt64(h)
            case 8:
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "7") else { return nil }
                d = UInt64(c - UInt8(ascii: "0"))
            default:
                guard TextRules.isASCIIDigit(c) else { return nil }
                d = UInt64(c - UInt8(ascii: "0"))
            }
            value = min(value * radix + d, cap)
        }
        return value
    }

    /// WHATWG IPv4 parser (called when the host ends in a number): `nil` is failure.
    static func parseWHATWG(_ text: [UInt8]) -> UInt32? {
        var parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if let last = parts.last, last.isEmpty, parts.count > 1 {
            parts.removeLast()
        }
        guard parts.count <= 4, !parts.isEmpty else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let n = parseNumber(Array(part)) else { return nil }
            numbers.append(n)
        }
        for n in numbers.dropLast() where n > 255 { return nil }
        guard let last = numbers.last else { return nil }
        let limit: UInt64 = 1 << (8 * UInt64(5 - numbers.count))
        guard last < limit else { return nil }
        var value = last
        for (i, n) in numbers.dropLast().enumerated() {
            value += n << (8 * UInt64(3 - i))
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// Dotted decimal.
    static func serialize(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }
}

/// IPv6 literals as eight 16-bit pieces.
enum IPv6Literal {
    /// The WHATWG IPv6 parser (RFC 4291 text forms: `::` once, up to 4 hex digits a piece, an
    /// optional trailing dotted quad without leading zeros). No brackets, no zone. `nil` is failure.
    static func parse(_ input: [UInt8]) -> [UInt16]? {
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int? = nil
        var p = 0
        func at(_ i: Int) -> UInt8? { i < input.count ? input[i] : nil }

        if at(p) == UInt8(ascii: ":") {
            guard at(p + 1) == UInt8(ascii: ":") else { return nil }
            p += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while at(p) != nil {
            guard pieceIndex < 8 else { return nil }
            if at(p) == UInt8(ascii: ":") {
                guard compress == nil else { return nil }
                p += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let c = at(p), let h = TextRules.hexValue(c) {
                value = value << 4 | UInt16(h)
                p += 1
                length += 1
            }
            if at(p) == UInt8(ascii: ".") {
                guard length > 0 else { return nil }
                p -= length
                guard pieceIndex <= 6 else { return nil }
                var numbersSeen = 0
                while at(p) != nil {
                    var ipv4Piece: Int? = nil
                    if numbersSeen > 0 {
                        guard at(p) == UInt8(ascii: "."), numbersSeen < 4 else { return nil }
                        p += 1
                    }
                    guard let first = at(p), TextRules.isASCIIDigit(first) else { return nil }
                    while let c = at(p), TextRules.isASCIIDigit(c) {
                        let number = Int(c - UInt8(ascii: "0"))
                        if let current = ipv4Piece {
                            guard current != 0 else { return nil }
                            ipv4Piece = current * 10 + number
                        } else {
                            ipv4Piece = number
                        }
                        guard let v = ipv4Piece, v <= 255 else { return nil }
                        p += 1
                    }
                    guard pieceIndex < 8 else { return nil }
                    address[pieceIndex] = address[pieceIndex] &* 0x100 &+ UInt16(ipv4Piece ?? 0)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if at(p) == UInt8(ascii: ":") {
                p += 1
                guard at(p) != nil else { return nil }
            } else if at(p) != nil {
                return nil
            }
            guard pieceIndex < 8 else { return nil }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0 && swaps > 0 {
                let other = compress + swaps - 1
                guard other >= 0, other < 8 else { return nil }
                address.swapAt(pieceIndex, other)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    /// The WHATWG serialization: lowercase hex without leading zeros, the first longest run of
    /// two or more zero pieces compressed to `::`. No brackets.
    static func serialize(_ pieces: [UInt16]) -> String {
        guard pieces.count == 8 else { return "" }
        var bestStart = -1
        var bestLength = 1
        var i = 0
        while i < 8 {
            if pieces[i] == 0 {
                var j = i
                while j < 8 && pieces[j] == 0 { j += 1 }
                if j - i > bestLength {
                    bestStart = i
                    bestLength = j - i
                }
                i = j
            } else {
                i += 1
            }
        }
        var out = ""
        var ignoreZero = false
        for index in 0..<8 {
            if ignoreZero && pieces[index] == 0 { continue }
            ignoreZero = false
            if index == bestStart {
                out += index == 0 ? "::" : ":"
                ignoreZero = true
                continue
            }
            out += String(pieces[index], radix: 16)
            if index != 7 { out += ":" }
        }
        return out
    }
}
