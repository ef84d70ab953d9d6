@testable import ClawpairAvahi
@testable import ClawpairBrowse
import ClawpairCore
import ClawpairDNS
import ClawpairMDNS
import ClawpairTestSupport
@testable import ClawpairWideArea
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// Fake backends for GatewayBrowser: scripted events, no sockets, no daemon, no sleeping.

/// What the fakes did, read by the tests after a run.
final class Log: Sendable {
    private let lines = Watched<[String]>([])
    func add(_ line: String) { lines.update { $0.append(line) } }
    var all: [String] { lines.value }

    /// Returns once `condition` holds for the lines, for what a background thread logs after
    /// handing its answer over: woken by each line. Only a hang makes it give up.
    func waitUntil(_ condition: ([String]) -> Bool) {
        lines.wait(until: condition)
    }
}

/// A backend's wait for its socket, in a fake: poll(2) on the stop's ``StopWakeup`` descriptor,
/// as the real backends add it to their sockets.
enum FakeWait {
    /// Waits until `stop` is raised (true) or 20 s passed (false: a hang bound, not a timing).
    @discardableResult
    static func hold(_ stop: StopSignal, bound: Duration = .seconds(20)) -> Bool {
        let wakeup = StopWakeup(stop)
        var descriptors = [wakeup.pollDescriptor].compactMap { $0 }
        let clock = SystemMonotonicClock()
        _ = try? Poll.wait(&descriptors, until: clock.now + bound, clock: clock)
        return stop.isStopped
    }

    /// Waits until `gate` (true) or `stop` (false) is raised, at most 20 s (false).
    static func hold(either gate: StopSignal, or stop: StopSignal) -> Bool {
        let wakeups = [StopWakeup(gate), StopWakeup(stop)]
        var descriptors = wakeups.compactMap(\.pollDescriptor)
        let clock = SystemMonotonicClock()
        _ = try? Poll.wait(&descriptors, until: clock.now + .seconds(20), clock: clock)
        return gate.isStopped
    }

    /// How long a fake's clean-up waits for a gate the test opens only after the run returned:
    /// a run that waits for its backends to close waits this long once (no timing is asserted).
    static let gateBound: Duration = .seconds(1)
}

/// An Avahi browse that hands over `events` in order and logs whether it was told to stop.
final class FakeAvahi: AvahiBrowsing {
    let events: [AvahiEvent]
    let log: Log

    init(_ events: [AvahiEvent], log: Log) {
        self.events = events
        self.log = log
    }

    /// Instances added and not yet resolved, failed or removed, as of the event handed over last.
    private(set) var pending: Set<BrowsedInstance> = []
    var pendingResolves: Int { pending.count }
    var latestPendingSecondResolveStart: Monotonic.Instant? { nil }

    /// Set: after its events, waits like a real browse for the next answer, which never comes,
    /// until the run's stop wakes it (logged as "avahi cancelled") or 20 s pass.
    var holdOpen = false

    /// Set: its events wait until this is raised (at most 20 s).
    var startGate: StopSignal?

    func run(until deadline: Monotonic.Instant, stop: StopSignal, onEvent: (AvahiEvent) -> Bool) throws {
        defer { if holdOpen { log.add(FakeWait.hold(stop) ? "avahi cancelled" : "avahi ran 20 s without a stop") } }
        if let startGate { FakeWait.hold(startGate) }
        for (index, event) in events.enumerated() {
            switch event {
            case .added(let instance): pending.insert(instance)
            case .removed(let instance), .resolveFailed(let instance, _): pending.remove(instance)
            case .resolved(let resolved): pending.remove(resolved.instance)
            default: break
            }
            if !onEvent(event) {
                log.add("avahi stopped after event \(index)")
                return
            }
        }
        log.add("avahi ran out of events")
    }

    /// Set: ``stop()`` first waits for the gate (at most ``FakeWait/gateBound``), so that a run
    /// returning before its backend closed is caught, not raced.
    var closeGate: StopSignal?

    func stop() {
        if let closeGate { FakeWait.hold(closeGate, bound: FakeWait.gateBound) }
        log.add("avahi closed")
    }
}

/// The built-in querier, scripted; with `gate`, it waits for the test to open it first, or
/// for the run's stop, as a real backend's wait does (then it answers nothing: "native ended
/// before answering").
final class FakeMDNS: MDNSBrowsing {
    let events: [MDNSEvent]
    let log: Log
    let gate: StopSignal?
    let runSummary: MDNSQuerier.Summary?

    init(_ events: [MDNSEvent], log: Log, gate: StopSignal? = nil, summary: MDNSQuerier.Summary? = nil) {
        self.events = events
        self.log = log
        self.gate = gate
        self.runSummary = summary
    }

    /// As ``FakeAvahi/holdOpen`` ("native cancelled").
    var holdOpen = false

