// The probe driver: one event loop, one `ProbeRace`, one `ProbeAttempt` per started route,
// a deadline for the whole run. Single-threaded apart from the resolver's lookups.

import ClawpairCore
import ClawpairTransport

/// How a probe run behaves. Every limit has a documented default.
public struct ProbeConfiguration: Sendable {
    /// Default `stagger`: 250 ms between route starts (RFC 8305's connection attempt delay).
    public static let defaultStagger: Duration = .milliseconds(250)
    /// Default `timeout`: 5 s for the whole run.
    public static let defaultTimeout: Duration = .milliseconds(5000)

    /// Delay between the starts of consecutive routes.
    public var stagger: Duration
    /// The limit for the whole run; whatever is still running then fails with `timeout`.
    public var timeout: Duration
    /// First to pass, or fastest of all.
    public var mode: ProbeRace.Mode
    /// Dial `ws://` routes even to hosts the plaintext policy refuses.
    public var allowInsecure: Bool
    /// Happy Eyeballs timing inside each route (50 ms resolution delay, 250 ms attempt delay).
    public var happyEyeballs: HappyEyeballsConfiguration
    /// The `User-Agent` of the upgrade request.
    public var userAgent: String
    /// An `Origin` header for the upgrade request, if any (gateways do not require one).
    public var origin: String?
    /// Whether a route passes at the WebSocket upgrade (101) without waiting for the gateway's
    /// `connect.challenge`: a lighter liveness check of a port already known to be a gateway's.
    /// False by default, where only the challenge proves the peer is an OpenClaw gateway.
    public var passesAtUpgrade = false

    /// A configuration; the defaults are the probe's own.
    public init(stagger: Duration = ProbeConfiguration.defaultStagger, timeout: Duration = ProbeConfiguration.defaultTimeout,
                mode: ProbeRace.Mode = .first, allowInsecure: Bool = false,
                happyEyeballs: HappyEyeballsConfiguration = HappyEyeballsConfiguration(),
                userAgent: String = "clawpair/\(ClawpairVersion.current)", origin: String? = nil) {
        self.stagger = stagger
        self.timeout = timeout
        self.mode = mode
        self.allowInsecure = allowInsecure
        self.happyEyeballs = happyEyeballs
        self.userAgent = userAgent
        self.origin = origin
    }
}

/// The outcome of a run.
public struct ProbeReport: Sendable, Equatable {
    /// One result per route, in route order.
    public var results: [ProbeResult]
    /// The index of the winning route, if any passed.
    public var winner: Int?
    /// From the start to the decision.
    public var elapsed: Duration
    /// Whether the run ended because the time limit passed.
    public var timedOut: Bool

    /// A report of `results` (for a stand-in prober, such as a pairing test's).
    public init(results: [ProbeResult], winner: Int?, elapsed: Duration, timedOut: Bool) {
        self.results = results
        self.winner = winner
        self.elapsed = elapsed
        self.timedOut = timedOut
    }

    /// The winning route's result.
    public var winningResult: ProbeResult? { winner.map { results[$0] } }

    /// Whether some route failed TLS trust (an untrusted certificate or a pin mismatch): a
    /// refusal rather than an unreachable gateway when no route passed.
    public var hasTrustFailure: Bool {
        results.contains { $0.failure?.isTrustFailure == true }
    }
}

/// Runs the race.
public enum Prober {
    /// Probes `routes` (in candidate order) and returns when a winner is decided, every route
    /// has failed, or `configuration.timeout` has passed. Throws when the event loop cannot be
    /// set up, and ``TransportError/cancelled`` soon after `stop` is raised (from any thread).
    public static func run(routes: [ProbeRoute], configuration: ProbeConfiguration = ProbeConfiguration(),
                           resolver: any HostResolver = SystemResolver(),
                           clock: any MonotonicClock = SystemMonotonicClock(),
                           stop: StopSignal? = nil) throws(TransportError) -> ProbeReport {
        try stop?.check(or: TransportError.cancelled)
        let driver = try Driver(routes: routes, configuration: configuration, resolver: resolver, clock: clock)
        if let stop { driver.loop.stop(on: stop) }
        return try driver.run()
    }
}

