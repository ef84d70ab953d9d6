import ClawpairCore
import ClawpairWideArea
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
}
