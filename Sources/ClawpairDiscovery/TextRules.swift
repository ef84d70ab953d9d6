// Small text helpers shared by the discovery rules: JavaScript's `trim` (the TS rules trim with
// it), whitespace collapsing, ASCII case folding and UTF-8 truncation on character boundaries.

import ClawpairCore

enum Text {
    /// ECMAScript WhiteSpace and LineTerminator code points (what `String.prototype.trim` removes).
    static func isJSWhitespace(_ s: Unicode.Scalar) -> Bool { JSText.isWhitespace(s) }

    /// `text` without leading and trailing JavaScript whitespace.
    static func trim(_ text: some StringProtocol) -> String { JSText.trim(text) }

    /// Trimmed, with every run of whitespace replaced by one space.
    static func collapseWhitespace(_ text: some StringProtocol) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if isJSWhitespace(scalar) {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// ASCII-lowercased copy (other characters unchanged).
    static func lowerASCII(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map(lowerByte), as: UTF8.self)
    }

    /// Whether `text` ends with `suffix`, ignoring ASCII case.
    static func hasSuffixIgnoringASCIICase(_ text: String, _ suffix: String) -> Bool {
        let t = Array(text.utf8), s = Array(suffix.utf8)
        guard t.count >= s.count else { return false }
        return zip(t[(t.count - s.count)...], s).allSatisfy { lowerByte($0) == lowerByte($1) }
    }

    /// `text` minus `suffix` when it ends with it (ASCII case ignored), else `text`.
    static func dropSuffixIgnoringASCIICase(_ text: String, _ suffix: String) -> String {
        guard hasSuffixIgnoringASCIICase(text, suffix) else { return text }
        return String(decoding: Array(text.utf8).dropLast(suffix.utf8.count), as: UTF8.self)
    }

    static func lowerByte(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }

    /// The longest prefix of `text` that is at most `maxBytes` UTF-8 bytes and ends on a
    /// character (grapheme) boundary.
    static func truncateUTF8(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        var out = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > maxBytes { break }
            out.append(character)
            used += size
        }
        return out
    }

    static func isASCIIDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    /// Whether `text` holds a C0 control character or DEL (never valid in a zone-file line).
    static func hasControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
