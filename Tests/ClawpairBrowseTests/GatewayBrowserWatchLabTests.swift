import ClawpairBrowse
import ClawpairCore
import ClawpairTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One long ``GatewayBrowser/watch(note:onTruncated:onEvent:)`` (no restarts) against
/// python-zeroconf advertising one gateway beacon from another lab host, which keeps coming back
/// under the same instance name somewhere else: after a goodbye, after being killed without one,
/// under the same host name at a new address and under a new host name. The watch must report
/// each new address itself, with each mDNS backend: a real avahi-daemon (private D-Bus) and the
/// built-in querier (in the watcher's namespace).
@Suite("GatewayBrowser watch: a beacon back under its name at a new address (network lab)", .serialized, .networkLab)
struct GatewayBrowserWatchLabTests {
    static let instance = "Moving Gateway"
    static let key = "local.|Moving Gateway"

    @Test("one watch reports the beacon back at each new address: after goodbye, after a kill, same and new host name",
          arguments: [GatewayBrowser.LocalBackend.avahi, .native])
    func beaconBackAtNewAddress(backend: GatewayBrowser.LocalBackend) async throws {
        try await withNetworkLab { lab in
            let watcher = try await lab.addHost("watcher")
            let gateway = try await lab.addHost("gateway")
            let link = try await lab.link(watcher, gateway)
            if backend == .avahi {
                let bus = try await lab.startDBus(in: watcher)
                try await lab.startAvahi(in: watcher, bus: bus)
                try await bus.withSystemBusEnvironment {
                    try await Self.scenario(backend: backend, lab: lab, watcher: watcher, gateway: gateway, link: link)
                }
            } else {
                try await Self.scenario(backend: backend, lab: lab, watcher: watcher, gateway: gateway, link: link)
            }
        }
    }

    static func scenario(backend: GatewayBrowser.LocalBackend, lab: NetworkLab, watcher: LabHost, gateway: LabHost,
                         link: LabLink) async throws {
        // The A records the beacon carries: the advertiser's own address first, then others of its
        // link's /24 (nothing dials them; the watch must only report them).
        let prefix = link.b.ipv4.split(separator: ".").dropLast().joined(separator: ".")
        let first = link.b.ipv4
        let (second, third, fourth, fifth, sixth) = (prefix + ".21", prefix + ".22", prefix + ".23", prefix + ".24", prefix + ".25")
        func advertise(_ host: String, at address: String) async throws -> ZeroconfAdvertiser {
            try await lab.startZeroconfAdvertiser(in: gateway, instance: instance, port: 18789,
                                                  txt: ["role": "gateway", "gatewayPort": "18789"], addresses: [address],
                                                  interfaceAddresses: [link.b.ipv4], server: host)
        }
        func kill(_ advertiser: ZeroconfAdvertiser) async throws {
            advertiser.process.signal(SIGKILL)
            _ = try await advertiser.process.waitForExit(timeout: .seconds(10))
        }
        /// A restart that takes longer than a second, as a real one does: the new announcement then
        /// flushes the records of the last one (RFC 6762 §10.2 flushes only records received more
        /// than a second ago). A scenario step, not a wait for anything.
        func restartTime() async throws { try await Task.sleep(for: .milliseconds(1500)) }

        let feed = EventFeed()
        let stop = StopSignal()
        let options = GatewayBrowser.Options(backend: backend, domains: [], environment: [:], tailnetFallback: false,
                                             timeout: .seconds(600))
        let browser = GatewayBrowser(options: options).stopping(on: stop)
        let watching = Task.detached {
            try await watcher.inNamespace { () -> String in
                do {
                    try browser.watch { event in
                        feed.add(event)
                        return true
                    }
                    return "the watch returned before it was stopped"
                } catch {
                    return BrowseError(error).code
                }
            }
        }

        // A: the beacon appears.
        var mark = feed.count
        var advertiser = try await advertise("gw-one.local.", at: first)
        #expect(await feed.first(after: mark, where: shows("gw-one.local.", at: [first])) != nil,
                "\(backend): the beacon at \(first) was not reported: \(feed.all)")

