import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair discover` with a fleet of 1,000 gateways (issue #14 §2): a wide-area domain served
/// by Knot DNS in host B, and 1,000 mDNS instances answered at once by the hostile responder
/// (`hostile_mdns.py --scenario fleet`). Every gateway is listed; with a smaller
/// `--max-gateways` the cut is reported on standard error and in `--json`, never silently.
@Suite("clawpair discover: a fleet of 1,000 gateways", .serialized, .networkLab)
struct DiscoverFleetTests {
    static let domain = "fleet.internal"
    static let fleet = 1000

    /// A zone with `count` gateways, each its own host with an IPv4 and an IPv6 address.
    static func zone(count: Int) -> String {
        var lines = ["$ORIGIN \(domain).", "$TTL 300", "@ 3600 IN SOA ns1 hostmaster 1 7200 3600 1209600 15",
                     "@ IN NS ns1", "ns1 IN A 192.0.2.53"]
        for index in 0..<count {
            let label = String(format: "gw%04d", index)
            lines.append("_openclaw-gw._tcp IN PTR \(label)._openclaw-gw._tcp")
            lines.append("\(label)._openclaw-gw._tcp IN SRV 0 0 \(20000 + index) \(label)")
            lines.append("\(label)._openclaw-gw._tcp IN TXT \"role=gateway\" \"displayName=Gateway \(label)\" \"gatewayPort=\(20000 + index)\"")
            lines.append("\(label) IN A 198.18.\(index / 256).\(index % 256)")
            lines.append("\(label) IN AAAA 2001:db8::\(String(index, radix: 16))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func document(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                     "\(result.stdout)\(result.stderr)")
    }

    @Test("wide-area: 1,000 gateways of one domain listed completely; --max-gateways 100 cuts and says so",
          .enabled(if: NetworkLab.hasKnot || Harness.isCI, "needs Knot DNS (knot, knot-dnsutils): run scripts/install-deps"))
    func wideAreaFleet() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let knot = try await lab.startKnot(on: b, addresses: [link.b.ipv4], domain: Self.domain, zone: Self.zone(count: Self.fleet))
            let base = [ClawpairBinary.path, "discover", "--wide-area-only", "--domain", Self.domain,
                        "--dns-server", link.b.ipv4, "--timeout", "20000", "--json"]

            let all = try await a.run(base, timeout: .seconds(60))
            #expect(all.status == .exited(0), "\(all.stderr)")
            #expect(all.stderr == "", "nothing cut, nothing to say")
            let json = try document(all)
            #expect(json["count"] as? Int == Self.fleet)
            #expect(json["truncated"] == nil)
            let beacons = try #require(json["beacons"] as? [[String: Any]])
            let ports = Set(beacons.compactMap { $0["port"] as? Int })
            #expect(ports == Set((0..<Self.fleet).map { 20000 + $0 }), "every gateway, each once")
            let last = try #require(beacons.first { $0["port"] as? Int == 20999 })
            #expect(last["addresses"] as? [String] == ["198.18.3.231", "2001:db8::3e7"], "each gateway's own addresses")

            let cut = try await a.run(base + ["--max-gateways", "100"], timeout: .seconds(60))
            #expect(cut.status == .exited(0), "\(cut.stderr)")
            #expect(cut.stderr == "warning: fleet.internal. named 1000 gateways; only 100 were kept "
                    + "(raise the bound with --max-gateways)\n")
            let cutJSON = try document(cut)
            #expect(cutJSON["count"] as? Int == 100)
            let truncated = try #require(cutJSON["truncated"] as? [[String: Any]])
            #expect(truncated.count == 1)
            #expect(truncated.first?["domain"] as? String == "fleet.internal.")
            #expect(truncated.first?["seen"] as? Int == Self.fleet)
            #expect(truncated.first?["kept"] as? Int == 100)
            try await knot.stop()
        }
    }

    @Test("mDNS, native querier: 1,000 instances answered at once are all listed; --max-gateways 600 cuts and says so")
    func mdnsFleet() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let script = Harness.fixturesDirectory.appendingPathComponent("hostile_mdns.py").path
            let responder = try b.spawn([Harness.python3, script, "--address", link.b.ipv4, "--scenario", "fleet"],
                                        label: "hostile-mdns@B")
            _ = try await responder.waitForLine(on: .stdout, timeout: .seconds(10), describing: "READY") { $0 == "READY" }
            let base = [ClawpairBinary.path, "discover", "--backend", "native", "--local-only", "--timeout", "20000", "--json"]

            let all = try await a.run(base, timeout: .seconds(60))
            #expect(all.status == .exited(0), "\(all.stderr)")
            #expect(all.stderr == "")
            let json = try document(all)
            #expect(json["count"] as? Int == Self.fleet)
            #expect(json["truncated"] == nil)
            let names = Set((json["beacons"] as? [[String: Any]] ?? []).compactMap { $0["instanceName"] as? String })
            #expect(names == Set((0..<Self.fleet).map { String(format: "Gateway %04d", $0) }))

            let cut = try await a.run(base + ["--max-gateways", "600"], timeout: .seconds(60))
            #expect(cut.status == .exited(0), "\(cut.stderr)")
            #expect(cut.stderr == "warning: local. named 1000 gateways; only 600 were kept (raise the bound with --max-gateways)\n")
            let cutJSON = try document(cut)
            #expect(cutJSON["count"] as? Int == 600)
            let truncated = try #require(cutJSON["truncated"] as? [[String: Any]])
            #expect(truncated.first?["domain"] as? String == "local.")
            #expect(truncated.first?["seen"] as? Int == Self.fleet)
            #expect(truncated.first?["kept"] as? Int == 600)

            // --watch says so too: a JSON line per growth of the count, a warning in text.
            let watch = [ClawpairBinary.path, "discover", "--backend", "native", "--local-only", "--watch", "--timeout", "3000",
                         "--max-gateways", "600"]
            let lines = try await a.run(watch + ["--json"], timeout: .seconds(60))
            #expect(lines.status == .exited(0), "\(lines.stderr)")
            let objects = lines.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(objects.filter { $0["event"] as? String == "added" }.count == 600)
            let cuts = objects.filter { $0["event"] as? String == "truncated" }
            #expect(cuts.last?["domain"] as? String == "local." && cuts.last?["seen"] as? Int == Self.fleet
                    && cuts.last?["kept"] as? Int == 600, "\(cuts)")
            let text = try await a.run(watch, timeout: .seconds(60))
            #expect(text.stderr.contains("warning: local. named 1000 gateways; only 600 were kept (raise the bound with --max-gateways)\n"),
                    "\(text.stderr)")
            _ = await responder.terminate(grace: .seconds(2))
        }
    }
}
