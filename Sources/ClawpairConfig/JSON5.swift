// A bounded JSON5 reader (https://spec.json5.org) for OpenClaw's `openclaw.json`, into the
// toolkit's `JSONValue`. Supported: `//` and `/* */` comments, trailing commas, unquoted
// (ASCII identifier) keys, single-quoted strings, the JSON5 escapes (`\x`, `\v`, `\0`, line
// continuations), hexadecimal numbers, leading/trailing decimal points, `+`, `Infinity` and `NaN`.
// Not supported: Unicode escapes or non-ASCII letters in unquoted keys (rejected, not misread).
//
// Checklist, accepting a new construct: add it to `value()`, give it a case in JSON5Tests.swift,
// and keep Fuzz/Sources/FuzzJSON5 passing.
import ClawpairCore

/// Why a JSON5 text did not parse: what, and the byte offset where.
public struct JSON5Error: ClawpairError, Equatable {
    /// What is wrong.
    public let reason: String
    /// The byte offset where it was found.
    public let offset: Int
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String { "JSON5 at byte \(offset): \(reason)" }
}

/// The JSON5 parser. Values come back as `JSONValue` (duplicate keys: the last wins, as in JS).
public enum JSON5 {
    /// Input above this many bytes is refused.
    public static let maxInputBytes = 1 << 20
    /// Arrays and objects nest at most this deep.
    public static let maxDepth = 64

    /// Parses JSON5 text (at most ``maxInputBytes``, nested at most ``maxDepth`` deep).
    public static func parse(_ text: String) throws(JSON5Error) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses JSON5 given as UTF-8 bytes (at most ``maxInputBytes``, nested at most ``maxDepth`` deep).
    public static func parse<Bytes: Collection>(_ bytes: Bytes) throws(JSON5Error) -> JSONValue where Bytes.Element == UInt8 {
        guard bytes.count <= maxInputBytes else { throw JSON5Error(reason: "input larger than \(maxInputBytes) bytes", offset: 0) }
        var parser = Parser(bytes: Array(bytes))
        // A UTF-8 byte order mark is allowed, as in JSON.parse of a file read as text.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        let value = try parser.value(depth: 0)
        try parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0

        func error(_ reason: String) -> JSON5Error { JSON5Error(reason: reason, offset: index) }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() throws(JSON5Error) {
            while let byte = peek {
                switch byte {
                case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20:
                    index += 1
                case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0xA0: // U+00A0
                    index += 2
                case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    index += 3 // U+2028, U+2029
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF:
                    index += 3 // U+FEFF
                case UInt8(ascii: "/"):
                    guard index + 1 < bytes.count else { throw error("a lone '/'") }
                    if bytes[index + 1] == UInt8(ascii: "/") {
                        index += 2
                        while let c = peek, c != 0x0A, c != 0x0D { index += 1 }
                    } else if bytes[index + 1] == UInt8(ascii: "*") {
                        let start = index
                        index += 2
                        while true {
                            guard index + 1 < bytes.count else {
                                index = start
                                throw error("unterminated /* comment")
                            }
                            if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") {
                                index += 2
                                break
                            }
                            index += 1
                        }
                    } else {
                        throw error("a lone '/'")
                    }
                default:
                    return
                }
            }
        }

        mutating func value(depth: Int) throws(JSON5Error) -> JSONValue {
            try skipSpace()
            guard let byte = peek else { throw error("expected a value, found the end") }
            switch byte {
            case UInt8(ascii: "{"):
                guard depth < JSON5.maxDepth else { throw error("nested deeper than \(JSON5.maxDepth)") }
                return try object(depth: depth + 1)
            case UInt8(ascii: "["):
                guard depth < JSON5.maxDepth else { throw error("nested deeper than \(JSON5.maxDepth)") }
                return try array(depth: depth + 1)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                return .string(try string())
            default:
                if isIdentifierStart(byte) {
                    let start = index
                    let word = identifier()
                    switch word {
                    case "null": return .null
                    case "true": return .bool(true)
                    case "false": return .bool(false)
                    case "Infinity": return .double(.infinity)
                    case "NaN": return .double(.nan)
                    default:
                        index = start
                        throw error("unexpected word '\(TerminalText.sanitize(word, maxScalars: 32))'")
                    }
                }
                return try number()
            }
        }

