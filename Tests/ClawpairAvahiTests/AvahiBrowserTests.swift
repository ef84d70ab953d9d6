import ClawpairCore
import ClawpairAvahi
import ClawpairTestSupport
import Testing

/// The Avahi backend against a real avahi-daemon (host A, private D-Bus) finding gateways that
/// python-zeroconf advertises from host B. The test process reaches avahi only through the
/// private bus's unix socket, so no packet leaves the lab.
@Suite("Avahi backend", .serialized, .networkLab)
struct AvahiBrowserTests {
    static let type = "_openclaw-gw._tcp"

    @Test("browse → resolve → addresses, then removal after the advertiser says goodbye",
          arguments: [AvahiResolution.serviceResolver, .compat])
    func browseResolveRemove(resolution: AvahiResolution) async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let bus = try await lab.startDBus(in: a)
            try await lab.startAvahi(in: a, bus: bus)
            let txt = ["role": "gateway", "gatewayPort": "18789", "displayName": "Büro 🦞", "gatewayTls": "1"]
            let advertiser = try await lab.startZeroconfAdvertiser(
                in: b, instance: "Büro Gateway", port: 18789, txt: txt, server: "gw-b.local.")

            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type, resolution: resolution)
                var resolved: ResolvedInstance?
                // A and AAAA answers arrive separately: wait until the IPv4 address is in.
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    if case .resolved(let instance) = event, instance.instance.name == "Büro Gateway" {
                        resolved = instance
                        return !instance.addresses.contains(link.b.ipv4)
                    }
                    return true
                }
                let found = try #require(resolved, "the advertised gateway was not resolved within 10 s")
                #expect(found.port == 18789)
                #expect(found.hostTarget.hasPrefix("gw-b.local"))
                #expect(found.addresses.contains(link.b.ipv4), "\(found.addresses) should contain \(link.b.ipv4)")
                let pairs = Self.txtPairs(found.txtRecord)
                #expect(pairs["displayName"] == "Büro 🦞")
                #expect(pairs["gatewayTls"] == "1")

                try await advertiser.stop()
                var removed = false
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    if case .removed(let instance) = event, instance.name == "Büro Gateway" { removed = true; return false }
                    return true
                }
                #expect(removed, "the goodbye was not reported")
                browser.stop()
            }
        }
    }

    @Test("a deadline bounds a browse that finds nothing")
    func deadlineBoundsEmptyBrowse() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, _) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: "_nothing-here._tcp")
                let start = Monotonic.now
                var events = 0
                try browser.run(until: start + .milliseconds(400)) { _ in events += 1; return true }
                let elapsed = Monotonic.now - start
                #expect(events == 0)
                #expect(elapsed >= .milliseconds(400))
            }
        }
    }

    @Test("no daemon behind the bus is reported as such, not as a hang")
    func noDaemon() async throws {
        let missing = "/tmp/clawpair-no-such-bus-\(UInt64.random(in: 0 ... .max)).sock"
        try await ProcessEnvironment.withSystemBus(socketPath: missing) {
            #expect(throws: AvahiError.daemonNotRunning) { _ = try AvahiBrowser(type: Self.type) }
        }
    }

    /// Key=value pairs of a raw TXT record (test-side decoding; the product's rules live in
    /// ClawpairDiscovery).
    static func txtPairs(_ bytes: [UInt8]) -> [String: String] {
        var result: [String: String] = [:]
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            let end = min(bytes.count, index + 1 + length)
            let entry = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            if let eq = entry.firstIndex(of: "=") {
                result[String(entry[..<eq])] = String(entry[entry.index(after: eq)...])
            }
            index = end
        }
        return result
    }
}
