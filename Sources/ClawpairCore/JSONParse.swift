// A bounded, strict RFC 8259 JSON parser.
//
// - Grammar: RFC 8259 exactly (no comments, trailing commas, leading zeros, `NaN`, single quotes or
//   BOM), and the whole input but surrounding whitespace must be one value (§2).
// - Text: strings must be valid UTF-8 (RFC 8259 §8.1, Unicode Table 3-7: no overlongs, no UTF-16
//   surrogates, nothing above U+10FFFF); `\u` escapes must pair surrogates correctly.
// - Limits (`JSONLimits`): input size, nesting depth and string length are checked before the
//   work they bound, so hostile input costs at most linear time and bounded stack.
// - Duplicate keys: the last value wins and keeps the first key's position, which is what
//   JavaScript's `JSON.parse` produces (and what `JSON.stringify` then emits).
//
// Every byte access goes through `peek()`/`advance()`, which check the index; nothing traps.

/// Limits applied by `JSONValue.parse`. Each is checked before the work it bounds.
public struct JSONLimits: Sendable, Equatable {
    /// Default for `maxInputBytes`: 1 MiB.
    public static let defaultMaxInputBytes = 1 << 20
    /// Default for `maxDepth`: 64 nested arrays/objects.
    public static let defaultMaxDepth = 64
    /// Default for `maxStringBytes`: 256 KiB of UTF-8 per string or key, after unescaping.
    public static let defaultMaxStringBytes = 256 << 10
    /// The parser recurses once per nesting level, so `maxDepth` is clamped to this to bound the stack.
    public static let hardMaxDepth = 512

    /// The largest input accepted, in bytes.
    public var maxInputBytes: Int
    /// The deepest nesting of arrays and objects accepted (a scalar at top level is depth 0).
    public var maxDepth: Int
    /// The longest string or key accepted, in UTF-8 bytes after unescaping.
    public var maxStringBytes: Int

    /// Limits with the documented defaults unless overridden.
    public init(maxInputBytes: Int = JSONLimits.defaultMaxInputBytes, maxDepth: Int = JSONLimits.defaultMaxDepth,
                maxStringBytes: Int = JSONLimits.defaultMaxStringBytes) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
    }

    /// 1 MiB input, depth 64, 256 KiB strings.
    public static let `default` = JSONLimits()
}

/// Why `JSONValue.parse` refused its input, with the byte offset where it noticed.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Equatable {
        /// The input is larger than `JSONLimits.maxInputBytes` (the associated value).
        case inputTooLarge(limit: Int)
        /// Arrays/objects nest deeper than `JSONLimits.maxDepth` (the associated value).
        case tooDeep(limit: Int)
        /// A string or key is longer than `JSONLimits.maxStringBytes` (the associated value).
        case stringTooLong(limit: Int)
        /// The input ended inside a value (or was empty).
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedByte(UInt8)
        /// Something other than whitespace follows the top-level value.
        case trailingData
        /// A comma directly before `]` or `}`.
        case trailingComma
        /// A number that breaks the RFC 8259 grammar (leading zero, missing digits, ...).
        case invalidNumber
        /// An unescaped control character (below U+0020) inside a string.
        case controlCharacterInString
        /// A backslash followed by something other than `"\/bfnrtu`, or a bad `\u` escape.
        case invalidEscape
        /// A `\u` escape for half of a UTF-16 surrogate pair without its other half.
        case loneSurrogate
        /// Bytes inside a string that are not valid UTF-8.
        case invalidUTF8
        /// An object key that is not a string.
        case expectedKey
        /// A missing `:` after an object key.
        case expectedColon
    }

    /// Byte offset into the input where the problem was found.
    public let offset: Int
    /// What was wrong.
    public let reason: Reason

    /// Creates an error at `offset`.
    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// One sentence naming the problem and its byte offset.
    public var description: String {
        let what: String
        switch reason {
        case let .inputTooLarge(limit): what = "input is larger than \(limit) bytes"
        case let .tooDeep(limit): what = "arrays/objects nest deeper than \(limit) levels"
        case let .stringTooLong(limit): what = "a string is longer than \(limit) bytes"
        case .unexpectedEnd: what = "input ends inside a value"
        case let .unexpectedByte(b):
            if b >= 0x20 && b < 0x7F {
                what = "unexpected character '\(Character(Unicode.Scalar(b)))'"
            } else {
                what = "unexpected byte 0x\(String(b, radix: 16))"
            }
        case .trailingData: what = "extra data after the JSON value"
        case .trailingComma: what = "trailing comma"
        case .invalidNumber: what = "malformed number"
        case .controlCharacterInString: what = "unescaped control character in a string"
        case .invalidEscape: what = "invalid escape sequence"
        case .loneSurrogate: what = "unpaired UTF-16 surrogate escape"
        case .invalidUTF8: what = "invalid UTF-8"
        case .expectedKey: what = "expected a string key"
        case .expectedColon: what = "expected ':' after an object key"
        }
        return "invalid JSON at byte \(offset): \(what)"
    }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259) from UTF-8 bytes within `limits`.
    ///
    /// The size limit is checked before the bytes are copied.
    public static func parse<Bytes: Collection>(_ bytes: Bytes, limits: JSONLimits = .default)
        throws(JSONError) -> JSONValue where Bytes.Element == UInt8
    {
        guard bytes.count <= limits.maxInputBytes else {
            throw JSONError(offset: 0, reason: .inputTooLarge(limit: limits.maxInputBytes))
        }
        var parser = JSONParser(bytes: Array(bytes), limits: limits)
        return try parser.parseDocument()
    }

    /// Parses one JSON text (RFC 8259) from a string within `limits`.
    public static func parse(_ text: String, limits: JSONLimits = .default) throws(JSONError) -> JSONValue {
        guard text.utf8.count <= limits.maxInputBytes else {
            throw JSONError(offset: 0, reason: .inputTooLarge(limit: limits.maxInputBytes))
        }
        var parser = JSONParser(bytes: Array(text.utf8), limits: limits)
        return try parser.parseDocument()
    }
}