    func run(until deadline: Monotonic.Instant, untilComplete: Bool, stop: StopSignal,
             onEvent: (MDNSEvent) -> Bool) throws {
        defer { if holdOpen { log.add(FakeWait.hold(stop) ? "native cancelled" : "native ran 20 s without a stop") } }
        if let gate, !FakeWait.hold(either: gate, or: stop) {
            log.add("native ended before answering")
            return
        }
        log.add(untilComplete ? "native until complete" : "native until the deadline")
        for (index, event) in events.enumerated() where !onEvent(event) {
            log.add("native stopped after event \(index)")
            return
        }
        log.add("native ran out of events")
    }
}

/// A unicast browser whose n-th browse of a domain answers `rounds[domain][n]` (the last one
/// again after that); a domain without rounds gets no PTR answer.
final class FakeUnicast: WideAreaBrowsing {
    let servers: [DNSServerAddress]
    let serviceType = "_openclaw-gw._tcp"
    let rounds: [String: [[WideAreaService]]]
    let calls: Mutex<[String: Int]>
    let log: Log

    init(servers: [DNSServerAddress], rounds: [String: [[WideAreaService]]], log: Log) {
        self.servers = servers
        self.rounds = rounds
        self.calls = Mutex([:])
        self.log = log
    }

    func browse(domain: String, deadline: Monotonic.Instant,
                onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> WideAreaBrowseResult {
        log.add("browse \(domain) via \(servers.map(\.description).joined(separator: ","))")
        guard let answers = rounds[domain], !answers.isEmpty else {
            throw .timedOut(name: "_openclaw-gw._tcp." + domain)
        }
        let call = calls.withLock { calls in
            defer { calls[domain, default: 0] += 1 }
            return calls[domain, default: 0]
        }
        let services = answers[min(call, answers.count - 1)]
        for service in services where !onFound(service) { break }
        return WideAreaBrowseResult(listed: services.map(\.instance), listTTL: 60)
    }
}

enum Fixture {
    static let serverA = DNSServerAddress.parse("192.0.2.53")!

    /// Fakes for every backend; Avahi and the querier throw unless given.
    static func backends(avahi: (@Sendable () throws -> any AvahiBrowsing)? = nil,
                         native: (@Sendable () throws -> any MDNSBrowsing)? = nil,
                         unicast: [String: [[WideAreaService]]] = [:], magicDNS: [String: [[WideAreaService]]] = [:],
                         tailscaleStatus: String? = nil, clock: ManualClock = ManualClock(), log: Log) -> BrowseBackends {
        BrowseBackends(
            avahi: { _ in guard let avahi else { throw AvahiError.daemonNotRunning }; return try avahi() },
            native: { _ in guard let native else { throw MDNSError.noInterfaces }; return try native() },
            unicast: { servers, _, _, _ in FakeUnicast(servers: servers, rounds: unicast, log: log) },
            magicDNS: { _, _, _ in FakeUnicast(servers: [TailnetFallback.magicDNS], rounds: magicDNS, log: log) },
            tailnetProbe: { _, _ in tailscaleStatus.map { Array($0.utf8) } },
            resolvConf: { [serverA] },
            clock: clock
        )
    }

    static func txt(_ pairs: [String]) -> [UInt8] {
        pairs.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }

    static func instance(_ name: String, interface: UInt32, domain: String = "local.") -> BrowsedInstance {
        BrowsedInstance(name: name, type: "_openclaw-gw._tcp.", domain: domain, interfaceIndex: interface)
    }

    static func resolved(_ name: String, interface: UInt32, port: UInt16 = 18789, addresses: [String],
                         domain: String = "local.") -> AvahiEvent {
        .resolved(ResolvedInstance(instance: instance(name, interface: interface, domain: domain), hostTarget: "studio.local.",
                                   port: port, txtRecord: txt(["displayName=Studio", "gatewayTls=1"]), addresses: addresses))
    }

    static func mdns(_ label: String, port: UInt16 = 18789, addresses: [String] = ["192.0.2.10"]) -> MDNSEvent {
        .resolved(MDNSService(instance: try! DNSName(labels: [label, "_openclaw-gw", "_tcp", "local"]),
                              hostTarget: try! DNSName("studio.local."), port: port,
                              txt: [Array("displayName=\(label)".utf8)], addresses: addresses))
    }

    static func service(_ label: String, domain: String = "openclaw.internal.", port: UInt16 = 18789,
                        displayName: String? = nil, addresses: [String] = ["192.0.2.20"]) -> WideAreaService {
        WideAreaService(instance: try! DNSName(label + "._openclaw-gw._tcp." + domain), domain: domain,
                        srvRecords: [SRVData(port: port, target: try! DNSName("studio." + domain))],
                        txt: [Array("displayName=\(displayName ?? label)".utf8)], addresses: addresses, ttl: 60)
    }
}
