// Base64 (RFC 4648 §4) and base64url (RFC 4648 §5), pure Swift.
//
// Decoding is strict about characters and length and explicit about padding:
// - every character must belong to the accepted alphabet(s); whitespace is not skipped;
// - `=` may only appear at the end;
// - a data length ≡ 1 (mod 4) can never be valid and is refused;
// - non-zero bits in the last character's unused low bits are accepted (as Foundation and Node do).
//
// Setup codes (`setup-codes.md` §3.1 #2) decode the Swift app's way: map `-`→`+`, `_`→`/`, re-pad to a
// multiple of 4, then decode standard base64. That accepts both alphabets and missing, complete or
// partial padding; `Base64URL.decode` is exactly that.

/// Why base64 text was refused.
public enum Base64Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// A character outside the accepted alphabet (or `=` before the end) at this byte offset.
    case invalidCharacter(offset: Int)
    /// A data length (without padding) that leaves a single 6-bit character over.
    case invalidLength(Int)
    /// Padding missing, too long or present where it is not allowed.
    case invalidPadding

    /// One sentence naming the problem.
    public var description: String {
        switch self {
        case let .invalidCharacter(offset): return "invalid base64 character at byte \(offset)"
        case let .invalidLength(n): return "invalid base64 length (\(n) characters cannot encode whole bytes)"
        case .invalidPadding: return "invalid base64 padding"
        }
    }
}

/// RFC 4648 base64 in both alphabets, with explicit padding rules.
public enum Base64 {
    /// Which 62nd/63rd characters to write.
    public enum Alphabet: Sendable {
        /// `+` and `/` (RFC 4648 §4).
        case standard
        /// `-` and `_` (RFC 4648 §5, "base64url").
        case url
    }

    /// Which alphabets a decoder accepts.
    public enum AcceptedAlphabet: Sendable {
        /// Only `+` and `/`.
        case standard
        /// Only `-` and `_`.
        case url
        /// Both pairs, as after mapping `-`→`+` and `_`→`/`.
        case either
    }

    /// How a decoder treats trailing `=`.
    public enum Padding: Sendable {
        /// The text must be padded to a multiple of 4.
        case required
        /// Padding may be missing, partial or complete, but never longer than needed.
        case optional
        /// No `=` at all.
        case forbidden
    }

    private static let standardTable: [UInt8] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlTable: [UInt8] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes `bytes`; `padded` appends `=` to a multiple of 4.
    public static func encode<Bytes: Collection>(_ bytes: Bytes, alphabet: Alphabet = .standard,
                                                 padded: Bool = true) -> String where Bytes.Element == UInt8 {
        let table = alphabet == .standard ? standardTable : urlTable
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            if b1 != nil {
                out.append(table[Int(n >> 6 & 63)])
            } else if padded {
                out.append(UInt8(ascii: "="))
            }
            if b2 != nil {
                out.append(table[Int(n & 63)])
            } else if padded {
                out.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 6-bit value of `c` in the accepted alphabet(s), or `nil`.
    private static func sextet(_ c: UInt8, _ accepted: AcceptedAlphabet) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return accepted == .url ? nil : 62
        case UInt8(ascii: "/"): return accepted == .url ? nil : 63
        case UInt8(ascii: "-"): return accepted == .standard ? nil : 62
        case UInt8(ascii: "_"): return accepted == .standard ? nil : 63
        default: return nil
        }
    }

    /// Decodes base64 text under the given alphabet and padding rules.
    public static func decode(_ text: some StringProtocol, alphabet: AcceptedAlphabet = .standard,
                              padding: Padding = .required) throws(Base64Error) -> [UInt8] {
        try decode(bytes: Array(text.utf8), alphabet: alphabet, padding: padding)
    }

    /// Decodes base64 given as ASCII bytes under the given alphabet and padding rules.
    public static func decode(bytes text: [UInt8], alphabet: AcceptedAlphabet = .standard,
                              padding: Padding = .required) throws(Base64Error) -> [UInt8] {
        var dataLength = text.count
        while dataLength > 0 && text[dataLength - 1] == UInt8(ascii: "=") { dataLength -= 1 }
        let padLength = text.count - dataLength
        guard dataLength % 4 != 1 else { throw .invalidLength(dataLength) }
        let needed = (4 - dataLength % 4) % 4
        switch padding {
        case .required: guard padLength == needed else { throw .invalidPadding }
        case .optional: guard padLength <= needed else { throw .invalidPadding }
        case .forbidden: guard padLength == 0 else { throw .invalidPadding }
        }
        var out: [UInt8] = []
        out.reserveCapacity(dataLength / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var count = 0
        for i in 0..<dataLength {
            guard let v = sextet(text[i], alphabet) else { throw .invalidCharacter(offset: i) }
            accumulator = accumulator << 6 | UInt32(v)
            count += 1
            if count == 4 {
                out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                count = 0
            }
        }
        if count == 2 {
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        } else if count == 3 {
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        }
        return out
    }
}

/// base64url as setup codes use it: emitted unpadded, decoded the way the OpenClaw apps do.
public enum Base64URL {
    /// Unpadded base64url of `bytes` (RFC 4648 §5, trailing `=` removed).
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Base64.encode(bytes, alphabet: .url, padded: false)
    }

    /// Decodes setup-code base64url (`setup-codes.md` §3.1 #2): either alphabet (the apps map
    /// `-`→`+` and `_`→`/` first) and missing, partial or complete `=` padding.
    public static func decode(_ text: some StringProtocol) throws(Base64Error) -> [UInt8] {
        try Base64.decode(text, alphabet: .either, padding: .optional)
    }
}
