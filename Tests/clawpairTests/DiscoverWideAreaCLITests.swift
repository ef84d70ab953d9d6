import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair discover` against wide-area (unicast) DNS-SD: Knot DNS in host B serves a zone
/// written by `clawpair zone`; the binary runs in host A and asks B only (`--dns-server`).
/// Nothing is sent outside the lab namespaces.
@Suite("clawpair discover: wide-area", .serialized, .networkLab,
       .enabled(if: NetworkLab.hasKnot || Harness.isCI, "needs Knot DNS (knot, knot-dnsutils): run scripts/install-deps"))
struct DiscoverWideAreaCLITests {
    static let domain = "openclaw.internal"
    static let fingerprint = String(repeating: "a3f1c2d4", count: 8)

    func discover(_ host: LabHost, _ arguments: [String], environment: [String: String?] = [:]) async throws -> ProcessResult {
        try await host.run([ClawpairBinary.path, "discover"] + arguments, environment: environment, timeout: .seconds(30))
    }

    /// The zone for one TLS gateway at `ipv4`/`ipv6`, from `clawpair zone`, plus `extra` lines.
    func zone(_ host: LabHost, ipv4: String, ipv6: String, extra: String = "") async throws -> String {
        let result = try await host.run([ClawpairBinary.path, "zone", "--domain", Self.domain, "--ipv4", ipv4, "--ipv6", ipv6,
                                         "--host-label", "studio", "--instance-label", "Studio London",
                                         "--display-name", "Studio (OpenClaw)", "--tls-fingerprint", Self.fingerprint,
                                         "-o", "-"]).requireSuccess()
        return result.stdout + extra
    }

    static func ipv6Bytes(_ text: String) -> [UInt8] {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return [] }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    func document(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                     "\(result.stdout)\(result.stderr)")
    }

    @Test("finds the gateway over IPv4 and IPv6 servers: wsUrl, TLS, fingerprint, addresses, backend unicast")
    func findsGateway() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let text = try await zone(a, ipv4: link.b.ipv4, ipv6: link.b.ipv6)
            let knot = try await lab.startKnot(on: b, addresses: [link.b.ipv4, link.b.ipv6], domain: Self.domain, zone: text)

            for server in [link.b.ipv4, "[\(link.b.ipv6)]:53"] {
                let result = try await discover(a, ["--wide-area-only", "--dns-server", server, "--domain", Self.domain,
                                                    "--json", "--timeout", "3000"])
                #expect(result.status == .exited(0), "\(server): \(result.stdout)\(result.stderr)")
                let json = try document(result)
                #expect(json["domains"] as? [String] == ["openclaw.internal."])
                #expect(json["count"] as? Int == 1)
                let beacon = try #require((json["beacons"] as? [[String: Any]])?.first)
                #expect(beacon["instanceName"] as? String == "studio-london")
                #expect(beacon["displayName"] as? String == "Studio (OpenClaw)")
                #expect(beacon["domain"] as? String == "openclaw.internal.")
                #expect(beacon["wsUrl"] as? String == "wss://studio.openclaw.internal:18789")
                #expect(beacon["gatewayTls"] as? Bool == true)
                #expect(beacon["gatewayTlsFingerprintSha256"] as? String == Self.fingerprint)
                #expect(beacon["backend"] as? String == "unicast")
                let addresses = try #require(beacon["addresses"] as? [String])
                #expect(addresses.count == 2 && addresses.first == link.b.ipv4, "\(addresses)")
                #expect(addresses.last.map(Self.ipv6Bytes) == Self.ipv6Bytes(link.b.ipv6), "\(addresses)")
            }

            // The human output, the domain from the environment, and from a JSON5 config (which wins).
            let config = try lab.writeFile("openclaw.json", contents: """
                // JSON5, as OpenClaw writes it
                { discovery: { wideArea: { domain: '  \(Self.domain)  ', }, }, }
                """)
            let human = try await discover(a, ["--wide-area-only", "--dns-server", link.b.ipv4, "--timeout", "3000"],
                                           environment: ["OPENCLAW_WIDE_AREA_DOMAIN": "elsewhere.internal",
                                                         "OPENCLAW_CONFIG_PATH": config])
            #expect(human.status == .exited(0), "\(human.stdout)\(human.stderr)")
            #expect(human.stdout.contains("  url        wss://studio.openclaw.internal:18789\n"), "\(human.stdout)")
            #expect(human.stdout.contains("  seen via   unicast\n"), "\(human.stdout)")
            let env = try await discover(a, ["--wide-area-only", "--dns-server", link.b.ipv4, "--json", "--timeout", "3000"],
                                         environment: ["OPENCLAW_WIDE_AREA_DOMAIN": Self.domain, "OPENCLAW_CONFIG_PATH": "/nonexistent"])
            #expect(try document(env)["count"] as? Int == 1, "\(env.stdout)\(env.stderr)")

            // Both at once: mDNS (nothing there) and the wide-area domain, within one --timeout.
            let started = ContinuousClock.now
            let both = try await discover(a, ["--backend", "native", "--dns-server", link.b.ipv4, "--domain", Self.domain,
                                              "--json", "--timeout", "1500"])
            let elapsed = ContinuousClock.now - started
            let bothJSON = try document(both)
            #expect(bothJSON["domains"] as? [String] == ["local.", "openclaw.internal."])
            #expect(bothJSON["count"] as? Int == 1)
            #expect(elapsed < .milliseconds(1500 + Harness.hangSlackMs), "took \(elapsed)")

            // --first with both: the wide-area answer ends the run long before --timeout.
            let firstStarted = ContinuousClock.now
            let firstRun = try await discover(a, ["--backend", "native", "--first", "--dns-server", link.b.ipv4,
                                                  "--domain", Self.domain, "--json", "--timeout", "8000"])
            let firstElapsed = ContinuousClock.now - firstStarted
            #expect(firstRun.status == .exited(0), "\(firstRun.stdout)\(firstRun.stderr)")
            #expect(try document(firstRun)["count"] as? Int == 1)
            // Ended by the answer, not by the 8 s --timeout (a loaded machine may start it late).
            #expect(firstElapsed < .milliseconds(7000), "--first took \(firstElapsed)")

            // Usage errors.
            let noDomain = try await discover(a, ["--wide-area-only", "--dns-server", link.b.ipv4],
                                              environment: ["OPENCLAW_CONFIG_PATH": "/nonexistent", "OPENCLAW_WIDE_AREA_DOMAIN": nil])
            #expect(noDomain.status == .exited(2), "\(noDomain.stderr)")
            let badServer = try await discover(a, ["--wide-area-only", "--domain", Self.domain, "--dns-server", "dns.example"])
            #expect(badServer.status == .exited(2), "\(badServer.stderr)")
            try await knot.stop()
        }
    }

    @Test("an answer too big for UDP is truncated and fetched again over TCP")
    func tcpFallback() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            // 60 more instances: the PTR answer alone is several KiB, far over the 1232-byte EDNS size.
            var extra = ""
            for index in 0..<60 {
                let label = "gateway-number-\(index)-with-a-rather-long-instance-label"
                extra += "_openclaw-gw._tcp IN PTR \(label)._openclaw-gw._tcp\n"
                extra += "\(label)._openclaw-gw._tcp IN SRV 0 0 \(20000 + index) studio\n"
                extra += "\(label)._openclaw-gw._tcp IN TXT \"displayName=Gateway \(index)\" \"role=gateway\" \"gatewayPort=\(20000 + index)\"\n"
            }
            let text = try await zone(a, ipv4: link.b.ipv4, ipv6: link.b.ipv6, extra: extra)
            let knot = try await lab.startKnot(on: b, addresses: [link.b.ipv4], domain: Self.domain, zone: text)
            let result = try await discover(a, ["--wide-area-only", "--dns-server", link.b.ipv4, "--domain", Self.domain,
                                                "--json", "--timeout", "10000", "-v"])
            #expect(result.status == .exited(0), "\(result.stderr)")
            #expect(result.stderr.contains("truncated; retrying over TCP"), "\(result.stderr)")
            let json = try document(result)
            #expect(json["count"] as? Int == 61)
            let beacons = try #require(json["beacons"] as? [[String: Any]])
            let urls = Set(beacons.compactMap { $0["wsUrl"] as? String })
            #expect(urls.contains("ws://studio.openclaw.internal:20059") && urls.contains("wss://studio.openclaw.internal:18789"))
            try await knot.stop()
        }
    }

    @Test("a server that never answers: the run ends within --timeout; a second server is then asked")
    func silentServer() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            // Reads queries on port 5300 and never answers.
            let silent = try b.spawn(["/usr/bin/python3", "-c", """
                import socket, sys
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("\(link.b.ipv4)", 5300))
                print("ready", flush=True)
                while True:
                    s.recvfrom(4096)
                """], label: "silent-dns")
            _ = try await silent.waitForLine(on: .stdout, timeout: .seconds(10), describing: "ready") { $0 == "ready" }

            let started = ContinuousClock.now
            let result = try await discover(a, ["--wide-area-only", "--dns-server", "\(link.b.ipv4):5300", "--domain", Self.domain,
                                                "--json", "--timeout", "1500"])
            let elapsed = ContinuousClock.now - started
            #expect(result.status == .exited(3), "\(result.stdout)\(result.stderr)")
            #expect(try document(result)["count"] as? Int == 0)
            #expect(elapsed < .milliseconds(1500 + Harness.hangSlackMs), "took \(elapsed)")

            let text = try await zone(a, ipv4: link.b.ipv4, ipv6: link.b.ipv6)
            let knot = try await lab.startKnot(on: b, addresses: [link.b.ipv4], domain: Self.domain, zone: text)
            let second = try await discover(a, ["--wide-area-only", "--dns-server", "\(link.b.ipv4):5300", "--dns-server", link.b.ipv4,
                                                "--domain", Self.domain, "--json", "--timeout", "4000"])
            #expect(try document(second)["count"] as? Int == 1, "\(second.stdout)\(second.stderr)")
            _ = await silent.terminate()
            try await knot.stop()
        }
    }
}
