// DNS-SD `\DDD` escapes in instance names and TXT values printed by `dns-sd`, `avahi-browse`
// and `dig` (discovery.md §2). Names delivered by a browse callback or read from the wire are
// already raw: never decode them twice.

/// Decoding and encoding of `\DDD` decimal byte escapes.
public enum BonjourEscapes {
    /// Decodes `\DDD` escapes (a backslash and exactly three ASCII digits, value ≤ 255) to bytes.
    ///
    /// Other characters contribute their UTF-8 bytes; a backslash that does not start such an
    /// escape stays as is (`Hello\03World`, `\300`). Without any escape the input comes back
    /// unchanged. When the bytes are not valid UTF-8, each escaped byte becomes the Unicode
    /// scalar of the same number (`x\233y` → `xéy`), as the Swift apps do; the TypeScript CLI
    /// would print U+FFFD instead (the divergence noted in `vectors.json`).
    public static func decode(_ input: String) -> String {
        let scalars = Array(input.unicodeScalars)
        enum Piece { case byte(UInt8), scalar(Unicode.Scalar) }
        var pieces: [Piece] = []
        pieces.reserveCapacity(scalars.count)
        var sawEscape = false
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\\", let value = digits(scalars, i + 1), value <= 255 {
                pieces.append(.byte(UInt8(value)))
                sawEscape = true
                i += 4
            } else {
                pieces.append(.scalar(scalars[i]))
                i += 1
            }
        }
        guard sawEscape else { return input }
        var bytes: [UInt8] = []
        for piece in pieces {
            switch piece {
            case let .byte(b): bytes.append(b)
            case let .scalar(s): bytes.append(contentsOf: String(s).utf8)
            }
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var fallback = String.UnicodeScalarView()
        for piece in pieces {
            switch piece {
            case let .byte(b): fallback.append(Unicode.Scalar(b))
            case let .scalar(s): fallback.append(s)
            }
        }
        return String(fallback)
    }

    /// The value of three ASCII digits starting at `index`, or nil.
    private static func digits(_ scalars: [Unicode.Scalar], _ index: Int) -> Int? {
        guard index + 3 <= scalars.count else { return nil }
        var value = 0
        for scalar in scalars[index..<index + 3] {
            guard scalar.isASCII, Text.isASCIIDigit(UInt8(scalar.value)) else { return nil }
            value = value * 10 + Int(scalar.value - 48)
        }
        return value
    }

    /// Encodes for text output the way `dns-sd` prints names: every UTF-8 byte outside printable
    /// ASCII (space included), and `\` and `.`, as `\DDD`. `decode(encode(s)) == s` for every string.
    public static func encode(_ input: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(input.utf8.count)
        for byte in input.utf8 {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: ".") {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "\\"))
                out.append(48 + byte / 100)
                out.append(48 + (byte / 10) % 10)
                out.append(48 + byte % 10)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
