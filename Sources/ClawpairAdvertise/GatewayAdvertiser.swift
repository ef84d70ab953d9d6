// The advertiser loop behind `clawpair advertise`: the beacon is registered only while the
// gateway answers its own port (a periodic probe), withdrawn when it stops answering and
// announced again when it returns; the config is re-read at every check (and on request, e.g.
// SIGHUP) and a changed beacon replaces the old one. A name taken on the network or on this
// daemon moves to the name Avahi's rename rule gives (AlternativeName.swift); every rename is an
// event, and after `maxRenames` of them the run ends with an error rather than probing forever.
//
// The loop reads time only from its injected clock and talks to the gateway and avahi-daemon
// only through the two protocols below, so tests drive it with a ManualClock, a fake check and a
// fake registrar.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// What one check of the gateway found.
public struct GatewayHealth: Sendable, Equatable {
    /// The gateway answered (TCP, TLS when on, WebSocket upgrade, connect.challenge).
    public var answering: Bool
    /// The SHA-256 of the certificate it served (TLS only).
    public var fingerprint: String?
    /// Why it did not answer, in one phrase (e.g. `connection refused`).
    public var detail: String?

    /// A health result: whether the gateway answered, its certificate fingerprint, and what was seen.
    public init(answering: Bool, fingerprint: String? = nil, detail: String? = nil) {
        self.answering = answering
        self.fingerprint = fingerprint
        self.detail = detail
    }
}

/// Checks whether the gateway described by the settings answers.
public protocol GatewayHealthCheck {
    /// One check; returns within the check's own timeout.
    func check(_ settings: AdvertiseSettings) -> GatewayHealth
}

/// What the daemon says about one registration.
public enum RegistrationState: Sendable, Equatable {
    /// Waiting for the daemon.
    case pending
    /// Registered under this name.
    case registered(String)
    /// The name is taken (on this daemon, or by another host on the network): the registration
    /// is withdrawn and another name must be tried.
    case conflict
    /// The SRV target host name is taken by another host on the network.
    case hostConflict
    /// The daemon refused it, for this reason.
    case failed(String)
}

/// One service registered with the daemon; withdrawn by ``withdraw()``.
public protocol ServiceRegistration: AnyObject {
    /// The latest state.
    var state: RegistrationState { get }
    /// The host name the SRV record points to (e.g. `box.local`), once known.
    var host: String? { get }
    /// Waits for the daemon's replies until `deadline` (or until `wake`, a descriptor, is
    /// readable, or the state changed) and handles them. Returns false when there is nothing to
    /// wait for (the caller then waits by itself).
    func wait(until deadline: Monotonic.Instant, wake: Int32?) throws(ClawpairErrorBox) -> Bool
    /// Withdraws the service (goodbye packets). Safe to call more than once.
    func withdraw()
}

extension ServiceRegistration {
    /// No host name known.
    public var host: String? { nil }
    /// Nothing to wait for: the advertiser waits by itself.
    public func wait(until deadline: Monotonic.Instant, wake: Int32?) throws(ClawpairErrorBox) -> Bool { false }
}

/// Registers services with the daemon.
public protocol ServiceRegistrar {
    /// Asks the daemon to advertise `plan` as instance `name` of `type` (`name` is `plan.name`
    /// or the name a conflict moved it to).
    func register(name: String, type: String, plan: ServicePlan) throws(ClawpairErrorBox) -> any ServiceRegistration
}

/// A service as it should be advertised: name, port and TXT pairs in order.
public struct ServicePlan: Sendable, Equatable {
    /// The requested instance name.
    public var name: String
    /// The SRV port.
    public var port: Int
    /// TXT pairs in order.
    public var txt: [TXTPair]
    /// The interfaces to advertise on; empty for every interface the daemon uses.
    public var interfaces: [AdvertiseInterface]
    /// The host label the SRV record points to (`label.local`); nil for the daemon's own host name.
    public var hostLabel: String?

    /// A plan to register instance `name` on `port` with these TXT pairs, on `interfaces` (empty:
    /// every one) and host `hostLabel` (nil: the daemon's).
    public init(name: String, port: Int, txt: [TXTPair], interfaces: [AdvertiseInterface] = [], hostLabel: String? = nil) {
        self.name = name
        self.port = port
        self.txt = txt
        self.interfaces = interfaces
        self.hostLabel = hostLabel
    }

