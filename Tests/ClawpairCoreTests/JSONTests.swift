import ClawpairCore
import ClawpairTestSupport
import Foundation
import Testing

@Suite struct JSONParseTests {
    @Test func scalars() throws {
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse(" true ") == .bool(true))
        #expect(try JSONValue.parse("false") == .bool(false))
        #expect(try JSONValue.parse("0") == .int(0))
        #expect(try JSONValue.parse("-0") == .int(0))
        #expect(try JSONValue.parse("1737264600000") == .int(1_737_264_600_000))
        #expect(try JSONValue.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONValue.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONValue.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue.parse("1.5") == .double(1.5))
        #expect(try JSONValue.parse("1e3") == .double(1000))
        #expect(try JSONValue.parse("-2.5E-3") == .double(-0.0025))
        #expect(try JSONValue.parse("\"a\\u00e9\\ud83d\\ude00\"") == .string("aé😀"))
        #expect(try JSONValue.parse("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"") == .string("\"\\/\u{8}\u{c}\n\r\t"))
        #expect(try JSONValue.parse("\"\\u0000\"") == .string("\u{0}"))
        // Out-of-range magnitudes do not trap (they become ±infinity or an error, never a crash).
        _ = try? JSONValue.parse("1e400")
        _ = try? JSONValue.parse("-" + String(repeating: "9", count: 5000))
    }

    @Test func objectsKeepOrderAndLastDuplicateWins() throws {
        let v = try JSONValue.parse(#"{"b":1,"a":2,"b":3}"#)
        #expect(v == .object([("b", .int(3)), ("a", .int(2))]))
        #expect(v["b"] == .int(3))
        #expect(v.compact() == #"{"b":3,"a":2}"#)
        #expect(v != .object([("a", .int(2)), ("b", .int(3))]))
    }

    @Test func duplicatesInLargeObjects() throws {
        // Past the linear-scan limit the parser switches to an index; the rule stays the same.
        let keys = (0..<40).map { "k\($0)" }
        let text = "{" + keys.map { "\"\($0)\":1" }.joined(separator: ",") + ",\"k3\":7,\"k39\":9}"
        let v = try JSONValue.parse(text)
        guard case .object(let members) = v else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == keys)
        #expect(v["k3"] == .int(7))
        #expect(v["k39"] == .int(9))
    }

    @Test func accessors() throws {
        let v = try JSONValue.parse(#"{"s":"x","n":null,"i":5,"d":2.0,"a":[1,"y"],"o":{"k":true}}"#)
        #expect(v["s"]?.stringValue == "x")
        #expect(v["n"]?.isNull == true)
        #expect(v["missing"] == nil)
        #expect(v["i"]?.int64Value == 5)
        #expect(v["d"]?.int64Value == 2)
        #expect(v["d"]?.doubleValue == 2.0)
        #expect(v["a"]?[1]?.stringValue == "y")
        #expect(v["a"]?[2] == nil)
        #expect(v["a"]?[-1] == nil)
        #expect(v["o"]?["k"]?.boolValue == true)
        #expect(v["o"]?.objectValue?.count == 1)
        #expect(v["s"]?.int64Value == nil)
        #expect(JSONValue.double(1e300).int64Value == nil)
        #expect(JSONValue.double(.nan).int64Value == nil)
    }

    @Test(arguments: [
        ("", JSONError.Reason.unexpectedEnd),
        ("   ", .unexpectedEnd),
        ("[1,]", .trailingComma),
        (#"{"a":1,}"#, .trailingComma),
        ("01", .invalidNumber),
        ("-", .unexpectedEnd),
        ("1.", .unexpectedEnd),
        ("1.e3", .invalidNumber),
        ("+1", .unexpectedByte(UInt8(ascii: "+"))),
        ("NaN", .unexpectedByte(UInt8(ascii: "N"))),
        ("[1] x", .trailingData),
        ("{} {}", .trailingData),
        ("// c\n1", .unexpectedByte(UInt8(ascii: "/"))),
        ("'a'", .unexpectedByte(UInt8(ascii: "'"))),
        ("\"a\nb\"", .controlCharacterInString),
        ("\"\\x\"", .invalidEscape),
        ("\"\\u12G4\"", .invalidEscape),
        ("\"\\ud800\"", .loneSurrogate),
        ("\"\\udc00\"", .loneSurrogate),
        ("\"\\ud800\\u0041\"", .loneSurrogate),
        ("{1:2}", .expectedKey),
        (#"{"a" 1}"#, .expectedColon),
        ("[1 2]", .unexpectedByte(UInt8(ascii: "2"))),
        ("tru", .unexpectedEnd),
        ("trux", .unexpectedByte(UInt8(ascii: "x"))),
        ("\u{FEFF}{}", .unexpectedByte(0xEF)),
        ("\"abc", .unexpectedEnd),
    ])
    func rejects(input: String, reason: JSONError.Reason) {
        #expect(throws: JSONError.self, "\(input.debugDescription)") { try JSONValue.parse(input) }
        do {
            _ = try JSONValue.parse(input)
        } catch {
            #expect(error.reason == reason, "\(input.debugDescription): \(error)")
        }
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22],             // invalid byte
        [0x22, 0xC0, 0x80, 0x22],       // overlong NUL
        [0x22, 0xE0, 0x80, 0x80, 0x22], // overlong
        [0x22, 0xED, 0xA0, 0x80, 0x22], // UTF-8 encoded surrogate
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
        [0x22, 0xE2, 0x82, 0x22],       // truncated
        [0x22, 0xC3],                   // truncated at end
    ] as [[UInt8]])
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONError.self, "\(bytes)") { try JSONValue.parse(bytes) }
    }

    @Test func acceptsValidMultibyte() throws {
        let bytes: [UInt8] = [0x22, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0x22]
        #expect(try JSONValue.parse(bytes) == .string("é€😀"))
    }

    @Test func limits() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep) }
        do { _ = try JSONValue.parse(deep) } catch { #expect(error.reason == .tooDeep(limit: 64)) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect((try? JSONValue.parse(ok)) != nil)
        let tooDeep = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONError.self) { try JSONValue.parse(tooDeep) }
        // The hard clamp keeps a caller's huge depth from blowing the stack.
        let huge = JSONLimits(maxDepth: Int.max)
        #expect(throws: JSONError.self) { try JSONValue.parse(deep, limits: huge) }

        let big = [UInt8](repeating: 0x20, count: JSONLimits.defaultMaxInputBytes + 1)
        do { _ = try JSONValue.parse(big) } catch { #expect(error.reason == .inputTooLarge(limit: 1 << 20)) }
        let longString = "\"" + String(repeating: "a", count: 11) + "\""
        do {
            _ = try JSONValue.parse(longString, limits: JSONLimits(maxStringBytes: 10))
            Issue.record("expected stringTooLong")
        } catch {
            #expect(error.reason == .stringTooLong(limit: 10))
        }
    }

    @Test func errorOffsets() {
        do { _ = try JSONValue.parse(#"{"a": [1, 2,]}"#) } catch {
            #expect(error.offset == 12)
            #expect(error.description.contains("byte 12"))
        }
    }
}

