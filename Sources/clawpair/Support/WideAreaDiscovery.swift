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
}

/// Wide-area (unicast) DNS-SD for `discover`: browses each domain in turn and reports sightings
/// with backend `unicast`.
enum WideAreaDiscovery {
    /// Browses every domain of `plan` until `deadline`; `onFound` returns false to stop.
    static func run(_ plan: WideAreaPlan, until deadline: ContinuousClock.Instant,
                    note: @escaping @Sendable (String) -> Void, onFound: (Sighting) -> Bool) {
        let browser = WideAreaBrowser(client: UnicastDNSClient(servers: plan.servers, note: note),
                                      serviceType: BeaconIdentity.serviceType)
        for domain in plan.domains {
            var keepGoing = true
            do {
                let result = try browser.browse(domain: domain, deadline: deadline) { service in
                    let beacon = GatewayBeacon(instance: service.instance, domain: service.domain, srv: service.srv, txt: service.txt)
                    keepGoing = onFound(Sighting(key: service.domain + "|" + beacon.instanceName, beacon: beacon,
                                                 addresses: service.addresses, backend: "unicast"))
                    return keepGoing
                }
                note("wide-area: \(domain) lists \(result.listed.count) instance(s)")
            } catch {
                note("wide-area: \(domain): \(error.message)")
            }
            if !keepGoing || ContinuousClock.now >= deadline { return }
        }
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
    private let deadline: ContinuousClock.Instant
    private let first: Bool
    private let thread = Mutex<pthread_t?>(nil)

    init(plan: WideAreaPlan, deadline: ContinuousClock.Instant, first: Bool) {
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
    private let deadline: ContinuousClock.Instant

    init(backend: DiscoveryBackendChoice, deadline: ContinuousClock.Instant) {
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
