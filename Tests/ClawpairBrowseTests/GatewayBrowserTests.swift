import ClawpairAvahi
@testable import ClawpairBrowse
import ClawpairCore
import ClawpairMDNS
import ClawpairWideArea
import Testing

/// A querier that only logs whether the deadline it was given lies ahead of `clock`.
final class DeadlineProbe: MDNSBrowsing {
    let clock: ManualClock
    let log: Log
    init(clock: ManualClock, log: Log) {
        self.clock = clock
        self.log = log
    }
    func run(until deadline: Monotonic.Instant, untilComplete: Bool, stop: StopSignal, onEvent: (MDNSEvent) -> Bool) throws {
        log.add(deadline > clock.now ? "deadline ahead" : "deadline passed")
    }
}

/// GatewayBrowser on fake backends: the merge across backends and interfaces, updates and
/// removals, the first answer, the fallback from Avahi to the built-in querier, and the notes.
/// The time limit only catches a hang (a run that waits for a source it should not wait for).
@Suite("GatewayBrowser", .timeLimit(.minutes(1)))
struct GatewayBrowserTests {
    func browser(_ backends: BrowseBackends, local: Bool = true, backend: GatewayBrowser.LocalBackend = .auto,
                 domains: [String] = [], first: Bool = false, timeout: Duration = .seconds(2),
                 refresh: Duration? = nil) -> GatewayBrowser {
        GatewayBrowser(options: .init(backend: backend, local: local, domains: domains, environment: [:],
                                      timeout: timeout, firstAnswer: first, wideAreaRefresh: refresh),
                       backends: backends)
    }