        mutating func object(depth: Int) throws(JSON5Error) -> JSONValue {
            index += 1
            var members: [(String, JSONValue)] = []
            // Where each key sits in `members`: a duplicate key (the last wins, as in JS) is
            // found in O(1), so an object of n keys parses in O(n), not O(n²).
            var positions: [String: Int] = [:]
            while true {
                try skipSpace()
                guard let byte = peek else { throw error("unterminated object") }
                if byte == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                let key: String
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    key = try string()
                } else if isIdentifierStart(byte) {
                    key = identifier()
                } else {
                    throw error("expected a key")
                }
                try skipSpace()
                guard peek == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                index += 1
                let value = try value(depth: depth)
                if let existing = positions[key] {
                    members[existing].1 = value
                } else {
                    positions[key] = members.count
                    members.append((key, value))
                }
                try skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else if peek != UInt8(ascii: "}") {
                    throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(JSON5Error) -> JSONValue {
            index += 1
            var elements: [JSONValue] = []
            while true {
                try skipSpace()
                guard let byte = peek else { throw error("unterminated array") }
                if byte == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                elements.append(try value(depth: depth))
                try skipSpace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else if peek != UInt8(ascii: "]") {
                    throw error("expected ',' or ']'")
                }
            }
        }

        func isIdentifierStart(_ byte: UInt8) -> Bool {
            (byte | 0x20 >= 97 && byte | 0x20 <= 122) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
        }

        mutating func identifier() -> String {
            let start = index
            while let byte = peek, isIdentifierStart(byte) || (byte >= 48 && byte <= 57) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func hexValue(_ count: Int) throws(JSON5Error) -> UInt32 {
            guard index + count <= bytes.count else { throw error("escape ends early") }
            var value: UInt32 = 0
            for _ in 0..<count {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 48...57: digit = UInt32(byte - 48)
                case 65...70: digit = UInt32(byte - 55)
                case 97...102: digit = UInt32(byte - 87)
                default: throw error("bad hex digit in an escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func string() throws(JSON5Error) -> String {
            let quote = bytes[index]
            let start = index
            index += 1
            var out: [UInt8] = []
            var pendingHigh: UInt32?
            func appendScalar(_ value: UInt32, into out: inout [UInt8]) {
                let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            while true {
                guard let byte = peek else {
                    index = start
                    throw error("unterminated string")
                }
                if byte == quote {
                    index += 1
                    break
                }
                if byte == 0x0A || byte == 0x0D {
                    throw error("a line break inside a string (escape it)")
                }
                if byte != UInt8(ascii: "\\") {
                    if let high = pendingHigh { appendScalar(high, into: &out); pendingHigh = nil }
                    out.append(byte)
                    index += 1
                    continue
                }
                index += 1
                guard let escaped = peek else { throw error("escape ends early") }
                index += 1
                var scalar: UInt32?
                switch escaped {
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "v"): scalar = 0x0B
                case UInt8(ascii: "0"):
                    if let next = peek, next >= 48 && next <= 57 { throw error("octal escapes are not JSON5") }
                    scalar = 0
                case UInt8(ascii: "x"): scalar = try hexValue(2)
                case UInt8(ascii: "u"):
                    let unit = try hexValue(4)
                    if (0xD800...0xDBFF).contains(unit) {
                        if let high = pendingHigh { appendScalar(high, into: &out) }
                        pendingHigh = unit
                        continue
                    }
                    if (0xDC00...0xDFFF).contains(unit), let high = pendingHigh {
                        pendingHigh = nil
                        appendScalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), into: &out)
                        continue
                    }
                    scalar = unit
                case 0x0A: scalar = nil // line continuation
                case 0x0D:
                    if peek == 0x0A { index += 1 }
                    scalar = nil
                case 49...57: throw error("digits cannot be escaped")
                default:
                    // Any other character stands for itself (`\'`, `\"`, `\\`, `\/`, `\q`).
                    index -= 1
                    if let high = pendingHigh { appendScalar(high, into: &out); pendingHigh = nil }
                    out.append(escaped)
                    index += 1
                }
                if let high = pendingHigh { appendScalar(high, into: &out); pendingHigh = nil }
                if let scalar { appendScalar(scalar, into: &out) }
                guard out.count <= JSON5.maxInputBytes else { throw error("string too long") }
            }
            if let high = pendingHigh { appendScalar(high, into: &out) }
            // Invalid UTF-8 in the input becomes U+FFFD, as a text decoder would.
            return String(decoding: out, as: UTF8.self)
        }

        mutating func number() throws(JSON5Error) -> JSONValue {
            let start = index
            var negative = false
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") {
                negative = peek == UInt8(ascii: "-")
                index += 1
            }
            if let byte = peek, isIdentifierStart(byte) {
                let word = identifier()
                if word == "Infinity" { return .double(negative ? -.infinity : .infinity) }
                if word == "NaN" { return .double(.nan) }
                index = start
                throw error("expected a number")
            }
            if peek == UInt8(ascii: "0"), index + 1 < bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
                index += 2
                let digitsStart = index
                var value: UInt64 = 0
                var overflow = false
                while let byte = peek, (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 102) {
                    let digit = UInt64(byte <= 57 ? byte - 48 : (byte | 0x20) - 87)
                    if value > (UInt64.max >> 4) { overflow = true } else { value = value << 4 | digit }
                    index += 1
                }
                guard index > digitsStart else { throw error("expected hex digits after 0x") }
                if !overflow, value <= UInt64(Int64.max) { return .int(negative ? -Int64(value) : Int64(value)) }
                return .double(negative ? -Double(value) : Double(value))
            }
            var digits = 0
            var isInteger = true
            while let byte = peek, byte >= 48 && byte <= 57 { index += 1; digits += 1 }
            if peek == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                while let byte = peek, byte >= 48 && byte <= 57 { index += 1; digits += 1 }
            }
            guard digits > 0 else {
                index = start
                throw error("expected a value")
            }
            if let e = peek, e | 0x20 == UInt8(ascii: "e") {
                isInteger = false
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                let expStart = index
                while let byte = peek, byte >= 48 && byte <= 57 { index += 1 }
                guard index > expStart else { throw error("expected exponent digits") }
            }
            guard index - start <= 400 else { throw error("number literal too long") }
            var text = String(decoding: bytes[start..<index], as: UTF8.self)
            if text.hasPrefix("+") { text.removeFirst() }
            if isInteger, let value = Int64(text) { return .int(value) }
            // Swift's Double parser takes "1.", ".5" and "-.5".
            guard let value = Double(text) else {
                index = start
                throw error("malformed number")
            }
            return .double(value)
        }
    }
}
