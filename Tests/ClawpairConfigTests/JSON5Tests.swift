import ClawpairCore
import ClawpairConfig
import ClawpairTestSupport
import Foundation
import Testing

@Suite("JSON5 reader")
struct JSON5Tests {
    @Test("an openclaw.json with comments, trailing commas, unquoted keys and single quotes")
    func openclawConfig() throws {
        let text = """
            // OpenClaw config
            {
              /* gateway */ gateway: { port: 18789, tls: { enabled: true, }, },
              discovery: {
                mdns: { mode: 'minimal' },
                wideArea: { enabled: true, domain: '  openclaw.internal  ', },
              },
              list: [1, 2, 3,],
            }
            """
        let value = try JSON5.parse(text)
        #expect(OpenClawConfig.wideAreaDomain(in: value) == "  openclaw.internal  ")
        #expect(value["gateway"]?["port"] == .int(18789))
        #expect(value["list"] == .array([.int(1), .int(2), .int(3)]))
    }

    @Test("values", arguments: [
        ("'it\\'s'", JSONValue.string("it's")),
        ("\"a\\x41\\u00e9\\v\\0\"", .string("aA\u{E9}\u{0B}\u{0}")),
        ("'line\\\ncontinued'", .string("linecontinued")),
        ("\"\\ud83e\\udd9e\"", .string("🦞")),
        ("\"\\q\"", .string("q")),
        ("0x1F", .int(31)),
        ("-0x10", .int(-16)),
        ("+5", .int(5)),
        (".5", .double(0.5)),
        ("5.", .double(5)),
        ("1e3", .double(1000)),
        ("-Infinity", .double(-.infinity)),
        ("null", .null),
        ("{a:1,a:2}", .object([("a", .int(2))])),
        ("{$x_1: true}", .object([("$x_1", .bool(true))])),
        ("[]", .array([])),
        ("\u{FEFF}{}", .object([])),
    ])
    func values(input: String, expected: JSONValue) throws {
        #expect(try JSON5.parse(input) == expected, "\(input)")
    }

    @Test("bad input is an error with an offset, never a trap", arguments: [
        "", "{", "[1,,2]", "{a}", "{a:}", "'open", "/* open", "/", "{1:2}", "\"a\nb\"", "01x", "0x", "1e", "tru",
        "[1] 2", "{,}", "\"\\x4\"", "\"\\u12\"", "\"\\01\"", "-", ".", "{a:1,,}",
    ])
    func badInput(input: String) {
        #expect(throws: JSON5Error.self, "\(input)") { try JSON5.parse(input) }
    }

    @Test("mutated configs never trap; what parses serializes to JSON that parses back the same")
    func mutations() {
        let seed = Array("// c\n{ discovery: { wideArea: { domain: 'a\\x41\\u00e9', }, }, n: [0x1F, .5, +1e3, -Infinity, \"\\ud83e\\udd9e\"], }".utf8)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]:,'\"\\/*x0u.+-eE \n".utf8) + [0x00, 0xFF, 0xC3, 0xE2]
        for _ in 0..<3000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = alphabet.randomElement(using: &generator)!
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                default: if bytes.count > 1 { bytes.remove(at: index) }
                }
            }
            guard let value = try? JSON5.parse(bytes) else { continue }
            let compact = value.compact()
            #expect((try? JSON5.parse(compact))?.compact() == compact, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("depth and size are bounded")
    func bounds() {
        #expect(throws: JSON5Error.self) { try JSON5.parse(String(repeating: "[", count: 10_000)) }
        #expect((try? JSON5.parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil)
        #expect(throws: JSON5Error.self) { try JSON5.parse("'" + String(repeating: "a", count: JSON5.maxInputBytes) + "'") }
    }

    @Test("config file: missing is none, unreadable JSON5 names the file")
    func configFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try OpenClawConfig.wideAreaDomain(path: directory.path + "/none.json") == nil)
        let good = directory.appendingPathComponent("openclaw.json")
        try "{discovery:{wideArea:{domain:'example.internal'}}}".write(to: good, atomically: true, encoding: .utf8)
        #expect(try OpenClawConfig.wideAreaDomain(path: good.path) == "example.internal")
        let bad = directory.appendingPathComponent("bad.json")
        try "{discovery:".write(to: bad, atomically: true, encoding: .utf8)
        do {
            _ = try OpenClawConfig.wideAreaDomain(path: bad.path)
            Issue.record("a broken file parsed")
        } catch {
            #expect(error.message.hasPrefix(bad.path + ": JSON5 at byte"), "\(error.message)")
        }
        #expect(OpenClawConfig.path(environment: ["HOME": "/home/u/"]) == "/home/u/.openclaw/openclaw.json")
        #expect(OpenClawConfig.path(environment: ["HOME": "/h", "OPENCLAW_STATE_DIR": "/s"]) == "/s/openclaw.json")
        #expect(OpenClawConfig.path(environment: ["OPENCLAW_CONFIG_PATH": "/c.json", "OPENCLAW_STATE_DIR": "/s"]) == "/c.json")
    }

    @Test("an object with as many keys as fit in 1 MiB parses in linear time; duplicates: the last wins, first position kept")
    func manyKeys() throws {
        var text = "{"
        var count = 0
        while text.utf8.count < JSON5.maxInputBytes - 64 {
            text += "k\(count):\(count % 10),"
            count += 1
        }
        text += "k0:'last'}"
        let started = ContinuousClock.now
        let value = try JSON5.parse(text)
        // Only catches the quadratic duplicate scan (tens of seconds at this size), never speed.
        #expect(ContinuousClock.now - started < .milliseconds(Harness.hangSlackMs))
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.count == count)
        #expect(members.first?.0 == "k0" && members.first?.1 == .string("last"))
        #expect(members.last?.0 == "k\(count - 1)")
    }
}