@Suite struct JSONSerializeTests {
    @Test func compactMatchesJavaScript() {
        let v: JSONValue = [
            "url": "wss://gateway.example.com/ctx",
            "n": 1_737_264_600_000,
            "neg": -5,
            "f": 0.1,
            "t": true,
            "z": nil,
            "a": [1, "two", [], [:]],
            "esc": "q\"b\\s/\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}é😀\u{2028}",
        ]
        #expect(v.compact() == #"{"url":"wss://gateway.example.com/ctx","n":1737264600000,"neg":-5,"f":0.1,"t":true,"z":null,"a":[1,"two",[],{}],"esc":"q\"b\\s/\b\f\n\r\t\u0001\u001f"# + "\u{7f}é😀\u{2028}\"}")
    }

    @Test(arguments: [
        (0.0, "0"), (-0.0, "0"), (1.0, "1"), (-1.5, "-1.5"), (0.1, "0.1"), (100.0, "100"),
        (1e21, "1e+21"), (1e20, "100000000000000000000"), (123456789012345680000.0, "123456789012345680000"),
        (1.5e300, "1.5e+300"), (1e-6, "0.000001"), (1e-7, "1e-7"), (1.2345e-7, "1.2345e-7"),
        (Double.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"), (0.000123, "0.000123"),
        (123.456, "123.456"), (1e16, "10000000000000000"), (.nan, "null"), (.infinity, "null"),
        (-.infinity, "null"), (2.5e-5, "0.000025"), (1.0e15 + 0.5, "1000000000000000.5"),
    ] as [(Double, String)])
    func doublesFormatLikeJavaScript(value: Double, expected: String) {
        #expect(JSONValue.double(value).compact() == expected, "\(value)")
    }

    @Test func prettyMatchesJavaScript() {
        let v: JSONValue = ["a": 1, "b": [true, nil], "c": [:], "d": [], "e": ["x": "y"]]
        let expected = """
        {
          "a": 1,
          "b": [
            true,
            null
          ],
          "c": {},
          "d": [],
          "e": {
            "x": "y"
          }
        }
        """
        #expect(v.pretty() == expected)
        #expect(v.pretty(indent: 0) == v.compact())
        #expect(JSONValue.array([1]).pretty(indent: 40) == "[\n          1\n]")
        #expect(JSONValue.string("x").pretty() == "\"x\"")
    }

    @Test func compactAgreesWithFoundationOnAscii() throws {
        // Foundation is allowed in tests: cross-check that our output is valid JSON it reads back.
        let v: JSONValue = ["k": ["s\u{1}": 1.25, "u": "é"], "l": [1, 2, 3]]
        let data = Data(v.compact().utf8)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["l"] as? [Int] == [1, 2, 3])
    }
}

