import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair discover` run as a user would, inside lab namespaces only: python-zeroconf
/// advertises from host B; the binary runs in host A with the native backend, or with the
/// avahi backend against avahi-daemon in A (reached over the lab's private D-Bus).
@Suite("clawpair discover", .serialized, .networkLab)
struct DiscoverCLITests {
    static let txt = ["role": "gateway", "transport": "gateway", "gatewayPort": "18789", "displayName": "Büro \u{1B}[31mRed 🦞",
                      "gatewayTls": "1", "gatewayTlsSha256": String(repeating: "ab", count: 32), "lanHost": "buero.local",
                      "sshPort": "2222"]

    func run(_ host: LabHost, _ arguments: [String], environment: [String: String?] = [:]) async throws -> ProcessResult {
        try await host.run([ClawpairBinary.path, "discover"] + arguments, environment: environment, timeout: .seconds(20))
    }

    @Test("native backend: JSON fields, TLS URL, sanitized text output, exit codes")
    func nativeBackend() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let advertiser = try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789,
                                                                   txt: Self.txt, server: "buero.local.")

            let json = try await run(a, ["--backend", "native", "--json", "--timeout", "3000"])
            #expect(json.status == .exited(0), "\(json.stdout)\(json.stderr)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(document["count"] as? Int == 1)
            let beacon = try #require((document["beacons"] as? [[String: Any]])?.first)
            #expect(beacon["instanceName"] as? String == "Buero Gateway")
            #expect(beacon["displayName"] as? String == Self.txt["displayName"], "JSON keeps the exact decoded value")
            #expect(beacon["wsUrl"] as? String == "wss://buero.local:18789")
            #expect(beacon["gatewayTlsFingerprintSha256"] as? String == Self.txt["gatewayTlsSha256"])
            #expect(beacon["backend"] as? String == "native")
            #expect((beacon["addresses"] as? [String])?.contains(link.b.ipv4) == true)

            let text = try await run(a, ["--backend", "native", "--first", "--timeout", "3000"])
            #expect(text.status == .exited(0))
            #expect(!text.stdout.contains("\u{1B}"), "escape sequences from the network never reach the terminal")
            #expect(text.stdout.contains("Büro \\x1b[31mRed 🦞"), "\(text.stdout)")
            #expect(text.stdout.contains("  url        wss://buero.local:18789\n"), "\(text.stdout)")
            #expect(text.stdout.contains("  ssh        ssh -p 2222 buero.local\n"), "\(text.stdout)")
            #expect(text.stdout.contains("(unauthenticated hint)"))

            try await advertiser.stop()
            let none = try await run(a, ["--backend", "native", "--timeout", "800"])
            #expect(none.status == .exited(3), "\(none.stdout)\(none.stderr)")
            #expect(none.stderr.hasPrefix("No gateways found within 800 ms."))
        }
    }

    @Test("avahi backend, and auto picks avahi when the daemon answers")
    func avahiBackend() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789, txt: Self.txt,
                                                  server: "buero.local.")
            let env: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
            let result = try await run(a, ["--backend", "auto", "-v", "--first", "--json", "--timeout", "5000"], environment: env)
            #expect(result.status == .exited(0), "\(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("backend: avahi (avahi-daemon answered)"),
                    "\(result.stderr)")
            #expect(result.stdout.contains("\"wsUrl\": \"wss://buero.local:18789\""), "\(result.stdout)")
            #expect(result.stdout.contains("\"backend\": \"avahi\""))
        }
    }

    @Test("auto falls back to the native querier when no avahi-daemon answers")
    func autoFallsBack() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789, txt: Self.txt,
                                                  server: "buero.local.")
            let env: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/clawpair-test-bus"]
            let result = try await run(a, ["-v", "--first", "--timeout", "3000"], environment: env)
            #expect(result.status == .exited(0), "\(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("backend: native"), "\(result.stderr)")
        }
    }

    @Test("watch reports additions and removals as JSON lines")
    func watch() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            let watcher = try a.spawn([ClawpairBinary.path, "discover", "--backend", "native", "--watch", "--json",
                                       "--timeout", "15000"], label: "discover --watch")
            let advertiser = try await lab.startZeroconfAdvertiser(in: b, instance: "Buero Gateway", port: 18789,
                                                                   txt: Self.txt, server: "buero.local.")
            let added = try await watcher.waitForLine(containing: "\"event\":\"added\"", timeout: .seconds(10))
            #expect(added.contains("\"instanceName\":\"Buero Gateway\""))
            try await advertiser.stop()
            _ = try await watcher.waitForLine(containing: "\"event\":\"removed\"", timeout: .seconds(10))
            _ = await watcher.terminate()
        }
    }
}
