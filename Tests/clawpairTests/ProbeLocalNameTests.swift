import ClawpairTestSupport
import Foundation
import Testing

/// Dialing a `.local` name without nss-mdns (issue #14 §3): the lab namespaces resolve nothing
/// over multicast DNS through NSS (`hosts: files dns`), so only clawpair's own resolver, which
/// asks the link with the built-in querier, can reach `gw-lab.local`. Every dialing command goes
/// through that resolver (the transport's SystemResolver); probe stands for them here.
@Suite("dialing .local names", .serialized, .networkLab)
struct ProbeLocalNameTests {
    static let fixture = Harness.fixturesDirectory.appendingPathComponent("test_gateway_ws.py").path

    @Test("probe ws://gw-lab.local:18801 reaches the gateway python-zeroconf advertises; an unknown .local name fails to resolve")
    func probeLocalName() async throws {
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let gateway = try await lab.addHost("gateway")
            let link = try await lab.link(client, gateway)
            let server = try gateway.spawn([Harness.python3, Self.fixture, "--mode", "gateway", "--host", link.b.ipv4,
                                            "--host", link.b.ipv6, "--port", "18801"], label: "gateway:18801")
            _ = try await server.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(20))
            let advertiser = try await lab.startZeroconfAdvertiser(in: gateway, instance: "Lab Gateway", port: 18801,
                                                                   server: "gw-lab.local.")
            let result = try await client.run([ClawpairBinary.path, "probe", "--json", "--timeout", "5000", "ws://gw-lab.local:18801"],
                                              timeout: .seconds(30))
            #expect(result.status == .exited(0), "\(result.stdout)\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let route = try #require((object["routes"] as? [[String: Any]])?.first, "\(result.stdout)")
            #expect(route["outcome"] as? String == "reachable", "\(result.stdout)")
            let address = route["address"] as? String ?? ""
            #expect(address == "\(link.b.ipv4):18801" || address.hasSuffix("]:18801"), "\(address)")

            let unknown = try await client.run([ClawpairBinary.path, "probe", "--json", "--timeout", "8000", "ws://nobody-here.local:18801"],
                                               timeout: .seconds(30))
            #expect(unknown.status != .exited(0))
            let failed = try #require(try JSONSerialization.jsonObject(with: Data(unknown.stdout.utf8)) as? [String: Any])
            #expect((failed["routes"] as? [[String: Any]])?.first?["outcome"] as? String == "dns-failed", "\(unknown.stdout)")
            try await advertiser.stop()

            // A .local name that only /etc/hosts knows still resolves (getaddrinfo runs beside the querier).
            let directory = "/etc/netns/\(client.namespace)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try "127.0.0.1 localhost\n\(link.b.ipv4) hosts-only.local\n".write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)
            let hosts = try await client.run([ClawpairBinary.path, "probe", "--json", "--timeout", "5000", "ws://hosts-only.local:18801"],
                                             timeout: .seconds(30))
            #expect(hosts.status == .exited(0), "\(hosts.stdout)\(hosts.stderr)")
            let hostsObject = try #require(try JSONSerialization.jsonObject(with: Data(hosts.stdout.utf8)) as? [String: Any])
            #expect((hostsObject["routes"] as? [[String: Any]])?.first?["address"] as? String == "\(link.b.ipv4):18801",
                    "\(hosts.stdout)")
            _ = await server.terminate()
        }
    }
}
