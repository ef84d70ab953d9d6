// Small text rules shared by the parsers in this module: JavaScript's `String.prototype.trim`
// (the TS code trims with it, and the strict decoder compares trimmed values) and ASCII helpers.

import ClawpairCore

enum TextRules {
    /// ECMAScript WhiteSpace and LineTerminator code points (what `String.prototype.trim` removes).
    static func isJSWhitespace(_ s: Unicode.Scalar) -> Bool { JSText.isWhitespace(s) }

    /// `text` without leading and trailing JavaScript whitespace.
    static func jsTrim(_ text: some StringProtocol) -> String { JSText.trim(text) }

    /// Whether `text` starts with `prefix`, comparing ASCII letters case-insensitively.
    static func hasPrefixASCIICaseInsensitive(_ text: some StringProtocol, _ prefix: String) -> Bool {
        var t = text.utf8.makeIterator()
        for p in prefix.utf8 {
            guard let c = t.next(), lowerASCII(c) == lowerASCII(p) else { return false }
        }
        return true
    }

    /// `text` with the first `count` UTF-8 bytes removed (callers only cut ASCII prefixes).
    static func dropUTF8Prefix(_ text: String, count: Int) -> String {
        let bytes = Array(text.utf8)
        guard count < bytes.count else { return "" }
        return String(decoding: bytes[count...], as: UTF8.self)
    }

    /// Whether `needle` occurs in `text` (byte comparison).
    static func contains(_ text: some StringProtocol, _ needle: String) -> Bool {
        let t = Array(text.utf8)
        let n = Array(needle.utf8)
        guard !n.isEmpty else { return true }
        guard t.count >= n.count else { return false }
        for start in 0...(t.count - n.count) where t[start..<(start + n.count)].elementsEqual(n) {
            return true
        }
        return false
    }

    static func lowerASCII(_ c: UInt8) -> UInt8 {
        c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c + 32 : c
    }

    static func isASCIIAlpha(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }

    static func isASCIIDigit(_ c: UInt8) -> Bool {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")
    }

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Percent-decodes bytes the WHATWG way: `%XX` with two hex digits becomes one byte,
    /// anything else (including a lone `%`) is kept as it is.
    static func percentDecode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "%"), i + 2 < bytes.count,
               let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(c)
                i += 1
            }
        }
        return out
    }

    /// Strict UTF-8 decoding: `nil` when `bytes` is not valid UTF-8.
    static func decodeUTF8(_ bytes: [UInt8]) -> String? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(s): scalars.append(s)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }
}
