import ClawpairTestSupport
import Foundation
import Testing

/// The tailnet fallback (discovery.md §7) inside a lab: host A has a 100.64/10 address and a
/// `tailscale` on PATH whose `status --json` lists it (a script: the real CLI needs tailscaled);
/// host B plays MagicDNS, Knot DNS on 100.100.100.100 serving the gateway. A's configured DNS
/// server (Knot on A's loopback) serves the domain without any gateway, as when split DNS is
/// missing. 100.100.100.100 is an address inside the lab here; nothing leaves the namespaces.
@Suite("clawpair discover: tailnet fallback", .serialized, .networkLab,
       .enabled(if: NetworkLab.hasKnot || Harness.isCI, "needs Knot DNS (knot, knot-dnsutils): run scripts/install-deps"))
struct DiscoverTailnetTests {
    static let domain = "openclaw.internal"

    static func zone(ipv4: String, gateway: Bool) -> String {
        var text = """
            $ORIGIN \(domain).
            $TTL 60
            @ IN SOA ns1 hostmaster 1 7200 3600 1209600 60
            @ IN NS ns1
            ns1 IN A \(ipv4)

            """
        if gateway {
            text += """
                studio IN A \(ipv4)
                _openclaw-gw._tcp IN PTR studio-tailnet._openclaw-gw._tcp
                studio-tailnet._openclaw-gw._tcp IN SRV 0 0 18789 studio
                studio-tailnet._openclaw-gw._tcp IN TXT "displayName=Tailnet Studio" "gatewayTls=1" "gatewayPort=18789"

                """
        }
        return text
    }

    @Test("no gateway through the configured server: MagicDNS is asked only when a running tailscale lists an address for this machine")
    func fallback() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            // The tailnet: A gets a 100.64/10 address, B answers as 100.100.100.100 on the same link.
            try await a.ip("addr", "add", "100.101.102.103/10", "dev", link.a.interface)
            try await b.ip("addr", "add", "100.100.100.100/10", "dev", link.b.interface)
            let magic = try await lab.startKnot(on: b, addresses: ["100.100.100.100"], domain: Self.domain,
                                                zone: Self.zone(ipv4: "100.100.100.7", gateway: true))
            let local = try await lab.startKnot(on: a, addresses: ["127.0.0.1"], domain: Self.domain,
                                                zone: Self.zone(ipv4: "127.0.0.1", gateway: false))
            // `tailscale status --json`, or a failure when TAILSCALE_FAKE_DOWN is set.
            _ = try lab.makeDirectory("bin")
            let tailscale = try lab.writeFile("bin/tailscale", contents: """
                #!/bin/sh
                [ "$1 $2" = "status --json" ] || exit 64
                if [ -n "$TAILSCALE_FAKE_DOWN" ]; then echo "failed to connect to local tailscaled" >&2; exit 1; fi
                if [ -n "$TAILSCALE_FAKE_OFF_TAILNET" ]; then echo '{"BackendState":"Stopped","Self":{"TailscaleIPs":["100.101.102.103"]}}'; exit 0; fi
                if [ -n "$TAILSCALE_FAKE_HEADSCALE" ]; then echo '{"BackendState":"Running","Self":{"TailscaleIPs":["fd7a:115c:a1e0::1","10.77.0.5"]}}'; exit 0; fi
                echo '{"BackendState":"Running","Self":{"TailscaleIPs":["100.101.102.103","fd7a:115c:a1e0::1"]},"Peer":{}}'

                """)
            try await a.run(["chmod", "755", tailscale]).requireSuccess()
            let path = (tailscale as NSString).deletingLastPathComponent + ":/usr/bin:/bin"

            func discover(_ extra: [String], _ environment: [String: String?] = [:]) async throws -> ProcessResult {
                try await a.run([ClawpairBinary.path, "discover", "--wide-area-only", "--domain", Self.domain,
                                 "--dns-server", "127.0.0.1", "--json", "-v", "--timeout", "4000"] + extra,
                                environment: ["PATH": path].merging(environment) { _, new in new }, timeout: .seconds(30))
            }
            func beacons(_ result: ProcessResult) throws -> [[String: Any]] {
                let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                        "\(result.stdout)\(result.stderr)")
                return try #require(json["beacons"] as? [[String: Any]])
            }

            // On the tailnet: the configured server lists nothing, MagicDNS has the gateway.
            let found = try await discover([])
            #expect(found.status == .exited(0), "\(found.stdout)\(found.stderr)")
            #expect(found.stderr.contains("asking MagicDNS 100.100.100.100"), "\(found.stderr)")
            let beacon = try #require(try beacons(found).first)
            #expect(beacon["instanceName"] as? String == "studio-tailnet")
            #expect(beacon["wsUrl"] as? String == "wss://studio.openclaw.internal:18789")
            #expect(beacon["addresses"] as? [String] == ["100.100.100.7"])
            #expect(beacon["backend"] as? String == "unicast")

            // A Headscale or custom-range tailnet (openclaw#27398): this machine's address need not be 100.64/10.
            let headscale = try await discover([], ["TAILSCALE_FAKE_HEADSCALE": "1"])
            #expect(headscale.stderr.contains("asking MagicDNS 100.100.100.100"), "\(headscale.stderr)")
            #expect(try beacons(headscale).first?["instanceName"] as? String == "studio-tailnet")

            // tailscale status fails, or its client is not running: no fallback.
            for environment in [["TAILSCALE_FAKE_DOWN": "1"], ["TAILSCALE_FAKE_OFF_TAILNET": "1"]] as [[String: String?]] {
                let none = try await discover([], environment)
                #expect(none.status == .exited(3), "\(environment): \(none.stdout)\(none.stderr)")
                #expect(try beacons(none).isEmpty)
                #expect(!none.stderr.contains("MagicDNS"), "\(none.stderr)")
            }
            // No tailscale on PATH at all: no fallback.
            let noCLI = try await discover([], ["PATH": "/nonexistent"])
            #expect(noCLI.status == .exited(3) && !noCLI.stderr.contains("MagicDNS"), "\(noCLI.stderr)")

            // The configured server finds the gateway itself: MagicDNS is not asked.
            try await local.stop()
            let direct = try await lab.startKnot(on: a, addresses: ["127.0.0.1"], domain: "other.internal",
                                                 zone: Self.zone(ipv4: "127.0.0.1", gateway: true)
                                                    .replacingOccurrences(of: Self.domain, with: "other.internal"))
            let other = try await a.run([ClawpairBinary.path, "discover", "--wide-area-only", "--domain", "other.internal",
                                         "--dns-server", "127.0.0.1", "--json", "-v", "--timeout", "4000"],
                                        environment: ["PATH": path], timeout: .seconds(30))
            #expect(other.status == .exited(0), "\(other.stdout)\(other.stderr)")
            #expect(!other.stderr.contains("MagicDNS"), "\(other.stderr)")
            try await direct.stop()
            try await magic.stop()
        }
    }
}