        // It says goodbye: removed. It comes back under the same name and host name at B.
        mark = feed.count
        try await advertiser.stop()
        #expect(await feed.first(after: mark, where: isRemoved) != nil, "\(backend): the goodbye was not reported: \(feed.all)")
        mark = feed.count
        advertiser = try await advertise("gw-one.local.", at: second)
        #expect(await feed.first(after: mark, where: shows("gw-one.local.", at: [second])) != nil,
                "\(backend): back after a goodbye, at \(second): not reported: \(feed.all)")

        // Killed without a goodbye, back within a second of its last announcement under the same
        // host name at a new address: the built-in querier reports the new address at once, beside
        // the old one (not flushed: received less than a second before). Avahi reports it only once
        // the old address record expires (its TTL), so this step is the querier's alone.
        if backend == .native {
            try await kill(advertiser)
            mark = feed.count
            advertiser = try await advertise("gw-one.local.", at: third)
            #expect(await feed.first(after: mark, where: shows("gw-one.local.", including: third)) != nil,
                    "\(backend): killed and back at once at \(third): not reported: \(feed.all)")
        }

        // Killed, back after a restart under the same host name at a new address: only it is shown.
        try await kill(advertiser)
        try await restartTime()
        mark = feed.count
        advertiser = try await advertise("gw-one.local.", at: fourth)
        #expect(await feed.first(after: mark, where: shows("gw-one.local.", at: [fourth])) != nil,
                "\(backend): killed and back at \(fourth), same host name: not reported: \(feed.all)")

        // Killed again, back under a new host name (the old host's address record stays cached).
        try await kill(advertiser)
        try await restartTime()
        mark = feed.count
        advertiser = try await advertise("gw-two.local.", at: fifth)
        #expect(await feed.first(after: mark, where: shows("gw-two.local.", at: [fifth])) != nil,
                "\(backend): killed and back at \(fifth) as gw-two: not reported: \(feed.all)")

        // A goodbye, then back under yet another host name.
        mark = feed.count
        try await advertiser.stop()
        #expect(await feed.first(after: mark, where: isRemoved) != nil, "\(backend): the second goodbye: \(feed.all)")
        mark = feed.count
        advertiser = try await advertise("gw-three.local.", at: sixth)
        #expect(await feed.first(after: mark, where: shows("gw-three.local.", at: [sixth])) != nil,
                "\(backend): back after a goodbye as gw-three at \(sixth): not reported: \(feed.all)")
        try await advertiser.stop()

        stop.stop()
        #expect(try await watching.value == "cancelled")
    }

    /// An `.added` or `.updated` of the gateway showing SRV host `host` and exactly `addresses`.
    static func shows(_ host: String, at addresses: [String]) -> @Sendable (GatewayBrowser.Event) -> Bool {
        { event in sighting(event, host: host).map { $0.addresses == addresses } ?? false }
    }

    /// An `.added` or `.updated` of the gateway showing SRV host `host` and, among its addresses, `address`.
    static func shows(_ host: String, including address: String) -> @Sendable (GatewayBrowser.Event) -> Bool {
        { event in sighting(event, host: host).map { $0.addresses.contains(address) } ?? false }
    }

    static func sighting(_ event: GatewayBrowser.Event, host: String) -> GatewaySighting? {
        switch event {
        case .added(let sighting), .updated(let sighting):
            let shown = sighting.beacon.host.map { $0.hasSuffix(".") ? $0 : $0 + "." }
            return sighting.key == key && shown == host ? sighting : nil
        case .removed:
            return nil
        }
    }

    static let isRemoved: @Sendable (GatewayBrowser.Event) -> Bool = { event in
        if case .removed(let sighting) = event { return sighting.key == key }
        return false
    }
}

/// The events a watch reported, in order, and a wait for the next one that matches (bounded:
/// only a missing event makes it give up).
final class EventFeed: Sendable {
    private struct State {
        var events: [GatewayBrowser.Event] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func add(_ event: GatewayBrowser.Event) {
        let waiters = state.withLock { state in
            state.events.append(event)
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    var count: Int { state.withLock { $0.events.count } }
    var all: [GatewayBrowser.Event] { state.withLock { $0.events } }

    /// The first event after the first `mark` that matches, waiting up to `timeout` for it.
    func first(after mark: Int, within timeout: Duration = .seconds(20),
               where match: (GatewayBrowser.Event) -> Bool) async -> GatewayBrowser.Event? {
        let deadline = ContinuousClock.now + timeout
        let timer = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            wakeAll()
        }
        defer { timer.cancel() }
        var index = mark
        while true {
            let events = all
            while index < events.count {
                if match(events[index]) { return events[index] }
                index += 1
            }
            guard ContinuousClock.now < deadline else { return nil }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard state.events.count == events.count, ContinuousClock.now < deadline else { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    private func wakeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
