// The WHATWG URL host parser for special schemes (http, https, ws, wss), as Node's `new URL()`
// runs it when the TypeScript gateway normalizes a gateway URL (`setup-codes.md` §4).
//
// Implemented: bracketed IPv6 (canonical compressed serialization), percent-decoding of the host,
// "ends in a number" → WHATWG IPv4 (decimal, octal, hex, 1–4 parts, e.g. `2130706433` or `0x7f.1`
// → `127.0.0.1`), forbidden domain code points, and a subset of UTS #46 ToASCII:
// - ASCII is lowercased; `xn--` labels must decode as Punycode to a non-ASCII label;
// - non-ASCII: full-width ASCII and ideographic full stops are mapped, code points UTS #46 marks
//   "ignored" (soft hyphen, variation selectors, ...) are removed, letters are lowercased (Unicode
//   lowercase mapping), and each label is Punycode-encoded.
// The stdlib offers neither the UTS #46 table nor NFC/NFKC nor Bidi_Class, so the subset fails
// closed (the host is invalid) wherever the full algorithm could give a different answer: only
// letters and decimal digits of Unicode ≤ 14.0 are accepted (no symbols, emoji, marks, joiners
// or conjoining jamo, which NFC, CheckJoiners or the table could treat differently); a letter
// whose lowercase still changes under NFKC_Casefold (`ﬁ`, `ª`, half-width kana, ...) or arrived
// in another Unicode version is refused, except the deviation letters `ß` and `ς`, which UTS #46
// keeps; right-to-left names must pass a conservative reading of the RFC 5893 Bidi rule. Plain ASCII hosts, IP
// literals and ordinary precomposed IDNs, the cases gateways use, match Node exactly; an IDN this
// subset refuses can still be given in its `xn--` form.

/// A parsed URL host.
enum ParsedHost: Equatable, Sendable {
    /// A domain, already ASCII (Punycode) and lowercase.
    case domain(String)
    /// An IPv4 address.
    case ipv4(UInt32)
    /// An IPv6 address (eight pieces).
    case ipv6([UInt16])

    /// The host as it appears in a URL (IPv6 in brackets).
    var urlForm: String {
        switch self {
        case let .domain(d): return d
        case let .ipv4(v): return IPv4Literal.serialize(v)
        case let .ipv6(p): return "[" + IPv6Literal.serialize(p) + "]"
        }
    }

    /// The host without brackets, as a resolver or socket API takes it.
    var bareForm: String {
        switch self {
        case let .domain(d): return d
        case let .ipv4(v): return IPv4Literal.serialize(v)
        case let .ipv6(p): return IPv6Literal.serialize(p)
        }
    }
}

enum HostParser {
    /// WHATWG forbidden host code points (ASCII only).
    private static func isForbiddenHost(_ c: UInt8) -> Bool {
        switch c {
        case 0x00, 0x09, 0x0A, 0x0D, 0x20, 0x23, 0x2F, 0x3A, 0x3C, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x5E, 0x7C:
            return true
        default:
            return false
        }
    }

    /// WHATWG forbidden domain code points: forbidden host code points, C0 controls, `%`, DEL.
    private static func isForbiddenDomain(_ c: UInt8) -> Bool {
        isForbiddenHost(c) || c <= 0x1F || c == 0x25 || c == 0x7F
    }

    /// Parses a special-scheme URL host (as written between `//` and the port), or `nil` on failure.
    static func parse(_ input: [UInt8]) -> ParsedHost? {
        guard !input.isEmpty else { return nil }
        if input.first == UInt8(ascii: "[") {
            guard input.count >= 2, input.last == UInt8(ascii: "]") else { return nil }
            guard let pieces = IPv6Literal.parse(Array(input[1..<(input.count - 1)])) else { return nil }
            return .ipv6(pieces)
        }
        guard let domain = TextRules.decodeUTF8(TextRules.percentDecode(input)) else { return nil }
        guard let ascii = domainToASCII(domain) else { return nil }
        let bytes = Array(ascii.utf8)
        if bytes.contains(where: isForbiddenDomain) { return nil }
        if IPv4Literal.endsInNumber(bytes) {
            guard let v = IPv4Literal.parseWHATWG(bytes) else { return nil }
            return .ipv4(v)
        }
        return .domain(ascii)
    }

    // MARK: UTS #46 subset

    /// Code points UTS #46 maps to nothing ("ignored").
    private static func isIgnored(_ v: UInt32) -> Bool {
        switch v {
        case 0x00AD, 0x034F, 0x180B...0x180D, 0x180F, 0x200B, 0x2060, 0x2064, 0xFE00...0xFE0F, 0xFEFF,
             0x1BCA0...0x1BCA3, 0xE0100...0xE01EF:
            return true
        default:
            return false
        }
    }

    /// The newest Unicode version whose letters are accepted in hosts: newer letters may be
    /// unassigned in the UTS #46 table of the gateway's Node.
    static let maxUnicodeAge = (major: 14, minor: 0)

    /// Whether a non-ASCII scalar may appear in a label (a coarse, fail-closed stand-in for the
    /// UTS #46 table; see the file header): letters and decimal digits of Unicode ≤ 14.0, no
    /// joiners, no conjoining jamo.
    private static func isAllowedNonASCII(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if (0x1100...0x11FF).contains(v) || (0xA960...0xA97F).contains(v) || (0xD7B0...0xD7FF).contains(v) {
            return false
        }
        guard let age = s.properties.age,
              age.major < maxUnicodeAge.major || (age.major == maxUnicodeAge.major && age.minor <= maxUnicodeAge.minor)
        else { return false }
        switch s.properties.generalCategory {
        case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .otherLetter, .modifierLetter, .decimalNumber:
            return true
        default:
            return false
        }
    }