/// Carries out the race's actions. Lives on the calling thread for one run.
private final class Driver {
    let loop: EventLoop
    let routes: [ProbeRoute]
    let configuration: ProbeConfiguration
    let resolver: any HostResolver
    var race: ProbeRace
    var results: [ProbeResult]
    var attempts: [Int: ProbeAttempt] = [:]
    var timer: EventLoop.Timer?
    var pending: [ProbeRace.Input] = []
    var processing = false
    var winner: Int??
    var timedOut = false
    var runStart = Monotonic.Instant(nanoseconds: 0)
    var finishedAt: Monotonic.Instant?
    var contexts: [TLSContext.TrustRoots: TLSContext] = [:]

    init(routes: [ProbeRoute], configuration: ProbeConfiguration, resolver: any HostResolver,
         clock: any MonotonicClock) throws(TransportError) {
        self.loop = try EventLoop(clock: clock)
        self.routes = routes
        self.configuration = configuration
        self.resolver = resolver
        self.race = ProbeRace(count: routes.count, stagger: configuration.stagger, mode: configuration.mode)
        self.results = routes.enumerated().map { ProbeResult(route: $1, index: $0) }
    }

    func run() throws(TransportError) -> ProbeReport {
        runStart = loop.clock.now
        let deadline = runStart.advanced(by: configuration.timeout)
        loop.schedule(at: deadline) { [weak self] in
            self?.timedOut = true
            self?.feed(.deadline)
        }
        feed(.start)
        // The deadline timer ends the race; the loop's own limit is only a backstop.
        try loop.run(until: deadline.advanced(by: .milliseconds(500)), while: { winner == nil })
        if loop.isStopped, winner == nil {
            // Stopped from outside: end every attempt, report no race.
            timedOut = false
            feed(.deadline)
            throw .cancelled
        }
        if winner == nil {
            timedOut = true
            feed(.deadline)
        }
        for index in results.indices where results[index].phase == .queued && results[index].failure == nil {
            if results[index].route.plaintextRefused && !configuration.allowInsecure {
                results[index].failure = .needsTLS
            } else {
                results[index].failure = timedOut ? .timeout(.queued) : .cancelled(.queued)
            }
        }
        let end = finishedAt ?? loop.clock.now
        return ProbeReport(results: results, winner: winner ?? nil, elapsed: end - runStart, timedOut: timedOut)
    }

    /// One context per trust store, made on first use: pinned routes need no root store, so
    /// they never pay for loading one.
    func tlsContext(_ roots: TLSContext.TrustRoots) throws(TLSError) -> TLSContext {
        if let context = contexts[roots] { return context }
        let made = try TLSContext(minimumVersion: .tls12, trustRoots: roots)
        contexts[roots] = made
        return made
    }

    func feed(_ input: ProbeRace.Input) {
        pending.append(input)
        guard !processing else { return }
        processing = true
        while !pending.isEmpty {
            let next = pending.removeFirst()
            for action in race.handle(next, now: loop.clock.now) { perform(action, cause: next) }
        }
        processing = false
    }

    func perform(_ action: ProbeRace.Action, cause: ProbeRace.Input) {
        switch action {
        case .startCandidate(let index):
            let attempt = ProbeAttempt(loop: loop, route: routes[index], index: index, runStart: runStart,
                                       configuration: configuration, resolver: resolver,
                                       tlsContext: { [unowned self] (roots) throws(TLSError) -> TLSContext in try self.tlsContext(roots) },
                                       completion: { [weak self] result in self?.attemptFinished(result) })
            attempts[index] = attempt
            attempt.start()
            results[index] = attempt.result
        case .cancelCandidate(let index):
            guard let attempt = attempts.removeValue(forKey: index) else { return }
            let timeout = cause == .deadline
            results[index] = attempt.stop { phase in timeout ? .timeout(phase) : .cancelled(phase) }
        case .setTimer(let instant):
            if let timer { loop.cancel(timer) }
            timer = loop.schedule(at: instant) { [weak self] in
                self?.timer = nil
                self?.feed(.timerFired)
            }
        case .cancelTimer:
            if let timer { loop.cancel(timer) }
            timer = nil
        case .settleAfterThisRound:
            // Timers due now run at the start of the next round, after this round's events.
            loop.schedule(at: loop.clock.now) { [weak self] in self?.feed(.settle) }
        case .finish(let index):
            finishedAt = loop.clock.now
            if let timer { loop.cancel(timer) }
            timer = nil
            winner = .some(index)
        }
    }

    func attemptFinished(_ result: ProbeResult) {
        attempts[result.index] = nil
        results[result.index] = result
        if result.reachable {
            feed(.succeeded(result.index, latency: result.timings.total ?? .zero))
        } else {
            feed(.failed(result.index))
        }
    }
}