    /// The TXT character-strings.
    public var txtStrings: [[UInt8]] { txt.map { Array("\($0.key)=\($0.value)".utf8) } }
}

/// One TXT `key=value` pair.
public struct TXTPair: Sendable, Equatable {
    /// The TXT key.
    public var key: String
    /// The TXT value.
    public var value: String
    /// The pair `key=value`.
    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// What the advertiser did, for the caller to print.
public enum AdvertiserEvent: Sendable, Equatable {
    /// Waiting for the gateway at `url` to answer before advertising.
    case waiting(url: String)
    /// The daemon registered the service as `name` (`plan.name` was asked for) with its SRV
    /// record pointing to `host` (nil: not known).
    case registered(name: String, plan: ServicePlan, host: String?)
    /// The name `from` is taken on the network or on this daemon: the service is registered anew
    /// as `to`. This is rename `count` of at most `limit`.
    case renamed(from: String, to: String, count: Int, limit: Int)
    /// The gateway stopped answering (`detail`): the service `name` was withdrawn.
    case gatewayDown(name: String, detail: String)
    /// The config changed: the service `name` is withdrawn to be announced anew.
    case configChanged(name: String)
    /// The config could not be read again; the last good one stays in use.
    case configUnreadable(message: String)
    /// Stopped on request: the service `name` was withdrawn.
    case withdrawn(name: String)
}

/// How often the advertiser checks, and how patient it is.
public struct AdvertiserSchedule: Sendable, Equatable {
    /// Default ``checkInterval``: 5 s (the gateway's own advertiser watchdog runs every 5 s).
    public static let defaultCheckInterval: Duration = .seconds(5)
    /// Default ``failuresBeforeWithdraw``: 2 (one lost check does not withdraw the beacon).
    public static let defaultFailuresBeforeWithdraw = 2
    /// Default ``maxRenames``: 32.
    public static let defaultMaxRenames = 32

    /// Time between checks of the gateway and of the config.
    public var checkInterval: Duration
    /// Consecutive failed checks after which a registered beacon is withdrawn.
    public var failuresBeforeWithdraw: Int
    /// Most renames after name conflicts before giving up.
    public var maxRenames: Int

    /// A schedule; the defaults are the advertiser's own.
    public init(checkInterval: Duration = AdvertiserSchedule.defaultCheckInterval,
                failuresBeforeWithdraw: Int = AdvertiserSchedule.defaultFailuresBeforeWithdraw,
                maxRenames: Int = AdvertiserSchedule.defaultMaxRenames) {
        self.checkInterval = max(checkInterval, .milliseconds(100))
        self.failuresBeforeWithdraw = max(1, failuresBeforeWithdraw)
        self.maxRenames = max(0, maxRenames)
    }
}

/// Why the advertiser stopped with an error.
public enum AdvertiserError: ClawpairError, Equatable {
    /// Every name tried was taken: the service was renamed ``AdvertiserSchedule/maxRenames``
    /// times and `lastName` was taken too.
    case tooManyConflicts(lastName: String)
    /// The host name the SRV record was to point to is taken by another host.
    case hostNameTaken(String)
    /// The SRV record was to point to a host name of its own, but the interfaces advertised on
    /// have no address to publish for it.
    case noHostAddress(String)
    /// The daemon refused the registration.
    case refused(String)

    /// `name-conflict` when every name was taken, `host-name-taken`, or `error`
    /// (``ClawpairError/code``).
    public var code: String {
        switch self {
        case .tooManyConflicts: return "name-conflict"
        case .hostNameTaken: return "host-name-taken"
        case .noHostAddress, .refused: return "error"
        }
    }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .tooManyConflicts(let name):
            return "every name up to \"\(TerminalText.sanitize(name))\" is taken on this network; gave up renaming"
        case .hostNameTaken(let host): return "the host name \(TerminalText.sanitize(host)) is taken by another machine on this network"
        case .noHostAddress(let host):
            return "no address to publish for \(TerminalText.sanitize(host)): the interfaces advertised on have none"
        case .refused(let reason): return reason
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .tooManyConflicts: return "choose another instance name, or find the host that claims every name"
        case .hostNameTaken: return "choose another host name"
        case .noHostAddress: return "bring the interface up with an address, or advertise under the daemon's own host name"
        case .refused: return "check avahi-daemon's log (journalctl -u avahi-daemon)"
        }
    }
}