    /// The deviation characters UTS #46 (non-transitional) keeps although NFKC_Casefold changes them.
    private static func isDeviation(_ s: Unicode.Scalar) -> Bool {
        s.value == 0x00DF || s.value == 0x03C2
    }

    /// Maps one scalar, appending the result; `false` when it is not allowed in a host.
    private static func map(_ s: Unicode.Scalar, into out: inout String.UnicodeScalarView) -> Bool {
        let v = s.value
        if v < 0x80 {
            let c = TextRules.lowerASCII(UInt8(v))
            out.append(Unicode.Scalar(c))
            return true
        }
        if v == 0x3002 || v == 0xFF0E || v == 0xFF61 {
            out.append(".")
            return true
        }
        if v >= 0xFF01 && v <= 0xFF5E {
            out.append(Unicode.Scalar(TextRules.lowerASCII(UInt8(v - 0xFEE0))))
            return true
        }
        if isIgnored(v) { return true }
        guard isAllowedNonASCII(s) else { return false }
        if isDeviation(s) {
            out.append(s)
            return true
        }
        for lower in s.properties.lowercaseMapping.unicodeScalars {
            guard !lower.properties.changesWhenNFKCCaseFolded else { return false }
            // An uppercase letter whose lowercase arrived in another Unicode version (Palochka,
            // Georgian Mtavruli, Cherokee, ...) has its own UTS #46 status; refuse it.
            if lower != s {
                guard lower.properties.age.map({ "\($0)" }) == s.properties.age.map({ "\($0)" }) else { return false }
                // The result must itself be acceptable (so `İ` → `i` + U+0307 is refused, keeping
                // the output of normalization a fixed point of it).
                guard lower.isASCII || isAllowedNonASCII(lower) else { return false }
            }
            out.append(lower)
        }
        return true
    }

    /// Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, ... and their presentation
    /// forms): the code points whose presence makes a name a "Bidi domain name" (RFC 5893).
    private static func isRightToLeft(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return true
        default: return false
        }
    }

    /// A fail-closed approximation of the RFC 5893 Bidi rule (UTS #46 CheckBidi), which needs
    /// Bidi_Class data the stdlib does not expose. Names without right-to-left code points pass.
    /// In a name with any, every label must be either right-to-left letters only, or ASCII
    /// letters, digits and inner hyphens starting with a letter and not ending with a hyphen.
    static func passesBidiRule(_ labels: [[Unicode.Scalar]]) -> Bool {
        guard labels.contains(where: { $0.contains(where: isRightToLeft) }) else { return true }
        for label in labels where !label.isEmpty {
            if label.contains(where: isRightToLeft) {
                let lettersOnly = label.allSatisfy { s in
                    guard isRightToLeft(s) else { return false }
                    switch s.properties.generalCategory {
                    case .otherLetter, .modifierLetter: return true
                    default: return false
                    }
                }
                guard lettersOnly else { return false }
            } else {
                let bytes = label.map { $0.value }
                guard bytes.allSatisfy({ $0 < 0x80 }),
                      let first = bytes.first, let last = bytes.last,
                      TextRules.isASCIIAlpha(UInt8(first)),
                      TextRules.isASCIIAlpha(UInt8(last)) || TextRules.isASCIIDigit(UInt8(last)),
                      bytes.allSatisfy({ TextRules.isASCIIAlpha(UInt8($0)) || TextRules.isASCIIDigit(UInt8($0)) || $0 == 0x2D })
                else { return false }
            }
        }
        return true
    }

    /// UTS #46 ToASCII (subset, see the file header), or `nil` on failure or an empty result.
    static func domainToASCII(_ domain: String) -> String? {
        var mapped = String.UnicodeScalarView()
        for s in domain.unicodeScalars {
            guard map(s, into: &mapped) else { return nil }
        }
        var asciiLabels: [String] = []
        var unicodeLabels: [[Unicode.Scalar]] = []
        for slice in mapped.split(separator: ".", omittingEmptySubsequences: false) {
            let label = Array(slice)
            let startsWithACE = label.count >= 4 && String(String.UnicodeScalarView(label.prefix(4))) == "xn--"
            if label.allSatisfy({ $0.isASCII }) {
                let text = String(String.UnicodeScalarView(label))
                if startsWithACE {
                    // UTS #46: the rest must be Punycode for a valid, non-ASCII label.
                    guard let decoded = Punycode.decode(Array(text.utf8.dropFirst(4))), !decoded.isEmpty,
                          !decoded.allSatisfy({ $0.isASCII }),
                          decoded.allSatisfy({ $0.isASCII || (isAllowedNonASCII($0)
                              && (isDeviation($0) || !$0.properties.changesWhenNFKCCaseFolded)) })
                    else { return nil }
                    unicodeLabels.append(decoded)
                } else {
                    unicodeLabels.append(label)
                }
                asciiLabels.append(text)
            } else {
                // UTS #46: an `xn--` label must be all ASCII.
                guard !startsWithACE, let encoded = Punycode.encode(label) else { return nil }
                asciiLabels.append("xn--" + encoded)
                unicodeLabels.append(label)
            }
        }
        guard passesBidiRule(unicodeLabels) else { return nil }
        let result = asciiLabels.joined(separator: ".")
        return result.isEmpty ? nil : result
    }
}
