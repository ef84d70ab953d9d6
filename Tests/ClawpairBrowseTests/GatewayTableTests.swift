@testable import ClawpairBrowse
import ClawpairDiscovery
import Testing

/// The merge on its own: reports in, changes out.
@Suite("GatewayTable")
struct GatewayTableTests {
    static func report(_ backend: GatewayBrowser.Backend, interface: UInt32? = nil, port: Int = 18789,
                       addresses: [String] = ["192.0.2.10"]) -> SourceReport {
        SourceReport(key: "local.|Studio",
                     beacon: GatewayBeacon(instanceName: "Studio", host: "studio.local.", port: port, txt: TXTRecord()),
                     addresses: addresses, origin: .init(backend: backend, interfaceIndex: interface, domain: "local."))
    }

    @Test("one backend withdrawing leaves the entry to the other; the last withdrawal removes it")
    func withdrawalByOneBackend() {
        var table = GatewayTable()
        #expect(table.seen(Self.report(.avahi, interface: 2)).map(Self.kind) == "added")
        // The same gateway from unicast, on another port: the entry shows the latest report.
        let updated = table.seen(Self.report(.unicast, port: 28789))
        guard case .updated(let shown)? = updated else { Issue.record("\(String(describing: updated))"); return }
        #expect(shown.backend == .unicast && shown.beacon.port == 28789 && shown.origins.count == 2)
        // Unicast withdraws it: Avahi's report shows again, as an update.
        guard case .updated(let back)? = table.gone(key: "local.|Studio", backend: .unicast) else {
            Issue.record("expected an update"); return
        }
        #expect(back.backend == .avahi && back.beacon.port == 18789 && back.origins.count == 1)
        // A withdrawal by a backend that never reported it changes nothing.
        #expect(table.gone(key: "local.|Studio", backend: .native) == nil)
        #expect(table.gone(key: "local.|Other", backend: .avahi) == nil)
        guard case .removed(let last)? = table.gone(key: "local.|Studio", backend: .avahi) else {
            Issue.record("expected a removal"); return
        }
        #expect(last.beacon.port == 18789)
        #expect(table.listed().isEmpty)
    }

    @Test("a report from a second interface that shows nothing new is no change; new addresses are")
    func secondInterface() {
        var table = GatewayTable()
        _ = table.seen(Self.report(.avahi, interface: 2))
        #expect(table.seen(Self.report(.avahi, interface: 3)) == nil)
        #expect(table.seen(Self.report(.avahi, interface: 3, addresses: ["fe80::1"])).map(Self.kind) == "updated")
        #expect(table.listed().map(\.addresses) == [["fe80::1"]])
    }

    @Test("lists keep the first of each dedupe key and sort by name")
    func listed() {
        var table = GatewayTable()
        for (key, name) in [("local.|b", "Bravo"), ("local.|a", "alpha"), ("x.|a", "alpha")] {
            let domain = String(key.prefix { $0 != "|" })
            _ = table.seen(SourceReport(key: key, beacon: GatewayBeacon(instanceName: name, domain: domain, host: "h.local.",
                                                                         port: 1, txt: TXTRecord()),
                                        addresses: [], origin: .init(backend: .native, domain: domain)))
        }
        // Two instances with the same beacon in local. (same dedupe key): the first stays.
        _ = table.seen(SourceReport(key: "local.|a2", beacon: GatewayBeacon(instanceName: "alpha", host: "h.local.", port: 1,
                                                                           txt: TXTRecord()),
                                    addresses: [], origin: .init(backend: .avahi, domain: "local.")))
        #expect(table.listed().map(\.key) == ["local.|a", "x.|a", "local.|b"])
        #expect(table.listed(limit: 1).map(\.key) == ["local.|b"], "the first to appear, as --first lists it")
    }

    @Test("a report that renames a gateway moves it in the list; its withdrawal by one backend shows the other's")
    func listedFollowsChanges() {
        var table = GatewayTable()
        func report(_ key: String, _ name: String, _ backend: GatewayBrowser.Backend) -> SourceReport {
            SourceReport(key: key, beacon: GatewayBeacon(instanceName: key, host: "h.local.", port: 1,
                                                         txt: TXTRecord(strings: [Array("displayName=\(name)".utf8)])),
                         addresses: [], origin: .init(backend: backend, domain: "local."))
        }
        _ = table.seen(report("a", "Alpha", .native))
        _ = table.seen(report("b", "Bravo", .native))
        #expect(table.listed().map(\.beacon.displayName) == ["Alpha", "Bravo"])
        _ = table.seen(report("a", "Zulu", .avahi))
        #expect(table.listed().map(\.beacon.displayName) == ["Bravo", "Zulu"])
        _ = table.gone(key: "a", backend: .avahi)
        #expect(table.listed().map(\.beacon.displayName) == ["Alpha", "Bravo"])
    }

    static func kind(_ event: GatewayBrowser.Event) -> String {
        switch event {
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        }
    }
}