    @Test("one gateway, one entry: Avahi on two interfaces and a unicast answer with the same key")
    func mergeAcrossBackendsAndInterfaces() throws {
        let log = Log()
        let avahi: [AvahiEvent] = [
            .added(Fixture.instance("Studio", interface: 2)),
            Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"]),
            .added(Fixture.instance("Studio", interface: 3)),
            Fixture.resolved("Studio", interface: 3, addresses: ["192.0.2.10"]),
        ]
        // A unicast server that answers for local. too (as a split-horizon resolver may).
        let unicast = ["local.": [[Fixture.service("Studio", domain: "local.", addresses: ["192.0.2.10"])]]]
        let backends = Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, unicast: unicast, log: log)
        let scan = try browser(backends, domains: ["local."]).scan()
        #expect(scan.gateways.count == 1, "\(scan.gateways)")
        let gateway = try #require(scan.gateways.first)
        #expect(gateway.key == "local.|Studio")
        #expect(Set(gateway.origins) == [.init(backend: .avahi, interfaceIndex: 2, domain: "local."),
                                         .init(backend: .avahi, interfaceIndex: 3, domain: "local."),
                                         .init(backend: .unicast, domain: "local.")])
        #expect(gateway.addresses == ["192.0.2.10"])
        #expect(scan.localBackend == .avahi)
        #expect(scan.searched == ["local.", "local."])
        // The browse thread closes it after handing its last message over: wait for that.
        log.waitUntil { $0.contains("avahi closed") }
        #expect(log.all.contains("avahi closed"), "the browse is closed after the run: \(log.all)")
    }

    @Test("a bound that cuts Avahi's list is reported in the scan: each cut instance counted once, whatever its interfaces")
    func truncationIsReported() throws {
        let log = Log()
        let avahi: [AvahiEvent] = [
            .added(Fixture.instance("Studio", interface: 2)),
            Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"]),
            .limited(.instance(Fixture.instance("Other", interface: 2))),
            .limited(.instance(Fixture.instance("Other", interface: 3))),
            .limited(.instance(Fixture.instance("Third", interface: 2))),
        ]
        let scan = try browser(Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, log: log), domains: []).scan()
        #expect(scan.gateways.map(\.key) == ["local.|Studio"])
        #expect(scan.truncated == [GatewayBrowser.Truncation(domain: "local.", seen: 3, limit: 1)])

        // A watch reports the cut as an event, again each time the count grows.
        var cuts: [GatewayBrowser.Truncation] = []
        try browser(Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, log: log), domains: [])
            .watch(onTruncated: { cuts.append($0) }) { _ in true }
        #expect(cuts == [.init(domain: "local.", seen: 2, limit: 1), .init(domain: "local.", seen: 3, limit: 1)])
    }

    @Test("the same gateway in local. and a wide-area domain stays two entries (the TS dedupe key), sorted by name")
    func twoDomainsTwoEntries() throws {
        let log = Log()
        let native = [Fixture.mdns("Studio"), Fixture.mdns("Attic")]
        let unicast = ["openclaw.internal.": [[Fixture.service("Studio")]]]
        let backends = Fixture.backends(native: { FakeMDNS(native, log: log) }, unicast: unicast, log: log)
        let scan = try browser(backends, backend: .native, domains: ["openclaw.internal"]).scan()
        // Sorted by name; the two Studios in the order they arrived (two threads).
        #expect(scan.gateways.first?.key == "local.|Attic")
        #expect(Set(scan.gateways.map(\.key)) == ["local.|Attic", "local.|Studio", "openclaw.internal.|Studio"])
        #expect(scan.gateways.filter { $0.backend == .unicast }.map(\.key) == ["openclaw.internal.|Studio"])
        #expect(scan.searched == ["local.", "openclaw.internal."])
        #expect(scan.wideAreaDomains == ["openclaw.internal."])
    }

    @Test("watch: added once, updated only on a change, removed when the last interface withdraws it")
    func watchUpdatesAndRemovals() throws {
        let log = Log()
        let avahi: [AvahiEvent] = [
            .added(Fixture.instance("Studio", interface: 2)),
            Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"]),
            .added(Fixture.instance("Studio", interface: 3)),
            Fixture.resolved("Studio", interface: 3, addresses: ["192.0.2.10"]),  // same: nothing to report
            Fixture.resolved("Studio", interface: 3, port: 28789, addresses: ["192.0.2.10"]),  // new port
            .removed(Fixture.instance("Studio", interface: 3)),  // still on interface 2: no removal
            .removed(Fixture.instance("Studio", interface: 2)),
        ]
        let backends = Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, log: log)
        var events: [GatewayBrowser.Event] = []
        try browser(backends, backend: .avahi).watch { event in
            events.append(event)
            return true
        }
        guard events.count == 3, case .added(let added) = events[0], case .updated(let updated) = events[1],
              case .removed(let removed) = events[2] else {
            Issue.record("expected added, updated, removed: \(events)")
            return
        }
        #expect(added.beacon.port == 18789 && added.origins.count == 1)
        #expect(updated.beacon.port == 28789 && updated.origin.interfaceIndex == 3)
        #expect(removed.key == "local.|Studio")
    }

    @Test("watch: wide-area rounds on the fake clock report a changed instance once and a withdrawn one as removed")
    func watchWideAreaRounds() throws {
        let log = Log()
        let rounds = ["openclaw.internal.": [
            [Fixture.service("alpha"), Fixture.service("beta")],
            [Fixture.service("alpha", port: 28789), Fixture.service("beta")],
            [Fixture.service("beta")],
        ]]
        let backends = Fixture.backends(unicast: rounds, log: log)
        var events: [String] = []
        var notes: [String] = []
        try browser(backends, local: false, domains: ["openclaw.internal"], timeout: .seconds(4), refresh: .seconds(1))
            .watch(note: { notes.append($0) }) { event in
                switch event {
                case .added(let sighting): events.append("added \(sighting.beacon.instanceName) \(sighting.beacon.port ?? 0)")
                case .updated(let sighting): events.append("updated \(sighting.beacon.instanceName) \(sighting.beacon.port ?? 0)")
                case .removed(let sighting): events.append("removed \(sighting.beacon.instanceName)")
                }
                return true
            }
        #expect(events == ["added alpha 18789", "added beta 18789", "updated alpha 28789", "removed alpha"])
        // Rounds at 0, 1, 2 and 3 s of the 4 s run; each ends with the pause it takes.
        #expect(log.all.filter { $0.hasPrefix("browse openclaw.internal.") }.count == 4, "\(log.all)")
        #expect(notes.filter { $0 == "wide-area: next browse in 1.0 seconds" }.count == 4, "\(notes)")
    }

    @Test("scan: Avahi ends once all-for-now and cache-exhausted are in and every resolve answered; watch goes on")
    func avahiScanEndsWhenComplete() throws {
        let log = Log()
        let avahi: [AvahiEvent] = [
            .added(Fixture.instance("Studio", interface: 2)),
            .added(Fixture.instance("Attic", interface: 2)),
            .cacheExhausted,
            Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"]),
            .allForNow,  // Attic still resolving: not complete
            .resolveFailed(Fixture.instance("Attic", interface: 2), .refused("the service resolver", "Timeout reached")),
            .added(Fixture.instance("Later", interface: 2)),  // never read by a scan
        ]
        let backends = Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, log: log)
        let scan = try browser(backends, backend: .avahi, timeout: .seconds(30)).scan()
        #expect(scan.gateways.map(\.key) == ["local.|Studio"])
        #expect(scan.notes.last == "avahi: complete (all for now, every resolve answered)", "\(scan.notes)")
        log.waitUntil { $0.contains("avahi closed") }
        #expect(log.all.contains("avahi stopped after event 5"), "\(log.all)")

        let watchLog = Log()
        let watching = Fixture.backends(avahi: { FakeAvahi(avahi, log: watchLog) }, log: watchLog)
        try browser(watching, backend: .avahi).watch { _ in true }
        #expect(watchLog.all.contains("avahi ran out of events"), "a watch reads on: \(watchLog.all)")
    }

    @Test("a scan the timeout ends before the answer is complete says how many gateways were named but not resolved")
    func unfinishedScanIsReported() throws {
        let log = Log()
        // Avahi named three, resolved one and failed one; its run then reached the deadline.
        let avahi: [AvahiEvent] = [
            .added(Fixture.instance("Studio", interface: 2)), .added(Fixture.instance("Attic", interface: 2)),
            .added(Fixture.instance("Attic", interface: 3)), .added(Fixture.instance("Cellar", interface: 2)),
            Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"]),
            .resolveFailed(Fixture.instance("Cellar", interface: 2), .refused("the service resolver", "Timeout reached")),
        ]
        let scan = try browser(Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, log: log), backend: .avahi).scan()
        #expect(scan.gateways.map(\.key) == ["local.|Studio"])
        #expect(scan.unfinished == [GatewayBrowser.Unfinished(domain: "local.", seen: 3, unresolved: 1)])
        let json = scan.json(timeoutMs: 2000)
        #expect(json["unfinished"] == .array([.object([("domain", "local."), ("seen", 3), ("unresolved", 1)])]))

        // Every one resolved: nothing to say, and no "unfinished" member.
        let whole: [AvahiEvent] = [.added(Fixture.instance("Studio", interface: 2)),
                                   Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"])]
        let complete = try browser(Fixture.backends(avahi: { FakeAvahi(whole, log: log) }, log: log), backend: .avahi).scan()
        #expect(complete.unfinished.isEmpty && complete.json(timeoutMs: 2000)["unfinished"] == nil)

        // The built-in querier: a name added and never resolved before the deadline.
        let native: [MDNSEvent] = [.added(try DNSName(labels: ["Loft", "_openclaw-gw", "_tcp", "local"])), Fixture.mdns("Studio")]
        let nativeScan = try browser(Fixture.backends(native: { FakeMDNS(native, log: log) }, log: log), backend: .native).scan()
        #expect(nativeScan.unfinished == [GatewayBrowser.Unfinished(domain: "local.", seen: 2, unresolved: 1)])
        // ... unless the querier said its answer was complete (a name without a service record).
        let summary = MDNSQuerier.Summary(complete: true)
        let done = try browser(Fixture.backends(native: { FakeMDNS(native, log: log, summary: summary) }, log: log),
                               backend: .native).scan()
        #expect(done.unfinished.isEmpty)
    }

    @Test("scan: without all-for-now (or cache-exhausted) Avahi's answer is not complete")
    func avahiScanNeedsBothSignals() throws {
        for signal in [AvahiEvent.allForNow, .cacheExhausted] {
            let log = Log()
            let avahi: [AvahiEvent] = [.added(Fixture.instance("Studio", interface: 2)), signal,
                                       Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"])]
            let backends = Fixture.backends(avahi: { FakeAvahi(avahi, log: log) }, log: log)
            #expect(try browser(backends, backend: .avahi).scan().gateways.count == 1)
            log.waitUntil { $0.contains("avahi closed") }
            #expect(log.all.contains("avahi ran out of events"), "\(signal): \(log.all)")
        }
    }

    @Test("scan asks the built-in querier to end when complete; a watch runs it to the deadline")
    func nativeUntilComplete() throws {
        let log = Log()
        let backends = Fixture.backends(native: { FakeMDNS([Fixture.mdns("Studio")], log: log) }, log: log)
        _ = try browser(backends, backend: .native).scan()
        try browser(backends, backend: .native).watch { _ in true }
        #expect(log.all.filter { $0.hasPrefix("native until") } == ["native until complete", "native until the deadline"],
                "\(log.all)")
    }

    @Test("-v hears what the built-in querier did: its summary is the scan's last note")
    func nativeSummaryIsNoted() throws {
        let log = Log()
        let summary = MDNSQuerier.Summary(multicastQueries: 2, directQueries: 4, answersLost: true, complete: true)
        let backends = Fixture.backends(native: { FakeMDNS([Fixture.mdns("Studio")], log: log, summary: summary) }, log: log)
        let scan = try browser(backends, backend: .native).scan()
        #expect(scan.notes.last == summary.description, "\(scan.notes)")
    }

    @Test("first answer: the run ends at the first resolved gateway and the backend is told to stop")
    func firstAnswerEndsTheRun() throws {
        let log = Log()
        let native = [Fixture.mdns("Studio"), Fixture.mdns("Attic")]
        let backends = Fixture.backends(native: { FakeMDNS(native, log: log) }, log: log)
        let gateway = try browser(backends, backend: .native).first()
        #expect(gateway?.key == "local.|Studio")
        let scan = try browser(backends, backend: .native, first: true).scan()
        #expect(scan.gateways.map(\.key) == ["local.|Studio"])
        // The backend's thread notes its stop after handing the answer over: wait for it.
        log.waitUntil { $0.filter { $0 == "native stopped after event 0" }.count == 2 }
        #expect(log.all.filter { $0 == "native stopped after event 0" }.count == 2, "\(log.all)")
    }

    @Test("first answer from wide-area while mDNS still waits: first() returns without waiting for its answer, mDNS told to end")
    func firstAnswerDoesNotWaitForOtherSources() throws {
        let log = Log()
        let gate = StopSignal()  // never opened: mDNS would answer only then
        let backends = Fixture.backends(native: { FakeMDNS([Fixture.mdns("Later")], log: log, gate: gate) },
                                        unicast: ["openclaw.internal.": [[Fixture.service("Studio")]]], log: log)
        let gateway = try browser(backends, backend: .native, domains: ["openclaw.internal"]).first()
        #expect(gateway?.key == "openclaw.internal.|Studio")
        #expect(gateway?.backend == .unicast)
        #expect(log.all.filter { $0.hasPrefix("native") } == ["native ended before answering"], "\(log.all)")
    }

    @Test("auto falls back to the built-in querier when no avahi-daemon answers, or Avahi's library is missing; avahi alone fails")
    func fallbackFromAvahiToNative() throws {
        let log = Log()
        let native = { @Sendable () throws -> any MDNSBrowsing in FakeMDNS([Fixture.mdns("Studio")], log: log) }
        let noDaemon = Fixture.backends(native: native, log: log)
        let scan = try browser(noDaemon).scan()
        #expect(scan.gateways.map(\.backend) == [.native])
        #expect(scan.localBackend == .native)
        #expect(scan.notes == ["backend: native (no avahi-daemon on the system bus)"])

        let noLibrary = Fixture.backends(avahi: { throw AvahiError.libraryUnavailable("libavahi-client.so.3: not found") },
                                         native: native, log: log)
        #expect(try browser(noLibrary).scan().notes == ["backend: native (Avahi's client library is not installed)"])

        // Typed throws: the backend's error arrives as the BrowseError case that names the backend.
        let avahiDown = #expect(throws: BrowseError.self) { try browser(noDaemon, backend: .avahi).scan() }
        #expect({ if case .avahi(.daemonNotRunning)? = avahiDown { true } else { false } }(), "\(String(describing: avahiDown))")
        #expect(avahiDown?.code == "avahi-unavailable" && avahiDown?.message == AvahiError.daemonNotRunning.message)
        // In first-answer mode a failing backend counts only when nothing else answers.
        let withDomain = Fixture.backends(unicast: ["openclaw.internal.": [[Fixture.service("Studio")]]], log: log)
        #expect(try browser(withDomain, backend: .avahi, domains: ["openclaw.internal"]).first()?.backend == .unicast)
        let nativeDown = #expect(throws: BrowseError.self) { try browser(withDomain, backend: .native).first() }
        #expect({ if case .native(.noInterfaces)? = nativeDown { true } else { false } }(), "\(String(describing: nativeDown))")
    }

    @Test("notes: the backend that answered, what each domain listed, a domain that failed, the tailnet fallback")
    func notes() throws {
        let log = Log()
        let avahi: [AvahiEvent] = [Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"])]
        let status = #"{"Self": {"TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1"]}}"#
        let backends = Fixture.backends(avahi: { FakeAvahi(avahi, log: log) },
                                        unicast: ["openclaw.internal.": [[Fixture.service("Studio")]], "empty.example.": [[]]],
                                        magicDNS: ["empty.example.": [[Fixture.service("Tailnet", domain: "empty.example.")]]],
                                        tailscaleStatus: status, log: log)
        var live: [String] = []
        let scan = try browser(backends, domains: ["openclaw.internal", "down.example", "empty.example"])
            .scan(note: { live.append($0) })
        #expect(live == scan.notes)
        #expect(scan.notes.contains("backend: avahi (avahi-daemon answered)"))
        let wideArea = scan.notes.filter { $0.hasPrefix("wide-area:") }
        func fallback(_ domain: String) -> String {
            "wide-area: \(domain) found no gateway through the configured DNS servers and this machine is on a "
                + "tailnet: asking MagicDNS 100.100.100.100"
        }
        #expect(wideArea == [
            "wide-area: openclaw.internal. lists 1 instance(s)",
            fallback("down.example."),
            "wide-area: down.example.: no DNS server answered for _openclaw-gw._tcp.down.example. in time",
            fallback("empty.example."),
            "wide-area: empty.example. lists 1 instance(s)",
        ])
        #expect(Set(scan.gateways.map(\.key)) == ["local.|Studio", "openclaw.internal.|Studio", "empty.example.|Tailnet"])
        #expect(scan.failedDomains == [.init(domain: "down.example.",
                                             reason: "no DNS server answered for _openclaw-gw._tcp.down.example. in time")],
                "the domain without an answer is listed apart, for the command to tell without -v")
        #expect(log.all.contains("browse openclaw.internal. via 192.0.2.53:53"), "resolv.conf's server by default: \(log.all)")
        #expect(log.all.contains("browse empty.example. via 100.100.100.100:53"))
    }

    @Test("no tailnet fallback when it is off or tailscale lists no IPv4 address of this machine")
    func tailnetFallbackOff() throws {
        let log = Log()
        let backends = Fixture.backends(unicast: ["empty.example.": [[]]],
                                        magicDNS: ["empty.example.": [[Fixture.service("Tailnet", domain: "empty.example.")]]],
                                        tailscaleStatus: #"{"Self": {"TailscaleIPs": ["fd7a:115c:a1e0::1"]}}"#, log: log)
        #expect(try browser(backends, local: false, domains: ["empty.example"]).scan().gateways.isEmpty)
        var options = browser(backends, local: false, domains: ["empty.example"]).options
        options.tailnetFallback = false
        #expect(try GatewayBrowser(options: options, backends: backends).scan().gateways.isEmpty)
        #expect(!log.all.contains { $0.contains("100.100.100.100") }, "\(log.all)")
    }

    @Test("a timeout too long for the clock is cut, not wrapped into the past")
    func hugeTimeout() throws {
        let log = Log()
        let backends = Fixture.backends(native: { FakeMDNS([Fixture.mdns("Studio")], log: log) }, log: log)
        #expect(try browser(backends, backend: .native, timeout: .seconds(Int64.max)).scan().gateways.count == 1)
        let clock = ManualClock()
        let probing = Fixture.backends(native: { DeadlineProbe(clock: clock, log: log) }, clock: clock, log: log)
        _ = try browser(probing, backend: .native, timeout: .seconds(Int64.max)).scan()
        #expect(log.all.contains("deadline ahead"), "\(log.all)")
    }

    @Test("domains nil: the configured one (here from the environment); empty: none, whatever is configured")
    func domainsFromOptions() throws {
        let log = Log()
        let backends = Fixture.backends(unicast: ["env.example.": [[Fixture.service("Studio", domain: "env.example.")]]],
                                        log: log)
        let environment = ["OPENCLAW_WIDE_AREA_DOMAIN": "env.example"]
        let configured = GatewayBrowser(options: .init(local: false, environment: environment), backends: backends)
        #expect(try configured.scan().gateways.map(\.key) == ["env.example.|Studio"])
        let none = GatewayBrowser(options: .init(local: false, domains: [], environment: environment), backends: backends)
        let scan = try none.scan()
        #expect(scan.gateways.isEmpty && scan.searched.isEmpty && scan.wideAreaDomains.isEmpty)
        #expect(log.all == ["browse env.example. via 192.0.2.53:53"], "\(log.all)")
    }

    @Test("configured domains: given ones win, else the config file, else the environment; normalized, each once")
    func configuredDomains() {
        var notes: [String] = []
        #expect(GatewayBrowser.configuredDomains(given: ["OpenClaw.Internal", "openclaw.internal."], environment: [:],
                                                 note: { notes.append($0) }) == ["OpenClaw.Internal."])
        let environment = ["OPENCLAW_CONFIG_PATH": "/nonexistent/clawpair/openclaw.json",
                           "OPENCLAW_WIDE_AREA_DOMAIN": "env.example"]
        #expect(GatewayBrowser.configuredDomains(given: [], environment: environment, note: { notes.append($0) })
                == ["env.example."])
        #expect(GatewayBrowser.configuredDomains(given: [], environment: ["OPENCLAW_CONFIG_PATH": "/"],
                                                 note: { notes.append($0) }).isEmpty)
        #expect(notes.count == 1 && notes[0].hasPrefix("warning: ignoring /: "), "\(notes)")
    }
}
