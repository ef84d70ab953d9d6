import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair discover --watch` follows a wide-area domain: Knot DNS in lab host B serves the
/// zone, the test rewrites it and reloads Knot while the watch runs in host A, and waits for the
/// updated and removed lines. The hidden `--wide-area-refresh` makes the rounds quick, so nothing
/// waits for the zone's TTLs.
@Suite("clawpair discover --watch: wide-area", .serialized, .networkLab,
       .enabled(if: NetworkLab.hasKnot || Harness.isCI, "needs Knot DNS (knot, knot-dnsutils): run scripts/install-deps"))
struct DiscoverWatchWideAreaTests {
    static let domain = "openclaw.internal"

    /// A zone with serial `serial` and, for each `(label, port, displayName)`, one instance on host `studio`.
    /// The zone at `serial`: `instances` (label, port, display name) listed by PTR with their SRV
    /// and TXT, and `unlisted` with SRV and TXT but no PTR. A withdrawal removes the PTR alone:
    /// a round whose PTR answer predates a reload and whose SRV/TXT answers follow it then still
    /// sees the same records, so what the watch reports does not depend on where a round and the
    /// reload meet.
    static func zone(serial: Int, ipv4: String, instances: [(String, Int, String)],
                     unlisted: [(String, Int, String)] = []) -> String {
        var text = """
            $ORIGIN \(domain).
            $TTL 60
            @ IN SOA ns1 hostmaster \(serial) 7200 3600 1209600 60
            @ IN NS ns1
            ns1 IN A \(ipv4)
            studio IN A \(ipv4)

            """
        for (label, _, _) in instances {
            text += "_openclaw-gw._tcp IN PTR \(label)._openclaw-gw._tcp\n"
        }
        for (label, port, name) in instances + unlisted {
            text += "\(label)._openclaw-gw._tcp IN SRV 0 0 \(port) studio\n"
            text += "\(label)._openclaw-gw._tcp IN TXT \"displayName=\(name)\" \"role=gateway\" \"gatewayPort=\(port)\"\n"
        }
        return text
    }

    func reload(_ knot: KnotServer, _ text: String) async throws {
        try text.write(toFile: knot.zonePath, atomically: true, encoding: .utf8)
        try await knot.server.run(["knotc", "-c", knot.config, "-b", "zone-reload", knot.domain]).requireSuccess()
    }

    func event(_ line: String) throws -> (String, [String: Any]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        let event = try #require(object["event"] as? String)
        let beacon = try #require(object["beacon"] as? [String: Any])
        return (event, beacon)
    }

    @Test("beside mDNS (JSON lines) and --wide-area-only (text): a zone change is an update, a withdrawn PTR a removal")
    func followsZoneChanges() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let ip = link.b.ipv4
            let knot = try await lab.startKnot(on: b, addresses: [ip], domain: Self.domain,
                                               zone: Self.zone(serial: 1, ipv4: ip, instances: [("alpha", 18789, "Alpha"), ("beta", 18790, "Beta")]))

            // mDNS (native, nothing there) beside the wide-area rounds on their own thread.
            let watcher = try a.spawn([ClawpairBinary.path, "discover", "--watch", "--json", "--backend", "native",
                                       "--domain", Self.domain, "--dns-server", ip, "--wide-area-refresh", "200",
                                       "--timeout", "60000"], label: "discover --watch")
            for name in ["alpha", "beta"] {
                let line = try await watcher.waitForLine(on: .stdout, timeout: .seconds(20)) {
                    $0.contains("\"event\":\"added\"") && $0.contains("\"instanceName\":\"\(name)\"")
                }
                let (_, beacon) = try event(line)
                #expect(beacon["backend"] as? String == "unicast")
                #expect(beacon["domain"] as? String == "openclaw.internal.")
            }

            try await reload(knot, Self.zone(serial: 2, ipv4: ip, instances: [("alpha", 28789, "Alpha Two"), ("beta", 18790, "Beta")]))
            let updated = try await watcher.waitForLine(on: .stdout, timeout: .seconds(20)) { $0.contains("\"event\":\"updated\"") }
            let (_, changed) = try event(updated)
            #expect(changed["instanceName"] as? String == "alpha")
            #expect(changed["displayName"] as? String == "Alpha Two")
            #expect(changed["wsUrl"] as? String == "ws://studio.openclaw.internal:28789")

            try await reload(knot, Self.zone(serial: 3, ipv4: ip, instances: [("beta", 18790, "Beta")],
                                             unlisted: [("alpha", 28789, "Alpha Two")]))
            let removed = try await watcher.waitForLine(on: .stdout, timeout: .seconds(20)) { $0.contains("\"event\":\"removed\"") }
            #expect(try event(removed).1["instanceName"] as? String == "alpha")

            // Unchanged rounds report nothing: beta was added once and never updated.
            let betaLines = watcher.lines.filter { $0.stream == .stdout && $0.text.contains("\"instanceName\":\"beta\"") }
            #expect(betaLines.count == 1, "\(betaLines.map(\.text))")
            _ = await watcher.terminate()

            // --wide-area-only runs the rounds on the main thread; human lines.
            let only = try a.spawn([ClawpairBinary.path, "discover", "--watch", "--wide-area-only", "--domain", Self.domain,
                                    "--dns-server", ip, "--wide-area-refresh", "200", "--timeout", "60000"],
                                   label: "discover --watch --wide-area-only")
            _ = try await only.waitForLine(containing: "+ Beta  ws://studio.openclaw.internal:18790", on: .stdout, timeout: .seconds(20))
            try await reload(knot, Self.zone(serial: 4, ipv4: ip, instances: [],
                                             unlisted: [("alpha", 28789, "Alpha Two"), ("beta", 18790, "Beta")]))
            _ = try await only.waitForLine(containing: "- Beta  ws://studio.openclaw.internal:18790", on: .stdout, timeout: .seconds(20))
            try await reload(knot, Self.zone(serial: 5, ipv4: ip, instances: [("gamma", 18791, "Gamma")]))
            _ = try await only.waitForLine(containing: "+ Gamma  ws://studio.openclaw.internal:18791", on: .stdout, timeout: .seconds(20))
            _ = await only.terminate()

            let invalid = try await a.run([ClawpairBinary.path, "discover", "--watch", "--wide-area-refresh", "soon"])
            #expect(invalid.status == .exited(2) && invalid.stderr.contains("--wide-area-refresh"), "\(invalid.stderr)")
            try await knot.stop()
        }
    }
}