/// The parser state: the input, a read index and the limits. Internal; use `JSONValue.parse`.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private let maxDepth: Int
    private let maxStringBytes: Int

    init(bytes: [UInt8], limits: JSONLimits) {
        self.bytes = bytes
        self.maxDepth = max(0, min(limits.maxDepth, JSONLimits.hardMaxDepth))
        self.maxStringBytes = max(0, limits.maxStringBytes)
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail(.trailingData) }
        return value
    }

    // MARK: Cursor

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func advance() {
        if index < bytes.count { index += 1 }
    }

    private func fail(_ reason: JSONError.Reason, at offset: Int? = nil) -> JSONError {
        JSONError(offset: offset ?? index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
            index += 1
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONError) {
        for expected in literal.utf8 {
            guard let b = peek() else { throw fail(.unexpectedEnd) }
            guard b == expected else { throw fail(.unexpectedByte(b)) }
            index += 1
        }
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard let b = peek() else { throw fail(.unexpectedEnd) }
        switch b {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail(.unexpectedByte(b))
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
        advance() // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            advance()
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { throw fail(.trailingComma) }
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard let b = peek() else { throw fail(.unexpectedEnd) }
            if b == UInt8(ascii: ",") {
                advance()
            } else if b == UInt8(ascii: "]") {
                advance()
                return .array(elements)
            } else {
                throw fail(.unexpectedByte(b))
            }
        }
    }

    /// Objects up to this many members find duplicate keys by scanning; larger ones build an index.
    static let linearKeyScanLimit = 16

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
        advance() // {
        var members: [(String, JSONValue)] = []
        // Duplicate keys: a linear scan while the object is small (most are), an index after.
        var positions: [String: Int]? = nil
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            advance()
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard let first = peek() else { throw fail(.unexpectedEnd) }
            if first == UInt8(ascii: "}") { throw fail(.trailingComma) }
            guard first == UInt8(ascii: "\"") else { throw fail(.expectedKey) }
            let key = try parseString()
            skipWhitespace()
            guard let colon = peek() else { throw fail(.unexpectedEnd) }
            guard colon == UInt8(ascii: ":") else { throw fail(.expectedColon) }
            advance()
            skipWhitespace()
            let value = try parseValue(depth: depth)
            if positions == nil && members.count >= Self.linearKeyScanLimit {
                var index: [String: Int] = [:]
                for (position, member) in members.enumerated() { index[member.0] = position }
                positions = index
            }
            let existing = positions.map { $0[key] } ?? members.firstIndex { $0.0 == key }
            if let existing {
                members[existing].1 = value
            } else {
                positions?[key] = members.count
                members.append((key, value))
            }
            skipWhitespace()
            guard let b = peek() else { throw fail(.unexpectedEnd) }
            if b == UInt8(ascii: ",") {
                advance()
            } else if b == UInt8(ascii: "}") {
                advance()
                return .object(members)
            } else {
                throw fail(.unexpectedByte(b))
            }
        }
    }

    // MARK: Numbers

    private static func isDigit(_ b: UInt8?) -> Bool {
        guard let b else { return false }
        return b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
    }

    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            advance()
        }
        guard let lead = peek() else { throw fail(.unexpectedEnd) }
        guard Self.isDigit(lead) else { throw fail(.invalidNumber) }
        // Integer part, accumulated negatively so Int64.min fits.
        var accumulator: Int64 = 0
        var overflow = false
        if lead == UInt8(ascii: "0") {
            advance()
            if Self.isDigit(peek()) { throw fail(.invalidNumber) }
        } else {
            while let b = peek(), Self.isDigit(b) {
                if !overflow {
                    let (m, o1) = accumulator.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.subtractingReportingOverflow(Int64(b - UInt8(ascii: "0")))
                    if o1 || o2 { overflow = true } else { accumulator = s }
                }
                advance()
            }
        }
        var integral = true
        if peek() == UInt8(ascii: ".") {
            integral = false
            advance()
            guard Self.isDigit(peek()) else {
                throw index >= bytes.count ? fail(.unexpectedEnd) : fail(.invalidNumber)
            }
            while Self.isDigit(peek()) { advance() }
        }
        if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            integral = false
            advance()
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { advance() }
            guard Self.isDigit(peek()) else {
                throw index >= bytes.count ? fail(.unexpectedEnd) : fail(.invalidNumber)
            }
            while Self.isDigit(peek()) { advance() }
        }
        if integral && !overflow {
            if negative { return .int(accumulator) }
            if accumulator != Int64.min { return .int(-accumulator) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text) else { throw fail(.invalidNumber, at: start) }
        return .double(value)
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONError) -> String {
        advance() // opening quote
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw fail(.unexpectedEnd) }
            switch b {
            case UInt8(ascii: "\""):
                advance()
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                advance()
                try appendEscape(into: &out)
            case 0x00..<0x20:
                throw fail(.controlCharacterInString)
            case 0x20..<0x80:
                out.append(b)
                advance()
            default:
                try appendUTF8Sequence(into: &out)
            }
            guard out.count <= maxStringBytes else { throw fail(.stringTooLong(limit: maxStringBytes)) }
        }
    }

    /// Copies one multi-byte UTF-8 sequence starting at `index`, checking it per Unicode Table 3-7.
    private mutating func appendUTF8Sequence(into out: inout [UInt8]) throws(JSONError) {
        let start = index
        guard let lead = peek() else { throw fail(.unexpectedEnd) }
        let count: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; secondHigh = 0x9F
        case 0xF0: count = 4; secondLow = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; secondHigh = 0x8F
        default: throw fail(.invalidUTF8)
        }
        guard bytes.count - start >= count else { throw fail(.invalidUTF8) }
        for i in 1..<count {
            let c = bytes[start + i]
            let low: UInt8 = i == 1 ? secondLow : 0x80
            let high: UInt8 = i == 1 ? secondHigh : 0xBF
            guard c >= low && c <= high else { throw fail(.invalidUTF8, at: start + i) }
        }
        out.append(contentsOf: bytes[start..<(start + count)])
        index = start + count
    }

    private mutating func appendEscape(into out: inout [UInt8]) throws(JSONError) {
        guard let e = peek() else { throw fail(.unexpectedEnd) }
        let simple: UInt8?
        switch e {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw fail(.invalidEscape)
        }
        advance()
        if let simple {
            out.append(simple)
            return
        }
        let escapeStart = index - 2
        let first = try readHex4()
        var scalarValue = UInt32(first)
        if first >= 0xD800 && first <= 0xDBFF {
            guard peek() == UInt8(ascii: "\\") else { throw fail(.loneSurrogate, at: escapeStart) }
            advance()
            guard peek() == UInt8(ascii: "u") else { throw fail(.loneSurrogate, at: escapeStart) }
            advance()
            let second = try readHex4()
            guard second >= 0xDC00 && second <= 0xDFFF else { throw fail(.loneSurrogate, at: escapeStart) }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if first >= 0xDC00 && first <= 0xDFFF {
            throw fail(.loneSurrogate, at: escapeStart)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw fail(.invalidEscape, at: escapeStart) }
        UTF8.encode(scalar) { out.append($0) }
    }

    private mutating func readHex4() throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let h = peek() else { throw fail(.unexpectedEnd) }
            let digit: UInt8
            switch h {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = h - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = h - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = h - UInt8(ascii: "A") + 10
            default: throw fail(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            advance()
        }
        return value
    }
}

extension JSONError: ClawpairError {
    /// The same text as `description`.
    public var message: String { description }
}
