import ClawpairCLIKit
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairWideArea
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Which domains a wide-area browse covers and which servers it asks.
struct WideAreaPlan: Sendable {
    /// Normalized, with a trailing dot, each once (compared ignoring case).
    let domains: [String]
    let servers: [DNSServerAddress]
    /// Tells whether this machine is on a tailnet, for the MagicDNS fallback; nil: no fallback.
    var tailnet: TailnetDetection? = TailnetDetection()
}

/// Wide-area (unicast) DNS-SD for `discover`: browses each domain in turn and reports sightings
/// with backend `unicast`.
enum WideAreaDiscovery {
    /// Browses every domain of `plan` until `deadline`; `onFound` returns false to stop.
    static func run(_ plan: WideAreaPlan, until deadline: Monotonic.Instant,
                    note: @escaping @Sendable (String) -> Void, onFound: (Sighting) -> Bool) {
        let browser = WideAreaBrowser(client: UnicastDNSClient(servers: plan.servers, note: note),
                                      serviceType: BeaconIdentity.serviceType)
        for domain in plan.domains {
            var keepGoing = true
            do {
                let result = try browse(domain, browser, tailnet: plan.tailnet, deadline: deadline, note: note) { service in
                    keepGoing = onFound(sighting(service))
                    return keepGoing
                }
                note("wide-area: \(domain) lists \(result.listed.count) instance(s)")
            } catch {
                note("wide-area: \(domain): \(error.message)")
            }
            if !keepGoing || Monotonic.now >= deadline { return }
        }
    }

    /// Browses `domain` through `browser`'s servers and, when that finds no gateway and this
    /// machine is on a tailnet, through MagicDNS (discovery.md §7, ``TailnetFallback``). The
    /// result is the fallback's when it ran. Throws when the browse that counts got no PTR answer.
    static func browse(_ domain: String, _ browser: WideAreaBrowser, tailnet: TailnetDetection?,
                       deadline: Monotonic.Instant, note: @escaping @Sendable (String) -> Void,
                       onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> WideAreaBrowseResult {
        var found = 0
        let primary: Result<WideAreaBrowseResult, WideAreaError>
        do {
            primary = .success(try browser.browse(domain: domain, deadline: deadline) { service in
                found += 1
                return onFound(service)
            })
        } catch {
            primary = .failure(error)
        }
        if let tailnet, Monotonic.now < deadline,
           TailnetFallback.applies(found: found, servers: browser.client.servers,
                                   onTailnet: { tailnet.address(deadline: deadline) != nil }) {
            note("wide-area: \(domain) found no gateway through the configured DNS servers and this machine is on a "
                 + "tailnet: asking MagicDNS \(TailnetFallback.magicDNS.host)")
            return try TailnetFallback.browser(serviceType: browser.serviceType, note: note)
                .browse(domain: domain, deadline: deadline, onFound: onFound)
        }
        return try primary.get()
    }

    /// The sighting of a browsed instance: key `domain|instance label`, backend `unicast`.
    static func sighting(_ service: WideAreaService) -> Sighting {
        let beacon = GatewayBeacon(instance: service.instance, domain: service.domain, srv: service.srv, txt: service.txt)
        return Sighting(key: key(domain: service.domain, instance: service.instance), beacon: beacon,
                        addresses: service.addresses, backend: "unicast")
    }
}

/// A wide-area browse on its own thread, so that it runs while mDNS does. Sightings and notes
/// are collected under a lock and read after ``join()``.
final class BackgroundWideArea: Sendable {
    private struct State {
        var sightings: [Sighting] = []
        var notes: [String] = []
    }
    private let state = Mutex(State())
    private let stopRequested = Atomic<Bool>(false)
    private let plan: WideAreaPlan
    private let deadline: Monotonic.Instant
    private let first: Bool
    private let thread = Mutex<pthread_t?>(nil)

    init(plan: WideAreaPlan, deadline: Monotonic.Instant, first: Bool) {
        self.plan = plan
        self.deadline = deadline
        self.first = first
    }

