// The WHATWG URL host parser for special schemes (http, https, ws, wss), as Node's `new URL()`
// runs it when the TypeScript gateway normalizes a gateway URL (`setup-codes.md` §4).
//
// Implemented: bracketed IPv6 (canonical compressed serialization), percent-decoding of the host,
// "ends in a number" → WHATWG IPv4 (decimal, octal, hex, 1–4 parts, e.g. `2130706433` or `0x7f.1`
// → `127.0.0.1`), forbidden domain code points, and a subset of UTS #46 ToASCII:
// - ASCII is lowercased; `xn--` labels must decode as Punycode to a non-ASCII label;
// - non-ASCII: full-width ASCII and ideographic full stops are mapped, default-ignorable marks
//   UTS #46 marks "ignored" are removed, letters are lowercased (Unicode lowercase mapping),
//   controls/format/private-use/unassigned/separators are refused, each label is Punycode-encoded.
// Not implemented (documented limitation): the full UTS #46 mapping table, NFC normalization,
// and the CheckBidi/CheckJoiners rules. Hosts that depend on those may normalize differently
// from Node; plain ASCII hosts and IP literals, the cases gateways use, are exact.

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

    /// Whether a non-ASCII scalar may appear in a label (a coarse stand-in for the UTS #46 table).
    private static func isAllowedNonASCII(_ s: Unicode.Scalar) -> Bool {
        if s.value == 0x200C || s.value == 0x200D { return true }
        switch s.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
             .spaceSeparator:
            return false
        default:
            return s.value != 0xFFFD && !s.properties.isNoncharacterCodePoint
        }
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
        out.append(contentsOf: s.properties.lowercaseMapping.unicodeScalars)
        return true
    }

    /// UTS #46 ToASCII (subset, see the file header), or `nil` on failure or an empty result.
    static func domainToASCII(_ domain: String) -> String? {
        var mapped = String.UnicodeScalarView()
        for s in domain.unicodeScalars {
            guard map(s, into: &mapped) else { return nil }
        }
        var labels: [String] = []
        var current: [Unicode.Scalar] = []
        func finish() -> Bool {
            defer { current.removeAll() }
            if current.allSatisfy({ $0.isASCII }) {
                let label = String(String.UnicodeScalarView(current))
                if label.hasPrefix("xn--") {
                    guard let decoded = Punycode.decode(Array(label.utf8.dropFirst(4))), !decoded.isEmpty,
                          !decoded.allSatisfy({ $0.isASCII }),
                          decoded.allSatisfy({ isAllowedNonASCII($0) || $0.isASCII }),
                          decoded.allSatisfy({ String($0).lowercased() == String($0) })
                    else { return false }
                }
                labels.append(label)
                return true
            }
            guard let encoded = Punycode.encode(current) else { return false }
            labels.append("xn--" + encoded)
            return true
        }
        for s in mapped {
            if s == "." {
                guard finish() else { return nil }
            } else {
                current.append(s)
            }
        }
        guard finish() else { return nil }
        let result = labels.joined(separator: ".")
        return result.isEmpty ? nil : result
    }
}
