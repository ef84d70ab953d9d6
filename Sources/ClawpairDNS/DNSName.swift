// Domain names: wire form, presentation form (RFC 1035 §5.1 escapes), and comparison.
//
// A name is kept as its uncompressed wire form (length-prefixed labels and the final zero), so
// labels may hold any bytes: DNS-SD instance names carry spaces, dots and UTF-8 in one label
// (RFC 6763 §4.3). Equality is exact, byte for byte (what a round trip must preserve); DNS
// itself compares names ASCII-case-insensitively (RFC 4343), which `equalsIgnoringCase`,
// `lowercased()` and `isSubdomain(of:)` do.

/// A domain name, always absolute, at most ``DNSLimits/maxNameLength`` bytes in wire form.
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
    /// The uncompressed wire form: labels with their length octets, then a zero octet.
    public let wire: [UInt8]

    /// The root name `.`.
    public static let root = DNSName(uncheckedWire: [0])

    /// Wraps wire bytes the caller has already validated.
    init(uncheckedWire: [UInt8]) { self.wire = uncheckedWire }

    /// A name from raw labels (any bytes, 1–63 each), most specific first; no labels is the root.
    public init(labels: [[UInt8]]) throws(DNSError) {
        var wire: [UInt8] = []
        wire.reserveCapacity(labels.reduce(1) { $0 + $1.count + 1 })
        for label in labels {
            guard !label.isEmpty else { throw DNSError(.emptyLabel) }
            guard label.count <= DNSLimits.maxLabelLength else { throw DNSError(.labelTooLong(length: label.count)) }
            wire.append(UInt8(label.count))
            wire.append(contentsOf: label)
        }
        wire.append(0)
        guard wire.count <= DNSLimits.maxNameLength else { throw DNSError(.nameTooLong(length: wire.count)) }
        self.wire = wire
    }

    /// A name from labels given as text (each label's UTF-8 bytes, taken literally: a `.` inside
    /// a label stays part of it).
    public init(labels: [String]) throws(DNSError) {
        try self.init(labels: labels.map { Array($0.utf8) })
    }

    /// Parses presentation form: labels separated by `.`, `\.` and `\\` for a literal dot or
    /// backslash, `\X` for any other character X, `\DDD` (exactly three decimal digits, at most
    /// 255) for one byte. The trailing dot is optional; `.` alone is the root. Other non-ASCII
    /// characters contribute their UTF-8 bytes.
    public init(_ text: String) throws(DNSError) {
        let input = Array(text.utf8)
        if input == [UInt8(ascii: ".")] {
            self = .root
            return
        }
        guard !input.isEmpty else { throw DNSError(.emptyLabel) }
        var labels: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < input.count {
            let c = input[i]
            if c == UInt8(ascii: ".") {
                guard !current.isEmpty else { throw DNSError(.emptyLabel) }
                labels.append(current)
                current = []
                i += 1
                continue
            }
            if c == UInt8(ascii: "\\") {
                guard i + 1 < input.count else { throw DNSError(.invalidEscape("\\ at the end")) }
                let next = input[i + 1]
                if Self.isDigit(next) {
                    guard i + 3 < input.count, Self.isDigit(input[i + 2]), Self.isDigit(input[i + 3]) else {
                        let shown = String(decoding: input[i..<min(input.count, i + 4)], as: UTF8.self)
                        throw DNSError(.invalidEscape(shown))
                    }
                    let value = Int(next - 48) * 100 + Int(input[i + 2] - 48) * 10 + Int(input[i + 3] - 48)
                    guard value <= 255 else {
                        throw DNSError(.invalidEscape(String(decoding: input[i..<i + 4], as: UTF8.self)))
                    }
                    current.append(UInt8(value))
                    i += 4
                } else {
                    current.append(next)
                    i += 2
                }
            } else {
                current.append(c)
                i += 1
            }
            guard current.count <= DNSLimits.maxLabelLength else {
                throw DNSError(.labelTooLong(length: current.count))
            }
        }
        if !current.isEmpty { labels.append(current) }
        try self.init(labels: labels)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// The byte ranges of the labels inside ``wire`` (contents only, without length octets).
    private var labelRanges: [Range<Int>] {
        var ranges: [Range<Int>] = []
        var i = 0
        while i < wire.count, wire[i] != 0 {
            let length = Int(wire[i])
            ranges.append(i + 1 ..< i + 1 + length)
            i += 1 + length
        }
        return ranges
    }

    /// The labels, most specific first (empty for the root).
    public var labels: [[UInt8]] { labelRanges.map { Array(wire[$0]) } }

    /// The number of labels (0 for the root).
    public var labelCount: Int { labelRanges.count }

    /// Whether this is the root name.
    public var isRoot: Bool { wire.count == 1 }

    /// The first (most specific) label, or nil for the root.
    public var firstLabel: [UInt8]? { labelRanges.first.map { Array(wire[$0]) } }

    /// The name without its first label (the root's parent is the root).
    public var parent: DNSName {
        guard !isRoot else { return self }
        return DNSName(uncheckedWire: Array(wire[(1 + Int(wire[0]))...]))
    }

    /// This name with `labels` in front (most specific first).
    public func prepending(_ labels: [[UInt8]]) throws(DNSError) -> DNSName {
        try DNSName(labels: labels + self.labels)
    }

    /// The name with ASCII letters lowercased (RFC 4343: DNS compares names that way).
    public func lowercased() -> DNSName {
        DNSName(uncheckedWire: Self.foldedWire(wire))
    }

    /// Whether both names are equal when ASCII case is ignored.
    public func equalsIgnoringCase(_ other: DNSName) -> Bool {
        wire.count == other.wire.count && Self.foldedWire(wire) == Self.foldedWire(other.wire)
    }

    /// Whether this name is `ancestor` or below it, ignoring ASCII case.
    public func isSubdomain(of ancestor: DNSName) -> Bool {
        let extra = labelCount - ancestor.labelCount
        guard extra >= 0 else { return false }
        var name = self
        for _ in 0..<extra { name = name.parent }
        return name.equalsIgnoringCase(ancestor)
    }

    /// Whether two labels are equal ignoring ASCII case.
    public static func labelsEqualIgnoringCase(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { foldASCII($0) == foldASCII($1) }
    }

    static func foldASCII(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }

    /// Lowercases label bytes, leaving the length octets alone.
    private static func foldedWire(_ wire: [UInt8]) -> [UInt8] {
        var out = wire
        var i = 0
        while i < out.count, out[i] != 0 {
            let length = Int(out[i])
            var j = i + 1
            while j <= i + length, j < out.count {
                out[j] = foldASCII(out[j])
                j += 1
            }
            i += 1 + length
        }
        return out
    }

    /// Presentation form with a trailing dot (`My\032Mac._openclaw-gw._tcp.local.`): `. \ " ( ) ; @ $`
    /// are backslash-escaped, bytes outside printable ASCII are `\DDD`.
    public var description: String {
        if isRoot { return "." }
        var out: [UInt8] = []
        out.reserveCapacity(wire.count + 8)
        for range in labelRanges {
            for byte in wire[range] {
                Self.appendEscaped(byte, to: &out)
            }
            out.append(UInt8(ascii: "."))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one label byte in presentation form.
    static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: ";"), UInt8(ascii: "@"), UInt8(ascii: "$"):
            out.append(UInt8(ascii: "\\"))
            out.append(byte)
        case 0x21...0x7E:
            out.append(byte)
        default:
            out.append(UInt8(ascii: "\\"))
            out.append(48 + byte / 100)
            out.append(48 + (byte / 10) % 10)
            out.append(48 + byte % 10)
        }
    }
}

extension DNSName {
    /// Reads a possibly compressed name at `offset` in `bytes`; returns the name and the offset
    /// just after it (after the first pointer, if it was compressed). Pointers may not target
    /// bytes before `pointerFloor` (pass ``DNSLimits/headerSize`` for a message).
    public static func unpack(_ bytes: [UInt8], at offset: Int,
                              pointerFloor: Int = 0) throws(DNSError) -> (DNSName, Int) {
        var reader = DNSReader(bytes, offset: offset, pointerFloor: pointerFloor)
        let name = try reader.name()
        return (name, reader.offset)
    }
}