    /// Starts the thread; on failure runs the browse on the calling thread instead.
    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            let me = Unmanaged<BackgroundWideArea>.fromOpaque(raw!).takeRetainedValue()
            me.body()
            return nil
        }, context)
        if result == 0 {
            thread.withLock { $0 = handle }
        } else {
            Unmanaged<BackgroundWideArea>.fromOpaque(context).release()
            body()
        }
    }

    private func body() {
        WideAreaDiscovery.run(plan, until: deadline, note: { [self] line in self.state.withLock { $0.notes.append(line) } }) { sighting in
            state.withLock { $0.sightings.append(sighting) }
            return !(first || stopRequested.load(ordering: .relaxed))
        }
    }

    /// Asks the browse to stop after the current question.
    func stop() { stopRequested.store(true, ordering: .relaxed) }

    /// Waits for the thread and returns what it found and noted.
    func join() -> (sightings: [Sighting], notes: [String]) {
        if let handle = thread.withLock({ $0 }) { pthread_join(handle, nil) }
        return state.withLock { ($0.sightings, $0.notes) }
    }
}

extension WideAreaPlan {
    /// The domains to browse: `--domain` values, else the config file's
    /// `discovery.wideArea.domain`, else `OPENCLAW_WIDE_AREA_DOMAIN` (the TS rule). Problems with
    /// the config file become notes, never failures.
    static func domains(given: [String], environment: [String: String], note: (String) -> Void) -> [String] {
        var raw = given
        if raw.isEmpty {
            var configured: String?
            if let path = OpenClawConfig.path(environment: environment) {
                do { configured = try OpenClawConfig.wideAreaDomain(path: path) } catch {
                    note("warning: ignoring \(path): \(error.message)")
                }
            }
            if let domain = WideAreaDomain.resolve(config: configured, environment: environment) { raw = [domain] }
        }
        var domains: [String] = []
        for text in raw {
            guard let domain = WideAreaDomain.normalize(text),
                  !domains.contains(where: { WideAreaDomain.same($0, domain) }) else { continue }
            domains.append(domain)
        }
        return domains
    }
}

/// mDNS on its own thread, for `--first` with wide-area domains: this thread browses the
/// wide-area domains, and whichever finds a gateway first ends the run (the process exits with
/// the mDNS thread still waiting, which is harmless: it holds only sockets the kernel closes).
final class BackgroundLocal: Sendable {
    private struct State {
        var sightings: [Sighting] = []
        var notes: [String] = []
        var error: (any ClawpairError)?
    }
    private let state = Mutex(State())
    private let thread = Mutex<pthread_t?>(nil)
    private let backend: DiscoveryBackendChoice
    private let deadline: Monotonic.Instant

    init(backend: DiscoveryBackendChoice, deadline: Monotonic.Instant) {
        self.backend = backend
        self.deadline = deadline
    }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            Unmanaged<BackgroundLocal>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        if result == 0 {
            thread.withLock { $0 = handle }
        } else {
            Unmanaged<BackgroundLocal>.fromOpaque(context).release()
            body()
        }
    }

    private func body() {
        do {
            _ = try LocalDiscovery.run(backend, until: deadline, note: { line in self.state.withLock { $0.notes.append(line) } }) { event in
                guard case .seen(let sighting) = event else { return true }
                self.state.withLock { $0.sightings.append(sighting) }
                return false
            }
        } catch {
            let wrapped: any ClawpairError = (error as? any ClawpairError) ?? GeneralError(String(describing: error))
            state.withLock { $0.error = wrapped }
        }
    }

    /// Waits for the browse to end (first sighting or deadline) and returns what it saw.
    func join() -> (sightings: [Sighting], notes: [String], error: (any ClawpairError)?) {
        if let handle = thread.withLock({ $0 }) { pthread_join(handle, nil) }
        return state.withLock { ($0.sightings, $0.notes, $0.error) }
    }
}

// MARK: --watch

/// What a wide-area round changed, for `discover --watch`.
typealias WideAreaChange = WideAreaChangeTracker<Sighting>.Change

