import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair probe` and IPv6 (issue #14 §5): a bare IPv6 literal gets a hint to add brackets;
/// a link-local URL with its zone (`%veth0`, RFC 6874's `%25veth0`, or the interface index) is
/// accepted and dialed with the scope id, on a veth pair inside the lab.
@Suite struct ProbeIPv6CLITests {
    static let fixture = Harness.fixturesDirectory.appendingPathComponent("test_gateway_ws.py").path

    @Test("a bare IPv6 literal: usage error whose hint shows the bracketed forms")
    func bareIPv6Hint() throws {
        let bare = try ClawpairBinary.run(["probe", "2001:db8::1"])
        #expect(bare.status == 2)
        #expect(bare.stderr == "error: '2001:db8::1' is not a ws:// or wss:// URL, host[:port] or setup code\n"
                + "hint: an IPv6 address goes in brackets: clawpair probe '[2001:db8::1]' or 'ws://[2001:db8::1]:18789'\n")
        let zoned = try ClawpairBinary.run(["probe", "fe80::1%eth0"])
        #expect(zoned.status == 2)
        #expect(zoned.stderr.hasSuffix("hint: an IPv6 address goes in brackets: clawpair probe '[fe80::1%eth0]' "
                                       + "or 'ws://[fe80::1%eth0]:18789'\n"), "\(zoned.stderr)")
        // Not IPv6: the usual hint.
        let other = try ClawpairBinary.run(["probe", "gateway:port"])
        #expect(other.status == 2 && other.stderr.hasSuffix("hint: e.g. clawpair probe wss://gateway.example.com ws://192.168.1.20:18789\n"),
                "\(other.stderr)")
        // A zone on an address that is not link-local is refused without dialing.
        let global = try ClawpairBinary.run(["probe", "ws://[2001:db8::1%eth0]:18789"])
        #expect(global.status == 2 && global.stderr.contains("is not a ws:// or wss:// URL"), "\(global.stderr)")
    }

    @Test("ws://[fe80::…%zone]:port is dialed on that interface: name, %25name and index forms", .networkLab)
    func linkLocalWithZone() async throws {
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let gateway = try await lab.addHost("gateway")
            let link = try await lab.link(client, gateway)
            let child = try gateway.spawn([Harness.python3, Self.fixture, "--mode", "gateway", "--host", "::", "--port", "18801"],
                                          label: "gateway:18801")
            _ = try await child.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(20))
            // The gateway's link-local address (the kernel gives every veth one; wait out DAD, polled:
            // the kernel announces no end of duplicate address detection the harness could wait on).
            var linkLocal: String?
            _ = try await eventually(within: .seconds(60)) {
                let shown = try await gateway.ip("-6", "-o", "addr", "show", "dev", link.b.interface, "scope", "link").stdout
                if !shown.contains("tentative") {
                    linkLocal = shown.split(separator: " ").first { $0.hasPrefix("fe80:") }.map { String($0.prefix { $0 != "/" }) }
                }
                return linkLocal != nil
            }
            let address = try #require(linkLocal, "no link-local address on \(link.b.interface)")
            let index = try await client.run(["cat", "/sys/class/net/\(link.a.interface)/ifindex"]).requireSuccess().stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for zone in [link.a.interface, "25" + link.a.interface, index] {
                let url = "ws://[\(address)%\(zone)]:18801"
                let result = try await client.run([ClawpairBinary.path, "probe", "--json", "--timeout", "5000", url], timeout: .seconds(30))
                #expect(result.status == .exited(0), "\(url): \(result.stdout)\(result.stderr)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
                let route = try #require((object["routes"] as? [[String: Any]])?.first, "\(result.stdout)")
                #expect(route["outcome"] as? String == "reachable", "\(url): \(result.stdout)")
                #expect(route["address"] as? String == "[\(address)%\(index)]:18801", "dialed with the scope id: \(result.stdout)")
            }
            // Without the zone the link-local address cannot be dialed: the kernel needs the interface.
            let unscoped = try await client.run([ClawpairBinary.path, "probe", "--json", "--timeout", "3000", "ws://[\(address)]:18801"],
                                                timeout: .seconds(30))
            #expect(unscoped.status != .exited(0), "\(unscoped.stdout)")
            _ = await child.terminate()
        }
    }
}