/// Keeps a gateway beacon advertised while the gateway answers. Confined to the calling thread.
public final class GatewayAdvertiser {
    /// The service type registered.
    public let serviceType: String
    private let load: () throws(ClawpairErrorBox) -> AdvertiseSettings
    private let compose: (AdvertiseSettings, GatewayHealth) throws(ClawpairErrorBox) -> ServicePlan
    private let healthCheck: (any GatewayHealthCheck)?
    private let registrar: any ServiceRegistrar
    private let clock: any MonotonicClock
    private let schedule: AdvertiserSchedule
    private let emit: (AdvertiserEvent) -> Void

    private var settings: AdvertiseSettings
    private var health: GatewayHealth
    private var failures = 0
    private var registration: (any ServiceRegistration)?
    private var plan: ServicePlan?
    private var attemptName = ""
    private var renames = 0
    private var announced: String?
    /// The SRV target ``announced`` was reported with (the daemon may rename its own host).
    private var announcedHost: String?
    private var configError: String?
    /// While ``run(stopping:reload:)`` runs: the pipe its stop signal wakes the wait through.
    private var wake: WakePipe?

    /// An advertiser for the settings `load` returns (called now, then at every check;
    /// a failure after the first keeps the last good settings). `compose` turns settings and
    /// the latest check into the service to advertise. Without `healthCheck` the gateway is
    /// taken to be answering (advertise unconditionally).
    public init(serviceType: String, load: @escaping () throws(ClawpairErrorBox) -> AdvertiseSettings,
                compose: @escaping (AdvertiseSettings, GatewayHealth) throws(ClawpairErrorBox) -> ServicePlan,
                healthCheck: (any GatewayHealthCheck)?, registrar: any ServiceRegistrar,
                clock: any MonotonicClock = SystemMonotonicClock(), schedule: AdvertiserSchedule = AdvertiserSchedule(),
                events: @escaping (AdvertiserEvent) -> Void) throws(ClawpairErrorBox) {
        self.serviceType = serviceType
        self.load = load
        self.compose = compose
        self.healthCheck = healthCheck
        self.registrar = registrar
        self.clock = clock
        self.schedule = schedule
        self.emit = events
        settings = try load()
        health = GatewayHealth(answering: healthCheck == nil)
    }

    deinit { registration?.withdraw() }

    /// Runs until `stop()` is true (asked at least every 100 ms), then withdraws the beacon.
    /// `reload()` true re-reads the config at once (e.g. after SIGHUP). Throws when the daemon
    /// refuses the registration or cannot be reached.
    /// `stop()` may report a request once only (a signal taken from the queue): its first true
    /// is remembered.
    public func run(stop: () -> Bool, reload: () -> Bool = { false }) throws(ClawpairErrorBox) {
        var stopping = false
        func stopRequested() -> Bool {
            if !stopping { stopping = stop() }
            return stopping
        }
        var nextCheck = clock.now
        if healthCheck != nil { emit(.waiting(url: Self.url(settings))) }
        while true {
            if stopRequested() {
                if let name = withdraw() { emit(.withdrawn(name: name)) }
                return
            }
            var reloadNow = reload()
            if clock.now >= nextCheck {
                reloadNow = true
                check()
                nextCheck = clock.now + schedule.checkInterval
            }
            if reloadNow { try reloadSettings() }
            try reconcile()
            try wait(until: min(nextCheck, clock.now + .milliseconds(100)), stop: stopRequested)
            try handleState()
        }
    }

    /// ``run(stop:reload:)`` until `signal` is raised, from any thread or task: the raise wakes
    /// the wait at once, the beacon is withdrawn and the call returns within milliseconds.
    public func run(stopping signal: StopSignal, reload: () -> Bool = { false }) throws(ClawpairErrorBox) {
        let pipe = WakePipe()
        wake = pipe
        let handler = signal.onStop { pipe?.wake() }
        defer {
            signal.removeHandler(handler)
            wake = nil
        }
        try run(stop: { signal.isStopped }, reload: reload)
    }

