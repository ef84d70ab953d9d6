// A bounded, strict (RFC 8259) reader for identity files that never copies string contents.
//
// `JSONValue.parse` would turn the private key into a Swift `String`, which cannot be wiped. This
// reader validates the whole document (bytes plus an offset in, value and new offset out) but
// keeps each top-level string member as a span of the input; the identity decoder unescapes
// secret spans straight into guarded memory and only public ones into `String`s.
//
// Limits: nesting depth 16, 64 top-level members, input size checked by the caller
// (`IdentityFile.maxBytes`). Duplicate top-level names are refused (JSON.parse would take the
// last one; the ambiguity is not worth keeping).

/// One JSON object read from identity-file bytes.
struct KeyFileJSON {
    /// A top-level member's value.
    enum Value {
        /// A string: the span between the quotes, still escaped.
        case string(Range<Int>)
        /// An integer literal that fits `Int64`.
        case integer(Int64)
        /// Any other number.
        case number
        case bool
        case null
        case array
        case object

        /// For wrong-type messages.
        var typeName: String {
            switch self {
            case .string: return "a string"
            case .integer, .number: return "a number"
            case .bool: return "a Boolean"
            case .null: return "null"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    static let maxDepth = 16
    static let maxMembers = 64

    /// The top-level members in order.
    let members: [(name: String, value: Value)]

    /// The member called `name`.
    func value(_ name: String) -> Value? {
        members.first { $0.name == name }?.value
    }

    /// Parses `bytes`, which must hold exactly one JSON object (surrounded by whitespace at most).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(IdentityFormatError) -> KeyFileJSON {
        var cursor = Cursor(bytes: bytes)
        cursor.skipWhitespace()
        guard cursor.peek == UInt8(ascii: "{") else { throw cursor.fail("expected a JSON object") }
        let members = try cursor.parseTopObject()
        cursor.skipWhitespace()
        guard cursor.atEnd else { throw cursor.fail("extra data after the object") }
        return KeyFileJSON(members: members)
    }

    /// Unescapes the string span `range` of `bytes` into `output`, refusing anything that is not
    /// ASCII (every identity-file field is). Returns the number of bytes written.
    static func unescapeASCII(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, field: String,
                              into output: UnsafeMutableRawBufferPointer) throws(IdentityFormatError) -> Int {
        var i = range.lowerBound
        var n = 0
        func put(_ b: UInt8) throws(IdentityFormatError) {
            guard n < output.count else { throw .tooLarge(limit: output.count) }
            output[n] = b
            n += 1
        }
        while i < range.upperBound {
            let b = bytes[i]
            if b >= 0x80 { throw .notASCII(field: field) }
            if b != UInt8(ascii: "\\") {
                try put(b)
                i += 1
                continue
            }
            // The scanner already checked escapes are complete and well-formed.
            let e = bytes[i + 1]
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): try put(e)
            case UInt8(ascii: "b"): try put(0x08)
            case UInt8(ascii: "f"): try put(0x0c)
            case UInt8(ascii: "n"): try put(0x0a)
            case UInt8(ascii: "r"): try put(0x0d)
            case UInt8(ascii: "t"): try put(0x09)
            default:  // u
                var value: UInt32 = 0
                for k in 0..<4 { value = value << 4 | UInt32(Cursor.hexValue(bytes[i + 2 + k])!) }
                guard value < 0x80 else { throw .notASCII(field: field) }
                try put(UInt8(value))
                i += 4
            }
            i += 2
        }
        return n
    }

    /// A public string member as `String` (ASCII only), or a typed error.
    static func publicString(_ bytes: UnsafeRawBufferPointer, _ json: KeyFileJSON, _ field: String,
                             maxBytes: Int = 4096) throws(IdentityFormatError) -> String? {
        guard let value = json.value(field) else { return nil }
        guard case let .string(range) = value else { throw .wrongType(field: field, expected: "a string") }
        var out = [UInt8](repeating: 0, count: min(range.count, maxBytes))
        let n = try out.withUnsafeMutableBytes { buffer in
            Result { () throws(IdentityFormatError) -> Int in try unescapeASCII(bytes, range, field: field, into: buffer) }
        }.get()
        return String(decoding: out[0..<n], as: UTF8.self)
    }

    /// The scanner: a byte buffer and an offset.
    struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var atEnd: Bool { offset >= bytes.count }
        var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        func fail(_ reason: String) -> IdentityFormatError {
            .invalidJSON(offset: offset, reason: reason)
        }

        mutating func skipWhitespace() {
            while let b = peek, b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d { offset += 1 }
        }

        mutating func expect(_ b: UInt8, _ what: String) throws(IdentityFormatError) {
            guard peek == b else { throw fail("expected \(what)") }
            offset += 1
        }

        static func hexValue(_ b: UInt8) -> UInt8? {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }

