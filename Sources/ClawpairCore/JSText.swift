/// JavaScript's notion of whitespace, for rules copied from OpenClaw's TypeScript code (which
/// trims with `String.prototype.trim`).
public enum JSText {
    /// ECMAScript WhiteSpace and LineTerminator code points (what `String.prototype.trim` removes).
    public static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default:
            return false
        }
    }

    /// `text` without leading and trailing JavaScript whitespace.
    public static func trim(_ text: some StringProtocol) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }),
              let last = scalars.lastIndex(where: { !isWhitespace($0) }) else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[first...last])
        return String(out)
    }
}
