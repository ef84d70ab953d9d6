import ClawpairCore
import ClawpairMDNS
import ClawpairTestSupport
import Testing

/// The native querier on real sockets inside a lab namespace, against python-zeroconf
/// advertising from the other namespace. No avahi-daemon is involved.
@Suite("native mDNS querier", .serialized, .networkLab)
struct MDNSQuerierLabTests {
    @Test("a .local host name's A and AAAA, each asked on its own (what the dialer's resolver does)")
    func hostAddresses() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let advertiser = try await lab.startZeroconfAdvertiser(in: b, instance: "Lab Gateway", port: 18789, server: "lab-gw.local.")
            let (v4, v6, absent) = try await a.inNamespace { () throws -> ([String], [String], [String]) in
                let deadline = Monotonic.now + .seconds(5)
                return (try MDNSQuerier.addresses(of: "lab-gw.local", ipv6: false, until: deadline),
                        try MDNSQuerier.addresses(of: "LAB-GW.local.", ipv6: true, until: deadline),
                        try MDNSQuerier.addresses(of: "nobody.local", ipv6: false, until: Monotonic.now + .milliseconds(300)))
            }
            #expect(v4 == [link.b.ipv4])
            #expect(v6.count == 1 && v6.first.map { $0.hasSuffix(":" + link.b.ipv6.split(separator: ":").last!) } == true,
                    "\(v6) vs \(link.b.ipv6)")
            #expect(absent.isEmpty)
            #expect(MDNSQuerier.isLocalName("gw.local") && MDNSQuerier.isLocalName("GW.LOCAL.") && !MDNSQuerier.isLocalName("local")
                    && !MDNSQuerier.isLocalName(".local") && !MDNSQuerier.isLocalName("gw.example.com"))
            try await advertiser.stop()
        }
    }

    @Test("finds and resolves a python-zeroconf gateway, then sees its goodbye")
    func findsZeroconfGateway() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let advertiser = try await lab.startZeroconfAdvertiser(
                in: b, instance: "Lab Gateway", port: 18789, txt: ["role": "gateway", "displayName": "Lab 🦞"],
                server: "lab-gw.local.")

            let found = try await a.inNamespace { () throws -> MDNSService? in
                let querier = try MDNSQuerier(serviceType: "_openclaw-gw._tcp.local.")
                var service: MDNSService?
                // Wait until the IPv4 address is in (A and AAAA may come in separate answers).
                try querier.run(until: Monotonic.now + .seconds(5)) { event in
                    if case .resolved(let resolved) = event {
                        service = resolved
                        return !resolved.addresses.contains(link.b.ipv4)
                    }
                    return true
                }
                return service
            }
            let service = try #require(found, "nothing resolved within 5 s")
            #expect(service.instance.labels.first == Array("Lab Gateway".utf8))
            #expect(service.port == 18789)
            #expect(service.addresses.contains(link.b.ipv4), "\(service.addresses)")
            #expect(service.txt.contains(Array("displayName=Lab 🦞".utf8)))

            // Watch for the goodbye while the advertiser withdraws; the watcher says when it has
            // resolved the gateway, so the goodbye is sent only after that (no sleeping).
            let (resolvedSignal, signal) = AsyncStream<Void>.makeStream()
            async let removal = a.inNamespace { () throws -> Bool in
                let querier = try MDNSQuerier(serviceType: "_openclaw-gw._tcp.local.")
                var sawResolved = false, sawRemoved = false
                try querier.run(until: Monotonic.now + .seconds(10)) { event in
                    switch event {
                    case .resolved:
                        if !sawResolved { signal.yield() }
                        sawResolved = true
                    case .removed: sawRemoved = true; return false
                    case .added, .truncated: break
                    }
                    return true
                }
                signal.finish()
                return sawResolved && sawRemoved
            }
            for await _ in resolvedSignal { break }
            try await advertiser.stop()
            #expect(try await removal, "the goodbye was not seen")
        }
    }

    @Test("a browse with nothing to find ends at its deadline")
    func endsOnTime() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            let elapsed = try await a.inNamespace { () throws -> Duration in
                let querier = try MDNSQuerier(serviceType: "_openclaw-gw._tcp.local.")
                let start = Monotonic.now
                try querier.run(until: start + .milliseconds(600)) { _ in true }
                return Monotonic.now - start
            }
            #expect(elapsed >= .milliseconds(600))
            #expect(elapsed < .milliseconds(600 + Harness.hangSlackMs), "the browse outlived its deadline")
        }
    }
}