extension WideAreaDiscovery {
    /// The key of an instance of `domain`, as ``sighting(_:)`` builds it.
    static func key(domain: String, instance: DNSName) -> String {
        domain + "|" + (instance.firstLabel.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }
}

/// `discover --watch` for wide-area domains: browses every domain, reports changes, waits
/// ``WideAreaRefresh/interval(ttl:allFailed:override:)`` and browses again, until the deadline
/// or ``stop()``. Runs on the calling thread (``run(until:)``) or its own (``start(until:)``).
final class WideAreaWatch: Sendable {
    private let plan: WideAreaPlan
    /// The most one round may take.
    private let roundBudget: Duration
    private let refreshOverride: Duration?
    private let note: @Sendable (String) -> Void
    private let report: @Sendable (WideAreaChange) -> Void
    private let stopRequested = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    private let startDeadline = Mutex<Monotonic.Instant?>(nil)

    init(plan: WideAreaPlan, roundBudget: Duration, refreshOverride: Duration?,
         note: @escaping @Sendable (String) -> Void, report: @escaping @Sendable (WideAreaChange) -> Void) {
        self.plan = plan
        self.roundBudget = roundBudget
        self.refreshOverride = refreshOverride
        self.note = note
        self.report = report
    }

    private var stopped: Bool { stopRequested.load(ordering: .relaxed) }

    func run(until deadline: Monotonic.Instant) {
        let browser = WideAreaBrowser(client: UnicastDNSClient(servers: plan.servers, note: note),
                                      serviceType: BeaconIdentity.serviceType)
        var state = WideAreaChangeTracker<Sighting>()
        while !stopped && Monotonic.now < deadline {
            let roundDeadline = min(deadline, Monotonic.now + roundBudget)
            var ttl: UInt32?
            func keep(_ value: UInt32?) { if let value { ttl = min(ttl ?? .max, value) } }
            var answered = 0
            for domain in plan.domains {
                guard !stopped, Monotonic.now < roundDeadline else { break }
                do {
                    let result = try WideAreaDiscovery.browse(domain, browser, tailnet: plan.tailnet, deadline: roundDeadline,
                                                              note: note) { service in
                        keep(service.ttl)
                        let sighting = WideAreaDiscovery.sighting(service)
                        if let change = state.seen(sighting, key: sighting.key, in: service.domain) { report(change) }
                        return !stopped
                    }
                    answered += 1
                    keep(result.listTTL)
                    let keys = Set(result.listed.map { WideAreaDiscovery.key(domain: domain, instance: $0) })
                    state.listed(keys, in: domain).forEach(report)
                } catch {
                    note("wide-area: \(domain): \(error.message)")
                }
            }
            let pause = WideAreaRefresh.interval(ttl: ttl, allFailed: answered == 0, override: refreshOverride)
            note("wide-area: next browse in \(pause)")
            wait(until: min(deadline, Monotonic.now + pause))
        }
    }

    /// Sleeps until `instant`, in short steps so that ``stop()`` is noticed.
    private func wait(until instant: Monotonic.Instant) {
        while !stopped {
            let now = Monotonic.now
            guard now < instant else { return }
            let step = min(instant - now, .milliseconds(100))
            let (seconds, attoseconds) = step.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }

    /// Runs ``run(until:)`` on a new thread (on this one if no thread can be made).
    func start(until deadline: Monotonic.Instant) {
        startDeadline.withLock { $0 = deadline }
        let context = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { raw in
            let me = Unmanaged<WideAreaWatch>.fromOpaque(raw!).takeRetainedValue()
            me.run(until: me.startDeadline.withLock { $0 } ?? .now)
            return nil
        }, context)
        if result == 0 {
            thread.withLock { $0 = handle }
        } else {
            Unmanaged<WideAreaWatch>.fromOpaque(context).release()
            run(until: deadline)
        }
    }

    /// Asks the loop to end after the current question.
    func stop() { stopRequested.store(true, ordering: .relaxed) }

    /// Waits for the thread started by ``start(until:)``.
    func join() {
        if let handle = thread.withLock({ $0 }) { pthread_join(handle, nil) }
    }
}
