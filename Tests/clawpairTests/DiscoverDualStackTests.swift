import ClawpairTestSupport
import Foundation
import Testing

/// The Avahi backend lists every address of a dual-stack gateway, as the native backend does
/// (issue #14 §3), with a cold daemon cache and warm ones (its second resolver, for the other
/// address family, answers from the daemon's cache before the browse is complete).
@Suite("clawpair discover: dual-stack gateways", .serialized, .networkLab)
struct DiscoverDualStackTests {
    @Test("avahi and native: both the IPv4 and the IPv6 address, cold and warm")
    func bothAddresses() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            let link = try #require(lab.links.first)
            let advertiser = try await lab.startZeroconfAdvertiser(in: b, instance: "Dual Gateway", port: 18789,
                                                                   txt: ["role": "gateway"], server: "dual.local.")
            let env: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
            for (label, backend) in [("cold", "avahi"), ("warm", "avahi"), ("again", "avahi"), ("beside the daemon", "native")] {
                let result = try await a.run([ClawpairBinary.path, "discover", "--backend", backend, "--json", "--timeout", "5000"],
                                             environment: env, timeout: .seconds(20))
                #expect(result.status == .exited(0), "\(label): \(result.stdout)\(result.stderr)")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
                let beacon = try #require((document["beacons"] as? [[String: Any]])?.first, "\(label): \(result.stdout)")
                let addresses = beacon["addresses"] as? [String] ?? []
                #expect(addresses.count == 2 && addresses.contains(link.b.ipv4) && addresses.contains { $0.contains(":") },
                        "\(label) \(backend): \(addresses)")
            }
            try await advertiser.stop()
        }
    }

    /// Issue #24 §1: a gateway host that registers through its own avahi-daemon publishes its A
    /// record over mDNS/IPv4 only (avahi's publish-a-on-ipv6=no). The Avahi backend's resolve of
    /// the second family kept to the protocol its first answer came over (IPv6) and never got the
    /// IPv4 address, and a gateway listening on 0.0.0.0 then looked down to `probe --discover`.
    @Test("avahi on both ends: both addresses, and probe --discover reaches a gateway on 0.0.0.0")
    func avahiPublishedGateway() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            let link = try #require(lab.links.first)
            let busB = try await lab.startDBus(in: b)
            try await lab.startAvahi(in: b, bus: busB)
            let gateway = try await startTestGateway(TestGatewayOptions(hosts: ["0.0.0.0"], port: 18789), in: b)
            let publisher = try b.spawn(["avahi-publish", "-s", "Avahi Gateway", "_openclaw-gw._tcp", "18789", "role=gateway"],
                                        environment: ["DBUS_SYSTEM_BUS_ADDRESS": busB.address], label: "avahi-publish@B")
            _ = try await publisher.waitForLine(containing: "Established", timeout: .seconds(20))
            let env: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
            for label in ["cold", "warm"] {
                let result = try await a.run([ClawpairBinary.path, "discover", "--backend", "avahi", "--json", "--timeout", "5000"],
                                             environment: env, timeout: .seconds(20))
                #expect(result.status == .exited(0), "\(label): \(result.stdout)\(result.stderr)")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
                let beacon = try #require((document["beacons"] as? [[String: Any]])?.first, "\(label): \(result.stdout)")
                let addresses = beacon["addresses"] as? [String] ?? []
                #expect(addresses.count == 2 && addresses.contains(link.b.ipv4) && addresses.contains { $0.contains(":") },
                        "\(label): \(addresses)")
            }
            let probe = try await a.run([ClawpairBinary.path, "probe", "--discover", "--discover-backend", "avahi",
                                         "--allow-insecure", "--json", "--timeout", "5000"],
                                        environment: env, timeout: .seconds(20))
            #expect(probe.status == .exited(0), "probe: \(probe.stdout)\(probe.stderr)")
            await publisher.terminate(grace: .seconds(2))
            _ = await gateway.stop()
        }
    }
}
