/// Makes text from untrusted sources (network names, TXT records, setup codes, files)
/// safe to print on a terminal.
///
/// Escaped, so they show up instead of acting: C0 controls (ESC and friends), DEL, C1
/// controls (U+0080–U+009F, which some terminals treat as CSI), bidirectional overrides and
/// isolates (Trojan Source: U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), line and
/// paragraph separators, and invisible characters that can hide text (U+200B, U+2060,
/// U+FEFF). Invalid UTF-8 in byte input is shown as `\xNN`. JSON output never goes through
/// this: it keeps exact values and relies on JSON escaping.
public enum TerminalText {
    /// The default cap on printed Unicode scalars for one value.
    public static let defaultMaxScalars = 1024

    /// Returns `text` with every unsafe scalar escaped and at most `maxScalars` scalars kept
    /// (an ellipsis marks a cut). Newlines are kept only when `allowNewlines` is true.
    public static func sanitize(_ text: String, allowNewlines: Bool = false,
                                maxScalars: Int = defaultMaxScalars) -> String {
        var out = ""
        out.reserveCapacity(min(text.utf8.count, maxScalars * 2))
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= maxScalars {
                out += "…"
                break
            }
            count += 1
            append(scalar, to: &out, allowNewlines: allowNewlines)
        }
        return out
    }

    /// Like ``sanitize(_:allowNewlines:maxScalars:)`` for raw bytes that may not be UTF-8:
    /// each byte of an invalid sequence prints as `\xNN`.
    public static func sanitize(bytes: some Collection<UInt8>, allowNewlines: Bool = false,
                                maxScalars: Int = defaultMaxScalars) -> String {
        let array = Array(bytes)
        var out = ""
        var index = 0
        var count = 0
        while index < array.count {
            if count >= maxScalars {
                out += "…"
                break
            }
            count += 1
            if let (scalar, length) = UTF8Scan.scalar(in: array, at: index) {
                append(scalar, to: &out, allowNewlines: allowNewlines)
                index += length
            } else {
                out += "\\x" + hex2(array[index])
                index += 1
            }
        }
        return out
    }

    /// Whether `scalar` would be escaped by ``sanitize(_:allowNewlines:maxScalars:)``.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F, 0x80...0x9F: return true
        case 0x061C, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF:
            return true
        default: return false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String, allowNewlines: Bool) {
        if scalar == "\n" && allowNewlines {
            out.unicodeScalars.append(scalar)
        } else if !isUnsafe(scalar) {
            out.unicodeScalars.append(scalar)
        } else if scalar.value <= 0xFF {
            switch scalar {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out += "\\x" + hex2(UInt8(scalar.value))
            }
        } else {
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    /// A line (or lines) a command writes for people, made safe as the last step before the
    /// terminal: every unsafe scalar escaped as ``sanitize(_:allowNewlines:maxScalars:)`` does,
    /// except newlines, tabs and SGR colour sequences (`ESC [` digits and `;` `m`, which is all
    /// clawpair's own styling emits). Nothing else a gateway, a file or a peer put in the text
    /// (OSC titles and clipboard writes, `ESC[2J`, cursor moves, C1, bidi) reaches the terminal
    /// as a control. No length cap: callers cap each untrusted value where they format it.
    public static func sanitizeOutput(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: { isUnsafe($0) && $0 != "\n" && $0 != "\t" }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{1B}", let end = sgrEnd(scalars, from: index) {
                out.unicodeScalars.append(contentsOf: scalars[index...end])
                index = end + 1
                continue
            }
            if scalar == "\t" {
                out.unicodeScalars.append(scalar)
            } else {
                append(scalar, to: &out, allowNewlines: true)
            }
            index += 1
        }
        return out
    }

    /// The index of the `m` ending an SGR sequence (`ESC [ [0-9;]{0,32} m`) that starts at `start`.
    private static func sgrEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
        guard start + 2 < scalars.count, scalars[start + 1] == "[" else { return nil }
        var index = start + 2
        while index < scalars.count, index - start <= 34 {
            let scalar = scalars[index]
            if scalar == "m" { return index }
            guard ("0"..."9").contains(scalar) || scalar == ";" else { return nil }
            index += 1
        }
        return nil
    }

    private static func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

/// Strict UTF-8 decoding of one scalar at a time (no overlongs, no surrogates, ≤ U+10FFFF).
enum UTF8Scan {
    /// The scalar starting at `index` and its length in bytes, or nil when the bytes there
    /// are not a valid UTF-8 sequence.
    static func scalar(in bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let b0 = bytes[index]
        let length: Int
        var value: UInt32
        var minimum: UInt32
        switch b0 {
        case 0x00...0x7F: return (Unicode.Scalar(b0), 1)
        case 0xC2...0xDF: length = 2; value = UInt32(b0 & 0x1F); minimum = 0x80
        case 0xE0...0xEF: length = 3; value = UInt32(b0 & 0x0F); minimum = 0x800
        case 0xF0...0xF4: length = 4; value = UInt32(b0 & 0x07); minimum = 0x10000
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let b = bytes[index + offset]
            guard b & 0xC0 == 0x80 else { return nil }
            value = (value << 6) | UInt32(b & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