        /// The top-level object: members recorded, values as spans.
        mutating func parseTopObject() throws(IdentityFormatError) -> [(name: String, value: Value)] {
            try expect(UInt8(ascii: "{"), "'{'")
            var members: [(name: String, value: Value)] = []
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                offset += 1
                return members
            }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let nameStart = offset
                let nameRange = try scanString()
                guard let name = String(validating: UnsafeRawBufferPointer(rebasing: bytes[nameRange]), as: UTF8.self),
                      !name.contains("\\") else {
                    offset = nameStart
                    throw fail("member names must be plain text")
                }
                if members.contains(where: { $0.name == name }) { throw .duplicateField(name) }
                guard members.count < KeyFileJSON.maxMembers else { throw fail("too many members") }
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':'")
                skipWhitespace()
                let value = try parseValue(depth: 1)
                members.append((name, value))
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                try expect(UInt8(ascii: "}"), "',' or '}'")
                return members
            }
        }

        /// Any value: validated; nested containers are skipped.
        mutating func parseValue(depth: Int) throws(IdentityFormatError) -> Value {
            guard let b = peek else { throw fail("unexpected end of input") }
            switch b {
            case UInt8(ascii: "\""): return .string(try scanString())
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < KeyFileJSON.maxDepth else { throw fail("nested too deeply") }
                try skipContainer(depth: depth)
                return b == UInt8(ascii: "{") ? .object : .array
            case UInt8(ascii: "t"): try literal("true"); return .bool
            case UInt8(ascii: "f"): try literal("false"); return .bool
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try scanNumber()
            default: throw fail("unexpected byte 0x\(String(b, radix: 16))")
            }
        }

        mutating func literal(_ word: String) throws(IdentityFormatError) {
            for c in word.utf8 {
                guard peek == c else { throw fail("invalid literal") }
                offset += 1
            }
        }

        mutating func skipContainer(depth: Int) throws(IdentityFormatError) {
            let isObject = peek == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            offset += 1
            skipWhitespace()
            if peek == close {
                offset += 1
                return
            }
            while true {
                skipWhitespace()
                if isObject {
                    guard peek == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                    _ = try scanString()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"), "':'")
                    skipWhitespace()
                }
                _ = try parseValue(depth: depth + 1)
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                try expect(close, isObject ? "',' or '}'" : "',' or ']'")
                return
            }
        }

        /// A string: returns the span between the quotes. Checks escapes, control characters
        /// and UTF-8 without copying anything.
        mutating func scanString() throws(IdentityFormatError) -> Range<Int> {
            offset += 1  // opening quote
            let start = offset
            while true {
                guard let b = peek else { throw fail("unterminated string") }
                switch b {
                case UInt8(ascii: "\""):
                    let range = start..<offset
                    offset += 1
                    return range
                case UInt8(ascii: "\\"):
                    guard offset + 1 < bytes.count else { throw fail("unterminated string") }
                    switch bytes[offset + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        offset += 2
                    case UInt8(ascii: "u"):
                        guard offset + 5 < bytes.count else { throw fail("invalid escape sequence") }
                        for k in 2..<6 where Self.hexValue(bytes[offset + k]) == nil {
                            throw fail("invalid escape sequence")
                        }
                        offset += 6
                    default:
                        throw fail("invalid escape sequence")
                    }
                case 0x00..<0x20:
                    throw fail("unescaped control character in a string")
                case 0x80...:
                    try skipUTF8Scalar()
                default:
                    offset += 1
                }
            }
        }

        /// One multi-byte UTF-8 scalar (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
        mutating func skipUTF8Scalar() throws(IdentityFormatError) {
            let b0 = bytes[offset]
            let length: Int
            var lowest: UInt8 = 0x80, highest: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowest = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; highest = 0x9F
            case 0xF0: length = 4; lowest = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; highest = 0x8F
            default: throw fail("invalid UTF-8")
            }
            guard offset + length <= bytes.count else { throw fail("invalid UTF-8") }
            let b1 = bytes[offset + 1]
            guard b1 >= lowest && b1 <= highest else { throw fail("invalid UTF-8") }
            for k in 2..<length where bytes[offset + k] & 0xC0 != 0x80 {
                throw fail("invalid UTF-8")
            }
            offset += length
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func scanNumber() throws(IdentityFormatError) -> Value {
            let start = offset
            var integral = true
            if peek == UInt8(ascii: "-") { offset += 1 }
            func digits(_ cursor: inout Cursor) -> Int {
                var count = 0
                while let d = cursor.peek, d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") {
                    cursor.offset += 1
                    count += 1
                }
                return count
            }
            if peek == UInt8(ascii: "0") {
                offset += 1
            } else if digits(&self) == 0 {
                throw fail("malformed number")
            }
            if peek == UInt8(ascii: ".") {
                offset += 1
                integral = false
                guard digits(&self) > 0 else { throw fail("malformed number") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                offset += 1
                integral = false
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { offset += 1 }
                guard digits(&self) > 0 else { throw fail("malformed number") }
            }
            guard integral, offset - start <= 20 else { return .number }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            if let value = Int64(text) { return .integer(value) }
            return .number
        }
    }
}