    private func check() {
        guard let healthCheck else { return }
        let result = healthCheck.check(settings)
        if result.answering {
            failures = 0
            health = result
        } else {
            failures += 1
            if registration == nil || failures >= schedule.failuresBeforeWithdraw { health = result }
        }
    }

    private func reloadSettings() throws(ClawpairErrorBox) {
        do {
            let fresh = try load()
            configError = nil
            guard fresh != settings else { return }
            settings = fresh
            if let name = withdraw() { emit(.configChanged(name: name)) }
            if healthCheck != nil {
                // A new port or TLS setting: ask the gateway again before advertising.
                health = GatewayHealth(answering: false)
                failures = 0
                check()
            }
        } catch {
            if configError != error.message {
                configError = error.message
                emit(.configUnreadable(message: error.message))
            }
        }
    }

    private func reconcile() throws(ClawpairErrorBox) {
        guard health.answering else {
            if let name = withdraw() { emit(.gatewayDown(name: name, detail: health.detail ?? "no answer")) }
            return
        }
        let wanted = try compose(settings, health)
        if wanted == plan, registration != nil { return }
        if plan != nil, let name = withdraw() { emit(.configChanged(name: name)) }
        plan = wanted
        attemptName = wanted.name
        renames = 0
        try register()
    }

    private func register() throws(ClawpairErrorBox) {
        guard let plan else { return }
        registration = try registrar.register(name: attemptName, type: serviceType, plan: plan)
    }

    private func wait(until deadline: Monotonic.Instant, stop: () -> Bool) throws(ClawpairErrorBox) {
        if let registration, try registration.wait(until: deadline, wake: wake?.readEnd) {
            return
        } else if let wake {
            var descriptors = [PollDescriptor(wake.readEnd, .readable)]
            do { try Poll.wait(&descriptors, until: deadline, clock: clock) } catch { throw ClawpairErrorBox(error) }
        } else {
            clock.sleep(until: deadline, unless: stop)
        }
    }

    private func handleState() throws(ClawpairErrorBox) {
        guard let registration, let plan else { return }
        switch registration.state {
        case .pending:
            return
        case .registered(let name):
            let host = registration.host
            guard name != announced || host != announcedHost else { return }
            announced = name
            announcedHost = host
            emit(.registered(name: name, plan: plan, host: registration.host))
        case .conflict:
            registration.withdraw()
            self.registration = nil
            announced = nil
            renames += 1
            guard renames <= schedule.maxRenames else { throw ClawpairErrorBox(AdvertiserError.tooManyConflicts(lastName: attemptName)) }
            let taken = attemptName
            attemptName = AlternativeServiceName.next(after: attemptName)
            emit(.renamed(from: taken, to: attemptName, count: renames, limit: schedule.maxRenames))
            try register()
        case .hostConflict:
            registration.withdraw()
            self.registration = nil
            throw ClawpairErrorBox(AdvertiserError.hostNameTaken(plan.hostLabel.map { "\($0).local" } ?? "of this machine"))
        case .failed(let reason):
            throw ClawpairErrorBox(AdvertiserError.refused(reason))
        }
    }

    /// Withdraws the current registration; returns the name it was announced under, if it was.
    private func withdraw() -> String? {
        registration?.withdraw()
        registration = nil
        plan = nil
        defer {
            announced = nil
            announcedHost = nil
        }
        return announced
    }

    /// The URL the health check dials.
    public static func url(_ settings: AdvertiseSettings) -> String {
        let host = settings.probeHost.contains(":") ? "[\(settings.probeHost)]" : settings.probeHost
        return "\(settings.tls ? "wss" : "ws")://\(host):\(settings.port)"
    }
}

/// A pipe a stop signal's handler writes one byte to, to wake the advertiser's poll. Closed when
/// the last holder (the run, or a handler still running on another thread) lets go.
private final class WakePipe: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    /// Nil when no pipe can be made (the run then waits in 100 ms slices, as without a signal).
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes the read end readable (a full pipe already is).
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}