@Suite struct JSONRoundTripTests {
    static func randomString(_ rng: inout SeededGenerator) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1f}", "\u{7f}", "é", "€", "😀",
                                      "\u{2028}", "\u{FFFF}", "\n", "\t", "{", "]", ":", ","]
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            s.append(pool[Int.random(in: 0..<pool.count, using: &rng)])
        }
        return String(s)
    }

    static func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 4 ? 5 : 7), using: &rng)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &rng) >> Int64.random(in: 0...63, using: &rng))
        case 3:
            // Non-integral doubles across magnitudes (integral ones reparse as .int by design).
            let mantissa = Double.random(in: -1...1, using: &rng)
            let d = mantissa * pow(10, Double(Int.random(in: -30...30, using: &rng)))
            // Integral doubles below 2^63 would come back as .int; keep them fractional.
            guard d.rounded() == d, d.magnitude < 9.2e18 else { return .double(d) }
            return .double(d / 1e6 + 0.25)
        case 4: return .string(randomString(&rng))
        case 5:
            return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var members: [(String, JSONValue)] = []
            var used: Set<String> = []
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                let key = randomString(&rng)
                guard used.insert(key).inserted else { continue }
                members.append((key, randomValue(&rng, depth: depth + 1)))
            }
            return .object(members)
        }
    }

    @Test func parseOfCompactIsIdentity() throws {
        var rng = SeededGenerator(seed: 0xC1A5_9A12)
        for i in 0..<2000 {
            let v = Self.randomValue(&rng, depth: 0)
            let compact = v.compact()
            let reparsed = try JSONValue.parse(compact)
            #expect(reparsed == v, "case \(i): \(compact)")
            #expect(try JSONValue.parse(v.pretty(indent: 3)) == v, "case \(i) pretty")
            #expect(reparsed.compact() == compact, "case \(i) stable")
        }
    }

    @Test func randomBytesNeverTrap() {
        var rng = SeededGenerator(seed: 42)
        let alphabet = Array("{}[]\":,0123456789-+.eEtrufalsn \\u\n".utf8) + [0x00, 0xC3, 0xA9, 0xFF, 0xED, 0xA0]
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] }
            if let v = try? JSONValue.parse(bytes) {
                accepted += 1
                // Numbers like 1e5 come back as .int(100000), so compare the serialized forms.
                #expect((try? JSONValue.parse(v.compact()))?.compact() == v.compact(), "\(bytes)")
            }
        }
        #expect(accepted > 0)
    }
}

/// What the CLI prints for --json: DEL, C1 and bidi controls escaped, the value unchanged.
@Suite struct JSONTerminalSafeTests {
    @Test("C1, bidi, DEL and line separators come out as \\u escapes; the parsed value is the same")
    func escapes() throws {
        let hostile = "Evil\u{9B}31m \u{202E}gnp.exe\u{2066}x\u{2069} \u{200F}\u{061C}\u{7F}\u{85}\u{2028}é😀\u{1B}"
        let value = JSONValue.object([("name\u{202E}", .string(hostile))])
        let safe = value.compact(terminalSafe: true)
        #expect(safe == #"{"name\u202e":"Evil\u009b31m \u202egnp.exe\u2066x\u2069 \u200f\u061c\u007f\u0085\u2028é😀\u001b"}"#)
        #expect(try JSONValue.parse(safe) == value)
        #expect(try JSONValue.parse(value.pretty(terminalSafe: true)) == value)
        // Without the option: JSON.stringify's bytes exactly (the controls raw).
        #expect(value.compact() == "{\"name\u{202E}\":\"\(hostile.replacingOccurrences(of: "\u{1B}", with: "\\u001b"))\"}")
        #expect(JSONValue.string("plain").compact(terminalSafe: true) == #""plain""#)
    }
}

/// A URL's userinfo never reaches an error message.
@Suite struct RedactionURLTests {
    @Test func userinfoIsHidden() {
        #expect(Redaction.url("wss://admin:hunter2@gw.example.com") == "wss://<redacted>@gw.example.com")
        #expect(Redaction.url("ws://tok@host:18789/path?q=a@b") == "ws://<redacted>@host:18789/path?<redacted>")
        #expect(Redaction.url("wss://gw.example.com:443/x?token=s3cret#frag") == "wss://gw.example.com:443/x?<redacted>", "#25.10")
        #expect(Redaction.url("ws://host#s3cret") == "ws://host#<redacted>")
        #expect(Redaction.url("https://a@b:c@host/") == "https://<redacted>@host/")
        #expect(Redaction.url("wss://gw.example.com/x@y") == "wss://gw.example.com/x@y")
        #expect(Redaction.url("host:18789") == "host:18789")
        #expect(Redaction.url("user@host") == "user@host")
    }
}

@Suite struct JSONDeepIndentTests {
    @Test("indentation past 64 spaces (40 levels of 2, 10 levels of 10) is exact")
    func deepIndent() {
        for (indent, depth) in [(2, 40), (10, 10)] {
            var value = JSONValue.int(1)
            for _ in 0..<depth { value = .array([value]) }
            var expected = ""
            for level in 0..<depth { expected += "[\n" + String(repeating: " ", count: indent * (level + 1)) }
            expected += "1"
            for level in stride(from: depth - 1, through: 0, by: -1) { expected += "\n" + String(repeating: " ", count: indent * level) + "]" }
            #expect(value.pretty(indent: indent) == expected)
        }
    }
}
