import ClawpairCore
import ClawpairDNS
import ClawpairTestSupport
import ClawpairWideArea
import Foundation
import Testing

/// The wide-area browser in-process (inside lab host A) against Knot DNS in lab host B: an
/// instance with several SRV records comes out in RFC 2782 order with the injected random choice,
/// the addresses are those of the chosen target, and the TTLs the watch loop needs are reported.
@Suite("wide-area browser", .networkLab, .serialized,
       .enabled(if: NetworkLab.hasKnot || Harness.isCI, "needs Knot DNS (knot, knot-dnsutils): run scripts/install-deps"))
struct WideAreaBrowserLabTests {
    static let zone = """
        $ORIGIN openclaw.internal.
        $TTL 300
        @ 3600 IN SOA ns1 hostmaster 1 7200 3600 1209600 15
        @ IN NS ns1
        ns1 IN A 192.0.2.53
        zero 20 IN A 192.0.2.1
        heavy IN A 192.0.2.2
        heavy IN AAAA 2001:db8::2
        backup IN A 192.0.2.3
        _openclaw-gw._tcp 30 IN PTR multi._openclaw-gw._tcp
        multi._openclaw-gw._tcp 45 IN SRV 20 0 2001 backup
        multi._openclaw-gw._tcp 45 IN SRV 10 0 1001 zero
        multi._openclaw-gw._tcp 45 IN SRV 10 50 1002 heavy
        multi._openclaw-gw._tcp 120 IN TXT "displayName=Multi" "role=gateway"

        """

    @Test("several SRV records: lowest priority first, weighted choice injected; addresses of the first target; TTLs")
    func severalSRV() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let knot = try await lab.startKnot(on: b, addresses: [link.b.ipv4], domain: "openclaw.internal", zone: Self.zone)
            let server = try #require(DNSServerAddress.parse(link.b.ipv4))
            // Weight 0 sorts first in its priority; a pick of the total skips it, a pick of 0 takes it.
            for (pick, ports, addresses, ttl) in [
                ({ (total: Int) in total } as SRVOrder.Pick, [1002, 1001, 2001], ["192.0.2.2", "2001:db8::2"], UInt32(45)),
                ({ (_: Int) in 0 } as SRVOrder.Pick, [1001, 1002, 2001], ["192.0.2.1"], UInt32(20)),
            ] {
                let (services, result) = try await a.inNamespace { () throws -> ([WideAreaService], WideAreaBrowseResult) in
                    let browser = WideAreaBrowser(client: UnicastDNSClient(servers: [server]), srvPick: pick)
                    var services: [WideAreaService] = []
                    let result = try browser.browse(domain: "openclaw.internal", deadline: Monotonic.now + .seconds(5)) {
                        services.append($0)
                        return true
                    }
                    return (services, result)
                }
                let service = try #require(services.first)
                #expect(services.count == 1)
                #expect(service.srvRecords.map(\.port) == ports.map(UInt16.init))
                #expect(service.srv?.port == UInt16(ports[0]))
                #expect(service.addresses == addresses)
                #expect(service.ttl == ttl, "smallest of SRV 45, TXT 120 and the chosen target's address TTLs")
                #expect(result.listed.map(\.description) == ["multi._openclaw-gw._tcp.openclaw.internal."])
                #expect(result.listTTL == 30)
            }

            // A service type the zone lacks: nothing listed, the SOA's negative TTL min(3600, 15).
            let empty = try await a.inNamespace {
                try WideAreaBrowser(client: UnicastDNSClient(servers: [server]), serviceType: "_absent._tcp")
                    .browse(domain: "openclaw.internal.", deadline: Monotonic.now + .seconds(5)) { _ in true }
            }
            #expect(empty.listed.isEmpty)
            #expect(empty.listTTL == 15)
            try await knot.stop()
        }
    }
}
