import ClawpairCore
import ClawpairAvahi
import ClawpairTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The Avahi backend (libavahi-client) against a real avahi-daemon (host A, private D-Bus)
/// finding gateways that python-zeroconf advertises from host B. The test process reaches avahi
/// only through the private bus's unix socket, so no packet leaves the lab.
@Suite("Avahi backend", .serialized, .networkLab)
struct AvahiBrowserTests {
    static let type = "_openclaw-gw._tcp"

    @Test("browse → resolve → both addresses of a dual-stack advertiser, then removal after its goodbye")
    func browseResolveRemove() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let link = try await lab.link(a, b)
            let bus = try await lab.startDBus(in: a)
            try await lab.startAvahi(in: a, bus: bus)
            let txt = ["role": "gateway", "gatewayPort": "18789", "displayName": "Büro 🦞", "gatewayTls": "1"]
            // Advertises the IPv4 and the IPv6 address of B's link end.
            let advertiser = try await lab.startZeroconfAdvertiser(
                in: b, instance: "Büro Gateway", port: 18789, txt: txt, server: "gw-b.local.")
            let both: Set = [link.b.ipv4, Self.canonical(ipv6: link.b.ipv6)]

            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type)
                var resolved: ResolvedInstance?
                var added: [BrowsedInstance] = []
                // One address comes with the first answer, the other family's with the second resolve.
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    if case .added(let instance) = event { added.append(instance) }
                    if case .resolved(let instance) = event, instance.instance.name == "Büro Gateway" {
                        resolved = instance
                        return Set(instance.addresses) != both
                    }
                    return true
                }
                let found = try #require(resolved, "the advertised gateway was not resolved within 10 s")
                #expect(added.map(\.name) == ["Büro Gateway"], "one instance per interface, however many protocols")
                #expect(found.instance.type == "_openclaw-gw._tcp.")
                #expect(found.instance.domain == "local.")
                #expect(found.instance.interfaceIndex > 0)
                #expect(found.port == 18789)
                #expect(found.hostTarget == "gw-b.local.")
                #expect(Set(found.addresses) == both, "\(found.addresses)")
                // The raw TXT RDATA in the advertiser's order (it writes the keys sorted).
                let expected = txt.sorted { $0.key < $1.key }.map { Array("\($0.key)=\($0.value)".utf8) }
                #expect(Self.strings(found.txtRecord) == expected)
                #expect(browser.pendingResolves == 0)

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

    @Test("the browser says all-for-now, and no resolve is pending once the gateway is resolved")
    func allForNow() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, _) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Gateway One", port: 18789, txt: ["role": "gateway"])
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type)
                var allForNow = false, resolved = false
                var pendingAtAdd: Int?
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    switch event {
                    case .added: pendingAtAdd = browser.pendingResolves
                    case .resolved: resolved = true
                    case .allForNow: allForNow = true
                    default: break
                    }
                    return !(allForNow && resolved)
                }
                #expect(allForNow, "AVAHI_BROWSER_ALL_FOR_NOW did not arrive within 10 s")
                #expect(resolved)
                #expect(pendingAtAdd == 1, "the resolve starts with the instance")
                #expect(browser.pendingResolves == 0)
            }
        }
    }

    @Test("maxInstances 2 with 3 gateways advertised: 2 are tracked, the third is reported as cut")
    func instanceBound() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, _) = try await lab.startAvahiLink()
            for (index, name) in ["Gateway A", "Gateway B", "Gateway C"].enumerated() {
                try await lab.startZeroconfAdvertiser(in: b, instance: name, port: UInt16(18789 + index),
                                                      txt: ["role": "gateway"], server: "gw-\(index).local.")
            }
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type, limits: AvahiLimits(maxInstances: 2))
                var added: Set<String> = [], cut: Set<String> = []
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    switch event {
                    case .added(let instance): added.insert(instance.name)
                    case .limited(.instance(let instance)): cut.insert(instance.name)
                    default: break
                    }
                    return added.count + cut.count < 3
                }
                #expect(added.count == 2, "\(added)")
                #expect(cut.count == 1, "\(cut)")
                #expect(added.union(cut) == ["Gateway A", "Gateway B", "Gateway C"])
            }
        }
    }

    @Test("maxAddressesPerInstance 1 with a dual-stack advertiser: the second address is reported as cut")
    func addressBound() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, _) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Dual Gateway", port: 18789, txt: ["role": "gateway"])
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type, limits: AvahiLimits(maxAddressesPerInstance: 1))
                var resolved: ResolvedInstance?
                var cut: String?
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    if case .resolved(let instance) = event { resolved = instance }
                    if case .limited(.address(_, let address)) = event { cut = address }
                    return cut == nil
                }
                let found = try #require(resolved)
                let dropped = try #require(cut, "the second family's address was not reported as cut")
                #expect(found.addresses.count == 1)
                #expect(!found.addresses.contains(dropped))
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
                var found = 0
                try browser.run(until: start + .milliseconds(400)) { event in
                    if case .added = event { found += 1 }
                    return true
                }
                #expect(found == 0)
                // The property under test is the caller's bound itself: run returns at its
                // deadline, not before (AvahiBrowser reads the system clock; no protocol timing
                // is assumed, and the daemon's all-for-now, 1 s in, cannot end it sooner).
                #expect(Monotonic.now - start >= .milliseconds(400))
            }
        }
    }

    @Test("no system bus: daemonNotRunning")
    func noBus() async throws {
        let missing = "/tmp/clawpair-no-such-bus-\(UInt64.random(in: 0 ... .max)).sock"
        _ = try await ProcessEnvironment.withSystemBus(socketPath: missing) {
            #expect(throws: AvahiError.daemonNotRunning) { _ = try AvahiBrowser(type: Self.type) }
        }
    }

    @Test("a bus without avahi-daemon: daemonNotRunning")
    func busWithoutDaemon() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let bus = try await lab.startDBus(in: a)
            _ = try await bus.withSystemBusEnvironment {
                #expect(throws: AvahiError.daemonNotRunning) { _ = try AvahiBrowser(type: Self.type) }
            }
        }
    }

    @Test("avahi-daemon killed mid-browse ends the run with daemonNotRunning, not a hang")
    func daemonLeaves() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, avahi) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type)
                try browser.run(until: Monotonic.now + .milliseconds(300)) { _ in true }
                avahi.process.signal(SIGKILL)
                // A run that hung until its deadline would return without throwing.
                #expect(throws: AvahiError.daemonNotRunning) {
                    try browser.run(until: Monotonic.now + .seconds(10)) { _ in true }
                }
            }
        }
    }

    /// An IPv6 address as inet_ntop writes it (the lab spells zero groups out).
    static func canonical(ipv6 text: String) -> String {
        var address = in6_addr()
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_pton(AF_INET6, text, &address) == 1, inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil
        else { return text }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The character-strings of a raw TXT record (test-side decoding; the product's rules live in
    /// ClawpairDiscovery).
    static func strings(_ bytes: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + 1 + Int(bytes[index]))
            result.append(Array(bytes[(index + 1)..<end]))
            index = end
        }
        return result
    }
}
