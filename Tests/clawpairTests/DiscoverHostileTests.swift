import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair discover --backend native` against a hostile mDNS responder (Tests/Fixtures/
/// hostile_mdns.py) in host B: escape sequences, bidi overrides, invalid UTF-8, maximum-length
/// names and strings, an 8 KiB TXT, 100 instances at once and malformed packets. The terminal
/// output stays free of control and bidi characters, JSON keeps the exact values, and every run
/// ends within --timeout. Everything stays inside the lab namespaces.
@Suite("clawpair discover: hostile beacons", .serialized, .networkLab)
struct DiscoverHostileTests {
    static let timeoutMs = 2000

    struct Run {
        let json: [String: Any]
        let beacons: [[String: Any]]
        let text: ProcessResult
    }

    /// Starts the responder with `scenario` in B, runs discover (JSON, then text) in A.
    func run(_ scenario: String) async throws -> Run {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let script = Harness.fixturesDirectory.appendingPathComponent("hostile_mdns.py").path
            let responder = try b.spawn([Harness.python3, script, "--address", link.b.ipv4, "--scenario", scenario],
                                        label: "hostile-mdns@B")
            _ = try await responder.waitForLine(on: .stdout, timeout: .seconds(10), describing: "READY") { $0 == "READY" }

            let arguments = [ClawpairBinary.path, "discover", "--backend", "native", "--timeout", String(Self.timeoutMs)]
            var started = ContinuousClock.now
            let json = try await a.run(arguments + ["--json"], timeout: .seconds(20))
            var elapsed = ContinuousClock.now - started
            #expect(elapsed < .milliseconds(Self.timeoutMs + Harness.hangSlackMs), "\(scenario): --json took \(elapsed)")
            #expect(json.status == .exited(0) || json.status == .exited(3), "\(scenario): \(json.status) \(json.stderr)")
            started = ContinuousClock.now
            let text = try await a.run(arguments, timeout: .seconds(20))
            elapsed = ContinuousClock.now - started
            #expect(elapsed < .milliseconds(Self.timeoutMs + Harness.hangSlackMs), "\(scenario): text took \(elapsed)")
            #expect(text.status == .exited(0) || text.status == .exited(3), "\(scenario): \(text.status) \(text.stderr)")
            Self.expectSaneTerminal(text.stdout + text.stderr, scenario)
            _ = await responder.terminate()

            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any],
                                        "\(scenario): not JSON: \(json.stdout)")
            return Run(json: document, beacons: document["beacons"] as? [[String: Any]] ?? [], text: text)
        }
    }

    /// No C0 controls but newline and tab, no DEL or C1 controls, no bidi controls.
    static func expectSaneTerminal(_ output: String, _ scenario: String) {
        let bad = output.unicodeScalars.filter { scalar in
            let v = scalar.value
            return (v < 0x20 && v != 0x0A && v != 0x09) || (0x7F...0x9F).contains(v) || v == 0x200E || v == 0x200F
                || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C
        }
        #expect(bad.isEmpty, "\(scenario): terminal got \(bad.map { String($0.value, radix: 16) }) in\n\(output)")
    }

    @Test("escape sequences and bidi characters: sanitized on the terminal, exact in JSON")
    func escapes() async throws {
        let result = try await run("escapes")
        let beacon = try #require(result.beacons.first, "\(result.json)")
        #expect(beacon["instanceName"] as? String == "Evil \u{1B}[31mRed\u{1B}[0m \u{202E}\u{07}gnp.exe")
        #expect(beacon["displayName"] as? String == "\u{1B}]0;pwned\u{07}Disp\u{200F}\u{9B}Name\r\n")
        #expect(beacon["lanHost"] as? String == "\u{1B}[2Jlan.local")
        #expect(beacon["wsUrl"] as? String == "wss://hostile.local:18789")
        #expect(result.text.stdout.contains("wss://hostile.local:18789"), "\(result.text.stdout)")
    }

    @Test("invalid UTF-8: valid JSON, one beacon, sane terminal")
    func invalidUTF8() async throws {
        let result = try await run("invalid-utf8")
        #expect(result.json["count"] as? Int == 1)
        let name = try #require(result.beacons.first?["instanceName"] as? String)
        #expect(name.hasPrefix("Bad ") && name.contains("name"), "\(name)")
    }

    @Test("63-byte label, 255-byte TXT strings and a 255-byte host name")
    func longValues() async throws {
        let result = try await run("long")
        let beacon = try #require(result.beacons.first, "\(result.json)")
        #expect(beacon["instanceName"] as? String == String(repeating: "L", count: 63))
        #expect(beacon["displayName"] as? String == String(repeating: "D", count: 255 - "displayName=".utf8.count))
        #expect((beacon["host"] as? String)?.utf8.count == 253, "\(beacon["host"] ?? "nil")")
    }

    @Test("an 8 KiB TXT record")
    func bigTXT() async throws {
        let result = try await run("big-txt")
        let beacon = try #require(result.beacons.first, "\(result.json)")
        #expect(beacon["displayName"] as? String == "Big TXT")
        #expect((beacon["txt"] as? [String: Any])?["x32"] as? String == String(repeating: "v", count: 251))
    }

    @Test("100 instances at once are all listed")
    func manyInstances() async throws {
        let result = try await run("many")
        #expect(result.json["count"] as? Int == 100, "\(result.beacons.count)")
        let ports = Set(result.beacons.compactMap { $0["port"] as? Int })
        #expect(ports == Set(20000..<20100))
    }

    @Test("malformed packets are dropped; the good beacon after them is found")
    func malformed() async throws {
        let result = try await run("malformed")
        #expect(result.json["count"] as? Int == 1, "\(result.json)")
        #expect(result.beacons.first?["instanceName"] as? String == "Good Gateway")
    }
}
