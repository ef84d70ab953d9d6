import ClawpairCore
import ClawpairDNS
import ClawpairMDNS
import Testing

/// A gateway back under the same instance name at a new address without a goodbye in between:
/// its announcement's cache-flush records replace the old ones a second later (RFC 6762 §10.2),
/// and the browse reports the new address alone.
@Suite struct MDNSBrowserMoveTests {
    typealias Fixture = MDNSBrowserTests
    let t0 = Monotonic.now

    static func announcement(host: DNSName = Fixture.host, address: UInt32) -> DNSMessage {
        Fixture.response([
            DNSResourceRecord(name: Fixture.type, ttl: 4500, data: .ptr(Fixture.instance)),
            DNSResourceRecord(name: Fixture.instance, cacheFlush: true, ttl: 120, data: .srv(SRVData(port: 18789, target: host))),
            DNSResourceRecord(name: Fixture.instance, cacheFlush: true, ttl: 4500, data: .txt([Array("role=gateway".utf8)])),
            DNSResourceRecord(name: host, cacheFlush: true, ttl: 120, data: .a(IPv4Address(address))),
        ])
    }

    static func addresses(_ events: [MDNSEvent]) -> [[String]] {
        events.compactMap { if case .resolved(let service) = $0 { return service.addresses } else { return nil } }
    }

    @Test("killed and back under the same host name at a new address: the old address goes a second later")
    func sameHostNewAddress() {
        var browser = MDNSBrowser(serviceType: Fixture.type, firstQueryDelay: .zero)
        _ = browser.tick(at: t0)
        #expect(Self.addresses(browser.receive(Self.announcement(address: 0x0AFA_0015), at: t0 + .milliseconds(100)).events)
                == [["10.250.0.21"]])
        let back = t0 + .seconds(5)
        #expect(Self.addresses(browser.receive(Self.announcement(address: 0x0AFA_0016), at: back).events)
                == [["10.250.0.21", "10.250.0.22"]])
        var later: [MDNSEvent] = []
        var now = back
        while let next = browser.nextDeadline, next <= back + .seconds(2) {
            now = max(now, next)
            later += browser.tick(at: now).events
        }
        #expect(Self.addresses(later) == [["10.250.0.22"]], "\(later)")
    }
}
