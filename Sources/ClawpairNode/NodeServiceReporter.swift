// What a running node tells the world about its state, apart from its log: the status file that
// another process reads (a status command) and the service manager's STATUS= line, both
// rewritten only when the state changes (connecting, connected via a route, waiting for
// approval, disconnected, searching, then stopped or exited), and the watchdog, fed at the pace
// the service manager asked for.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairGateway
import Synchronization

/// Follows a ``NodeRunner``'s events and publishes the node's state: ``NodeStatusFile`` and the
/// service manager's status on each change of state or route, watchdog pings through
/// ``heartbeat()`` at most once per watchdog interval. Safe from any thread.
public final class NodeServiceReporter: Sendable {
    /// The registry id of the gateway the node serves.
    public let gatewayId: String
    /// The gateway's name, as the status says it.
    public let gatewayName: String

    private let statusFile: NodeStatusFile?
    private let sendStatus: @Sendable (String) -> Void
    private let sendWatchdog: @Sendable () -> Void
    private let watchdogInterval: Duration?
    private let clock: any MonotonicClock
    private let wallClockMs: @Sendable () -> Int64
    private let pid: Int32
    private let state = Mutex<(name: String, url: String?, lastError: String?, lastPing: Monotonic.Instant?)>(("starting", nil, nil, nil))

    /// A reporter for a node serving `gatewayId` (`gatewayName`), writing `statusFile` (nil:
    /// none) and telling `notifier` (its status, and its watchdog when it asks for one).
    public convenience init(gatewayId: String, gatewayName: String, statusFile: NodeStatusFile?,
                            notifier: ServiceManagerNotifier = ServiceManagerNotifier(),
                            clock: any MonotonicClock = SystemMonotonicClock()) {
        self.init(gatewayId: gatewayId, gatewayName: gatewayName, statusFile: statusFile, sendStatus: { notifier.status($0) },
                  sendWatchdog: { notifier.watchdog() }, watchdogInterval: notifier.watchdogInterval, clock: clock,
                  wallClockMs: { WallClock.nowMs() }, pid: getpid())
    }

    /// The designated initializer; tests hand in the service manager's side and the clocks.
    init(gatewayId: String, gatewayName: String, statusFile: NodeStatusFile?, sendStatus: @escaping @Sendable (String) -> Void,
         sendWatchdog: @escaping @Sendable () -> Void, watchdogInterval: Duration?, clock: any MonotonicClock,
         wallClockMs: @escaping @Sendable () -> Int64, pid: Int32) {
        self.gatewayId = gatewayId
        self.gatewayName = gatewayName
        self.statusFile = statusFile
        self.sendStatus = sendStatus
        self.sendWatchdog = sendWatchdog
        self.watchdogInterval = watchdogInterval
        self.clock = clock
        self.wallClockMs = wallClockMs
        self.pid = pid
    }

    /// The state now (`starting` before the first event).
    public var stateName: String { state.withLock { $0.name } }

    /// The latest error recorded, in one line.
    public var lastError: String? { state.withLock { $0.lastError } }

    /// Moves to the state `name` (over `url` when connected), remembering `error` as the last
    /// one; publishes it when the state or the route changed. True when it did.
    @discardableResult
    public func transition(_ name: String, url: String? = nil, error: String? = nil) -> Bool {
        let (changed, lastError) = state.withLock { state -> (Bool, String?) in
            let changed = state.name != name || state.url != url
            state.name = name
            state.url = url
            if let error { state.lastError = error }
            return (changed, state.lastError)
        }
        guard changed else { return false }
        statusFile?.write(NodeStatusRecord(pid: pid, state: name, gatewayId: gatewayId, gatewayName: gatewayName, url: url,
                                           sinceMs: wallClockMs(), lastError: lastError))
        sendStatus("\(name) \(gatewayName)" + (url.map { " via \($0)" } ?? ""))
        return true
    }

    /// The state a runner event moves the node to, published (events that change no state
    /// publish nothing).
    public func record(_ event: NodeRunnerEvent) {
        switch event {
        case .connecting: transition("connecting")
        case .connected(let url, _): transition("connected", url: url)
        case .awaitingApproval: transition("waiting-approval")
        case .disconnected(let error, _): transition("disconnected", error: error.message)
        case .searching: transition("searching")
        case .certificateChanged, .pinReloaded, .beaconSeen, .relocated, .commandsAwaitingApproval, .commandsApproved, .host: break
        }
    }

    /// The last state, for how the runner ended: `stopped`, or `exited` with why.
    public func finish(_ end: NodeRunnerEnd) {
        switch end {
        case .stopped: transition("stopped")
        case .tokenRevoked: transition("exited", error: "the gateway no longer accepts the node token")
        case .failed(let error): transition("exited", error: error.message)
        }
    }

    /// Feeds the service manager's watchdog when it asked for one and its interval has passed
    /// since the last ping; cheap enough to call on every turn of a loop
    /// (``NodeRunnerOptions/heartbeat``).
    public func heartbeat() {
        guard let watchdogInterval else { return }
        let now = clock.now
        let due = state.withLock { state -> Bool in
            if let last = state.lastPing, now - last < watchdogInterval { return false }
            state.lastPing = now
            return true
        }
        if due { sendWatchdog() }
    }
}
