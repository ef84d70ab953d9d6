@testable import ClawpairBrowse
import ClawpairCore
import ClawpairDiscovery
import Testing

/// What `clawpair discover --json` and `--watch` print for sightings, scans and events, exactly.
@Suite struct SightingJSONTests {
    static let sighting = SightingTextTests.sighting(txt: ["displayName=Studio"], addresses: ["192.0.2.10"])

    @Test("a sighting's JSON is the beacon's, then addresses and backend")
    func sightingJSON() throws {
        let json = Self.sighting.json
        guard case .object(let members) = json else { Issue.record("not an object: \(json)"); return }
        #expect(members.map(\.0).suffix(3) == ["wsUrl", "addresses", "backend"])
        #expect(json["addresses"] == .array([.string("192.0.2.10")]))
        #expect(json["backend"] == .string("native"))
        #expect(json["instanceName"] == .string("Studio\u{1B}[2J"), "JSON keeps the exact decoded value")
    }

    @Test("watch events: one JSON line each, a removed gateway without addresses or backend")
    func eventJSON() {
        let added = GatewayBrowser.Event.added(Self.sighting)
        #expect(added.name == "added")
        #expect(added.json["event"] == .string("added"))
        #expect(added.json["beacon"] == Self.sighting.json)
        let removed = GatewayBrowser.Event.removed(Self.sighting)
        #expect(removed.json["event"] == .string("removed"))
        #expect(removed.json["beacon"]?["addresses"] == .array([]))
        #expect(removed.json["beacon"]?["backend"] == .null)
        #expect(removed.json["beacon"]?["wsUrl"] == .string("ws://studio.local:18789"))
        #expect(GatewayBrowser.Event.updated(Self.sighting).json["event"] == .string("updated"))
    }

    @Test("watch events: the text line, marked and sanitized")
    func eventText() {
        #expect(GatewayBrowser.Event.added(Self.sighting).textLine == "+ Studio  ws://studio.local:18789")
        #expect(GatewayBrowser.Event.updated(Self.sighting).textLine == "~ Studio  ws://studio.local:18789")
        let hostless = SightingTextTests.sighting(txt: ["displayName=Evil\u{1B}[2J"], host: "")
        #expect(GatewayBrowser.Event.removed(hostless).textLine == "- Evil\\x1b[2J  no usable address")
    }

    @Test("a scan's JSON document, with truncated only when a bound cut a list")
    func scanJSON() {
        var scan = GatewayBrowser.Scan(gateways: [Self.sighting], searched: ["local.", "openclaw.internal."],
                                       wideAreaDomains: ["openclaw.internal."], localBackend: .native, notes: [])
        #expect(scan.json(timeoutMs: 2000).compact() == JSONValue.object([
            ("timeoutMs", .int(2000)), ("domains", .array([.string("local."), .string("openclaw.internal.")])),
            ("count", .int(1)), ("beacons", .array([Self.sighting.json])),
        ]).compact())
        scan.truncated = [.init(domain: "local.", seen: 9, limit: 4)]
        #expect(scan.json(timeoutMs: 2000)["truncated"]?.compact() == #"[{"domain":"local.","seen":9,"kept":4}]"#)
    }

    @Test("nothing found: the domains searched are named only when asked, with one final dot")
    func notFound() {
        let scan = GatewayBrowser.Scan(gateways: [], searched: ["local.", "evil\u{1B}.internal"], wideAreaDomains: [],
                                       localBackend: nil, notes: [])
        #expect(scan.notFoundText(timeoutMs: 1500, namingDomains: false) == "No gateways found within 1500 ms.")
        #expect(scan.notFoundText(timeoutMs: 1500, namingDomains: true)
                == "No gateways found within 1500 ms. Searched local., evil\\x1b.internal.")
    }
}
