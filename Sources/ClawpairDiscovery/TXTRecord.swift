// DNS-SD TXT key/value rules (RFC 6763 §6) and the typed readers the beacon uses.
//
// Rules, for strings read from the wire or from tool output:
// - A string is `key=value` or a bare `key` (a boolean attribute, RFC 6763 §6.4); the key is
//   everything before the first `=`; the value (everything after it) is opaque bytes and may be
//   empty, contain `=`, NUL or invalid UTF-8.
// - An empty string, or one starting with `=` (no key), is ignored (§6.4, §6.1).
// - Keys are printable US-ASCII (0x20–0x7E) and compared case-insensitively; a string whose key
//   has other bytes is ignored (§6.4).
// - When a key repeats, the first occurrence wins and the rest are ignored (§6.4). (The TS CLI
//   lets the last one win; the Swift apps use a dictionary. **Toolkit:** RFC 6763.)
// - At most `maxEntries` entries are kept (§6.2 recommends records under 1300 bytes and says
//   multicast ones SHOULD NOT exceed 8900, so real records are far below this).

/// A parsed TXT record: its entries in order, each key once.
public struct TXTRecord: Sendable, Hashable {
    /// One `key=value` (or bare `key`) entry.
    public struct Entry: Sendable, Hashable {
        /// The key as sent (case kept; matching ignores ASCII case).
        public let key: String
        /// The value bytes, or nil for a bare key without `=`.
        public let value: [UInt8]?

        /// An entry; a nil value is a bare key (no `=`).
        public init(key: String, value: [UInt8]?) {
            self.key = key
            self.value = value
        }

        /// The value as text: UTF-8, invalid sequences shown as U+FFFD; nil for a bare key.
        public var stringValue: String? { value.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Most entries kept; further ones are counted in `ignoredCount`.
    public static let maxEntries = 1024

    /// The entries, in the order received.
    public private(set) var entries: [Entry] = []
    /// How many strings were ignored: empty, no key, a key outside printable ASCII, a repeated
    /// key, or beyond ``maxEntries``.
    public private(set) var ignoredCount = 0
    private var index: [String: Int] = [:]

    /// An empty record.
    public init() {}

    /// Parses character-strings as they come off the wire (each at most 255 bytes).
    public init(strings: [[UInt8]]) {
        for string in strings { add(string) }
    }

    /// Builds a record from key/value pairs (for advertising); the same rules apply.
    public init(pairs: [(String, String)]) {
        for (key, value) in pairs { add(Array(key.utf8) + [UInt8(ascii: "=")] + Array(value.utf8)) }
    }

    /// Adds one string under the rules above.
    public mutating func add(_ string: [UInt8]) {
        guard let equals = string.firstIndex(of: UInt8(ascii: "=")) ?? (string.isEmpty ? nil : string.endIndex),
              equals > 0, string[..<equals].allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else {
            ignoredCount += 1
            return
        }
        let key = String(decoding: string[..<equals], as: UTF8.self)
        let folded = Text.lowerASCII(key)
        guard index[folded] == nil, entries.count < Self.maxEntries else {
            ignoredCount += 1
            return
        }
        index[folded] = entries.count
        entries.append(Entry(key: key, value: equals < string.endIndex ? Array(string[(equals + 1)...]) : nil))
    }

    /// The entry for `key` (ASCII case ignored).
    public func entry(_ key: String) -> Entry? {
        index[Text.lowerASCII(key)].map { entries[$0] }
    }

    /// Whether `key` is present, with or without a value.
    public func contains(_ key: String) -> Bool { entry(key) != nil }

    /// The exact value of `key` as text; nil when absent or a bare key.
    public func value(_ key: String) -> String? { entry(key)?.stringValue }

    /// The value bytes of `key`; nil when absent or a bare key.
    public func bytes(_ key: String) -> [UInt8]? { entry(key)?.value }

    /// The value trimmed of whitespace, blank counting as missing (Apple `txtValue`).
    public func trimmedValue(_ key: String) -> String? {
        guard let value = value(key) else { return nil }
        let trimmed = Text.trim(value)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether the value is `1`, `true` or `yes` in any case, after trimming (Apple
    /// `txtBoolValue`, TS `gatewayTls`); false when absent.
    public func boolValue(_ key: String) -> Bool { Self.isTruthy(value(key)) }

    /// The value read as a TCP port (see ``parsePort(_:)``).
    public func portValue(_ key: String) -> Int? { value(key).flatMap(Self.parsePort) }

    /// The strings to put on the wire, one per entry.
    public var strings: [[UInt8]] {
        entries.map { entry in Array(entry.key.utf8) + (entry.value.map { [UInt8(ascii: "=")] + $0 } ?? []) }
    }

    /// `1`, `true`, `yes` (any case, surrounding whitespace ignored) are true; anything else,
    /// including nil and empty, is false.
    public static func isTruthy(_ text: String?) -> Bool {
        guard let text else { return false }
        return ["1", "true", "yes"].contains(Text.lowerASCII(Text.trim(text)))
    }

    /// A TCP port: surrounding whitespace ignored, then 1–5 ASCII digits with a value in
    /// 1…65535. `0`, `70000`, `-1`, `22x` and `18789abc` are not ports.
    public static func parsePort(_ text: String) -> Int? {
        let digits = Array(Text.trim(text).utf8)
        guard (1...5).contains(digits.count), digits.allSatisfy(Text.isASCIIDigit) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        return (1...65_535).contains(value) ? value : nil
    }
}
