// A lasting session to a paired gateway (a registry entry), as a node or an operator:
//
//   routes (the record's URLs, raced when there are several) → the record's TLS pin → a
//   `connect` signed (v3) with this machine's identity and the device token stored for the role
//   → hello-ok (a re-issued device token is stored under the registry lock) → typed calls in
//   both directions and the gateway's events, pings answered by the WebSocket layer, the tick
//   watch (2x tickIntervalMs of silence closes with 4000) → when the connection ends, the
//   ``ReconnectPolicy`` says when to try again (at once after a 1012 close).
//
// Around each attempt: the registry's copy of the entry is re-read (a pin or routes stored
// meanwhile count at once); the protocol range follows ``GatewayProtocolNegotiation`` (a node
// offers 4…4, then 3…3 at once on PROTOCOL_MISMATCH with expectedProtocol 3, and back to 4
// with a 1012 close when a legacy hello reports more; such a step belongs to the attempt and
// is no ``GatewaySessionEvent/disconnected(_:retryIn:)``); a refused device token
// (AUTH_DEVICE_TOKEN_MISMATCH, a 1008 "device token mismatch" close) is removed from the
// registry under its lock and ends the session with ``GatewayError/deviceTokenRevoked(role:detail:)``;
// the other refusals that need someone to act end it with their own error.
//
// Threads: the session runs on one thread (its own after ``GatewaySession/start(onEvent:)``,
// the caller's in ``GatewaySession/run(onEvent:)``), where its connection's event loop polls.
// Other threads and tasks hand it calls through a queue that wakes that loop; answers come back
// through completion handlers run on the session thread (the blocking and `async` calls wait for
// those). ``GatewaySession/stop()`` (or cancelling the task of the `async` run) ends it within
// milliseconds: the loop is woken through its mailbox pipe, the connection closes with
// ``GatewaySessionOptions/stopCloseCode`` (1001 unless set).
//
// Upstream: `src/gateway/client.ts` and the node host's `src/node-host/connection.ts`
// (shared/spec/upstream-2026-10.md §2.3, §4).

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairTransport
import Synchronization

/// What a ``GatewaySession`` connects as, and how it behaves.
public struct GatewaySessionOptions: Sendable {
    /// The role to connect as; the device token stored for it is used.
    public var role: GatewayRole
    /// The `connect` request's client block; nil: `node-host`/`node` for a node, `cli`/`cli`
    /// for an operator, with this host's name (or the record's device name).
    public var client: GatewayClientInfo?
    /// Scopes to ask for; nil: the stored token's scopes for an operator, none for a node.
    public var scopes: [String]?
    /// A node's capabilities (`connect.caps`); upstream's node host sends `device-pairing-wait`
    /// among others.
    public var caps: [String]
    /// A node's commands (`connect.commands`), such as `system.notify`.
    public var commands: [String]
    /// A node's permissions (`connect.permissions`), name and whether granted.
    public var permissions: [(String, Bool)]
    /// The certificate fingerprint `wss://` routes must present; nil: the record's pin.
    public var pin: String?
    /// How long one attempt may take (routes, TLS, upgrade, challenge, connect).
    public var connectTimeout: Duration
    /// When to reconnect and when the gateway counts as silent.
    public var reconnect: ReconnectPolicy
    /// Settings of each connection.
    public var connection: GatewayClientConfiguration
    /// The signature payload (v3, as upstream's clients sign).
    public var payloadVersion: ConnectPayloadVersion
    /// Which protocol versions `connect` offers, and the fallback; nil: upstream's node host
    /// negotiation for a node (``GatewayProtocolNegotiation/newestThenLegacy``), every version
    /// at once for an operator (``GatewayProtocolNegotiation/wholeRange``).
    public var negotiation: GatewayProtocolNegotiation?
    /// The close code sent when the session is stopped while connected: 1001 ("going away"), or
    /// 1000 for a program that ends normally (a node's service stop).
    public var stopCloseCode: UInt16
    /// The credential to send instead of the device token stored for the role (a shared token,
    /// a password, a device token from elsewhere); nil: the stored token. With one, the session
    /// needs no stored token and never clears one.
    public var credential: ConnectAuth?

    /// Options for a session as `role`.
    public init(role: GatewayRole, client: GatewayClientInfo? = nil, scopes: [String]? = nil, caps: [String] = [],
                commands: [String] = [], permissions: [(String, Bool)] = [], pin: String? = nil,
                connectTimeout: Duration = .seconds(10), reconnect: ReconnectPolicy = ReconnectPolicy(),
                connection: GatewayClientConfiguration = GatewayClientConfiguration(),
                payloadVersion: ConnectPayloadVersion = .v3, negotiation: GatewayProtocolNegotiation? = nil,
                stopCloseCode: UInt16 = 1001, credential: ConnectAuth? = nil) {
        self.role = role
        self.client = client
        self.scopes = scopes
        self.caps = caps
        self.commands = commands
        self.permissions = permissions
        self.pin = pin
        self.connectTimeout = connectTimeout
        self.reconnect = reconnect
        self.connection = connection
        self.payloadVersion = payloadVersion
        self.negotiation = negotiation
        self.stopCloseCode = stopCloseCode
        self.credential = credential
    }

    /// The negotiation in force: ``negotiation``, or the role's default.
    public var effectiveNegotiation: GatewayProtocolNegotiation {
        negotiation ?? (role == .node ? .newestThenLegacy : .wholeRange)
    }
}

/// Which protocol versions a session offers in `connect`, and how it falls back to an older
/// gateway (`upstream-2026-10.md` §2.3, §4.1: upstream's node host offers 4…4 first; on
/// `PROTOCOL_MISMATCH` with `details.expectedProtocol` 3 it offers 3…3 at once, and when such a
/// legacy connection's hello-ok reports a newer protocol it closes with 1012 "gateway protocol
/// upgraded" and connects again on the preferred range).
///
/// A legacy offer lasts across failed attempts; once a legacy connection ends, the next attempt
/// offers the preferred range again (a gateway upgraded while it restarted answers it).
///
/// The legacy offer differs from the preferred one in its protocol range only: clawpair sends
/// none of the newer connect fields upstream leaves out of its legacy envelope (`computerUse`,
/// `workerRuns`), and it keeps the client block (platform `linux`, deviceFamily `Linux`) that its
/// pairing stored, since gateways compare it with the paired record on every connect.
public struct GatewayProtocolNegotiation: Sendable, Equatable {
    /// The range offered first, and again after a legacy gateway upgraded.
    public var preferred: ClosedRange<Int64>
    /// The range offered at once when the gateway refuses the preferred one with
    /// `PROTOCOL_MISMATCH` and a `details.expectedProtocol` inside it; nil: no fallback (the
    /// refusal ends the session).
    public var legacy: ClosedRange<Int64>?

    /// Offers `preferred`, falling back to `legacy`.
    public init(preferred: ClosedRange<Int64>, legacy: ClosedRange<Int64>? = nil) {
        self.preferred = preferred
        self.legacy = legacy
    }

    /// Every version clawpair speaks (3…4) in one offer, no fallback: what operator
    /// connections send.
    public static let wholeRange = GatewayProtocolNegotiation(preferred: ConnectRequest.protocolRange)
    /// Upstream's node host: 4…4, then 3…3 on `PROTOCOL_MISMATCH` with `expectedProtocol` 3.
    public static let newestThenLegacy = GatewayProtocolNegotiation(preferred: 4...4, legacy: 3...3)

    /// Which range to offer after `error` refused `offered` (the other range), or nil when
    /// neither helps: the gateway's `details.expectedProtocol` lies inside the other range.
    public func fallback(after error: GatewayError, offered: ClosedRange<Int64>) -> ClosedRange<Int64>? {
        guard case .protocolMismatch(let shape) = error, let legacy,
              let expected = shape.details?["expectedProtocol"]?.int64Value else { return nil }
        let other = offered == legacy ? preferred : legacy
        return other.contains(expected) && !offered.contains(expected) ? other : nil
    }
}

/// What a ``GatewaySession`` reports, in order, on its own thread.
public enum GatewaySessionEvent: Sendable {
    /// An attempt starts (`attempt` counts from 1 since the last hello-ok) over these routes.
    case connecting(attempt: Int, urls: [String])
    /// hello-ok from `url`.
    case connected(url: String, hello: HelloOK)
    /// The gateway issued a new device token for the role, and the registry now holds it.
    case tokenStored(role: String)
    /// An event from the gateway (`node.invoke.request`, `device.pair.requested`, …; not `tick`).
    case event(GatewayEvent)
    /// The connection or attempt ended with `error`; the next attempt follows after `retryIn`,
    /// or never (nil: the error needs someone to act, or the policy gave up).
    case disconnected(GatewayError, retryIn: Duration?)
    /// The session ended: stopped (nil), or for good with this error. Always the last event.
    case ended(GatewayError?)
}

/// A session to a paired gateway that lives until stopped: connects, reconnects by its
/// ``ReconnectPolicy``, and carries calls and events. Safe to use from any thread or task.
///
/// ```swift
/// let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
///                                  options: GatewaySessionOptions(role: .node, commands: ["system.notify"]))
/// let events = session.events()
/// session.start()
/// for try await event in events {
///     if case .event(let e) = event, e.name == "node.invoke.request" { /* reply with session.call */ }
/// }
/// ```
public final class GatewaySession: Sendable {
    /// The registry entry's id.
    public let gatewayID: String
    /// The options it was made with.
    public let options: GatewaySessionOptions
    /// Raised by ``stop()``: the session and every call waiting on it end.
    public let stopSignal = StopSignal()

    private let recordState: Mutex<PairedGateway>
    private let registry: GatewayRegistry?
    private let identity: IdentityBox
    private let clock: any MonotonicClock
    private let wallClockMs: @Sendable () -> Int64
    private let draw: @Sendable () -> Double
    private let resolver: any HostResolver
    private let connector: (any GatewaySessionConnector)?
    private let registryWrites: RegistryWrites
    private let shared = Mutex(Shared())
    /// The credential and scopes the next `connect` sends: the options', until the one retry
    /// with the stored device token (``deviceTokenRetry(after:urls:)``) replaces them.
    private let credentialState: Mutex<(auth: ConnectAuth?, scopes: [String]?, retried: Bool)>

    /// What the session writes to its registry.
    enum RegistryWrites: Sendable {
        /// Each answer (last seen, the URL that answered first), a re-issued token, a refused
        /// token cleared; routes and pin re-read before each attempt.
        case answers
        /// The last-seen time of each answer only, as an operator connection records it; the
        /// session's own routes are kept.
        case lastSeen
    }
    private let subscribers = Mutex<(next: Int, byID: [Int: @Sendable (GatewaySessionEvent) -> Void])>((0, [:]))

    /// What other threads hand the session thread, and what it publishes.
    private struct Shared {
        var calls: [PendingCall] = []
        var reconnectRequested = false
        var routes: [String]? = nil
        /// Raised to abandon the attempt under way (before hello-ok): by ``reconnectNow()`` and
        /// by the stop. Nil while connected and between attempts.
        var attempt: StopSignal?
        /// Wakes the connection's thread for queued calls or a requested reconnect: the
        /// network connection's mailbox, or a scripted link's own (``onWake(_:)``).
        var wake: (@Sendable () -> Void)?
        var hello: HelloOK?
        var url: String?
        var started = false
        /// Set when the session ended: calls fail at once with this.
        var ended: GatewayError?
        var thread: pthread_t?
    }

    fileprivate struct PendingCall: @unchecked Sendable {
        var method: String
        var params: JSONValue?
        var timeout: Duration
        var completion: @Sendable (Result<JSONValue, GatewayError>) -> Void
    }

    /// A session to `gateway` (a registry entry) signed by `identity`. With `registry`, a
    /// device token the gateway re-issues is stored there (under its lock); without, it is used
    /// for this session's reconnects only. Throws ``GatewayError/authRejected(_:)`` with
    /// `AUTH_TOKEN_MISSING` when no token is stored for the role and this identity.
    public convenience init(gateway: PairedGateway, registry: GatewayRegistry?, identity: DeviceIdentity,
                            options: GatewaySessionOptions, clock: any MonotonicClock = SystemMonotonicClock(),
                            resolver: any HostResolver = SystemResolver(),
                            wallClockMs: @escaping @Sendable () -> Int64 = { WallClock.nowMs() },
                            jitterDraw: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) throws(GatewayError) {
        try self.init(gateway: gateway, registry: registry, identity: identity, options: options, clock: clock, resolver: resolver,
                      wallClockMs: wallClockMs, jitterDraw: jitterDraw, connector: nil)
    }

    /// The designated initializer; `connector` replaces the network (tests script the gateway).
    init(gateway: PairedGateway, registry: GatewayRegistry?, identity: DeviceIdentity,
         options: GatewaySessionOptions, clock: any MonotonicClock, resolver: any HostResolver,
         wallClockMs: @escaping @Sendable () -> Int64, jitterDraw: @escaping @Sendable () -> Double,
         connector: (any GatewaySessionConnector)?, registryWrites: RegistryWrites = .answers) throws(GatewayError) {
        guard options.credential != nil || gateway.token(for: options.role.rawValue, deviceId: identity.deviceId) != nil else {
            throw .authRejected(GatewayErrorShape(code: "AUTH_TOKEN_MISSING",
                                                  message: "no device token for role \(options.role.rawValue) is stored for this device: pair first"))
        }
        gatewayID = gateway.id
        self.options = options
        recordState = Mutex(gateway)
        self.registry = registry
        self.identity = IdentityBox(identity)
        self.clock = clock
        self.resolver = resolver
        self.wallClockMs = wallClockMs
        draw = jitterDraw
        self.connector = connector
        self.registryWrites = registryWrites
        credentialState = Mutex((options.credential, options.scopes, false))
    }

    // MARK: Controls

    /// Ends the session from any thread: the connection closes, waiting calls end with
    /// ``GatewayError/cancelled``, the last event is ``GatewaySessionEvent/ended(_:)`` with nil.
    public func stop() { stopSignal.stop() }

    /// Drops the current connection (or the wait before the next attempt, or the attempt under
    /// way, which is abandoned without waiting for its timeout) and connects again at once, with
    /// the backoff reset: say, because the gateway's beacon reappeared or it moved.
    public func reconnectNow() {
        let (wake, attempt) = shared.withLock { state -> ((@Sendable () -> Void)?, StopSignal?) in
            state.reconnectRequested = true
            return (state.wake, state.attempt)
        }
        attempt?.stop()
        wake?()
    }

    /// The signal that abandons the attempt under way (internal seam: a scripted connector
    /// watches it as the network's attempt does); nil while connected or between attempts.
    var attemptSignal: StopSignal? { shared.withLock { $0.attempt } }

    /// Replaces the routes (URLs) the next attempts use, say after the gateway moved; with
    /// `reconnect`, drops the current connection for them at once.
    public func replaceRoutes(_ urls: [String], reconnect: Bool = false) {
        shared.withLock { $0.routes = urls }
        if reconnect { reconnectNow() }
    }

    /// The latest hello-ok while connected; nil between connections.
    public var hello: HelloOK? { shared.withLock { $0.hello } }

    /// The URL of the current connection; nil between connections.
    public var connectedURL: String? { shared.withLock { $0.url } }

    /// The registry entry as the session knows it now: its routes, pin and device name re-read
    /// from the registry before each attempt (a pin or routes stored meanwhile are used without a
    /// restart), with the tokens it stored or cleared.
    public var record: PairedGateway { recordState.withLock { $0 } }

    // MARK: Events

    /// Runs `handler` on the session thread for every event from now on, until the returned
    /// subscription is cancelled. The handler must not block (hand work to another thread or
    /// task; it may call ``send(_:params:timeout:completion:)``).
    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (GatewaySessionEvent) -> Void) -> GatewaySessionSubscription {
        let id = subscribers.withLock { state -> Int in
            state.next += 1
            state.byID[state.next] = handler
            return state.next
        }
        return GatewaySessionSubscription(id: id) { [weak self] in
            _ = self?.subscribers.withLock { $0.byID.removeValue(forKey: id) }
        }
    }

    /// The session's events as a stream, from now on: it finishes after
    /// ``GatewaySessionEvent/ended(_:)`` (throwing that error when there is one). Ending the
    /// iteration unsubscribes; it does not stop the session. At most `bufferLimit` events wait
    /// for the consumer (older ones are dropped beyond it).
    public func events(bufferLimit: Int = 1024) -> AsyncThrowingStream<GatewaySessionEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<GatewaySessionEvent, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, bufferLimit)))
        let subscription = subscribe { event in
            continuation.yield(event)
            if case .ended(let error) = event {
                if let error { continuation.finish(throwing: error) } else { continuation.finish() }
            }
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    // MARK: Running

    /// Runs the session on a thread of its own; `onEvent` (on that thread) hears every event,
    /// as subscribers do. Returns at once; a second start does nothing.
    public func start(onEvent: @escaping @Sendable (GatewaySessionEvent) -> Void = { _ in }) {
        guard shared.withLock({ state -> Bool in
            defer { state.started = true }
            return !state.started
        }) else { return }
        let subscription = subscribe(onEvent)
        BackgroundThread.detached {
            _ = self.runHere(onEvent: { _ in })
            subscription.cancel()
        }
    }

    /// Runs the session on the calling thread until ``stop()`` (returns normally) or an error
    /// that needs someone to act (throws it; the policy's give-up too). `onEvent` hears every
    /// event on this thread, as subscribers do.
    public func run(onEvent: (GatewaySessionEvent) -> Void = { _ in }) throws(GatewayError) {
        guard shared.withLock({ state -> Bool in
            defer { state.started = true }
            return !state.started
        }) else { throw .protocolViolation("the session is already running") }
        if let error = runHere(onEvent: onEvent) { throw error }
    }

    /// Runs the session on a thread of its own until the calling task is cancelled (returns
    /// normally) or an error that needs someone to act (throws it). Never blocks the task's thread.
    public func run() async throws(GatewayError) {
        let session = self
        try await LoopThread.run(stop: stopSignal) { (signal: StopSignal) throws(GatewayError) in
            signal.onStop { session.stop() }
            try session.run()
        }
    }

    // MARK: Calls

    /// Sends `method` with `params` and hands the response (or why there is none: not
    /// connected, the connection ended, `timeout`, the session stopped) to `completion`, on the
    /// session thread. Never blocks; usable from an event handler.
    public func send(_ method: String, params: JSONValue? = nil, timeout: Duration,
                     completion: @escaping @Sendable (Result<JSONValue, GatewayError>) -> Void) {
        guard !stopSignal.isStopped else { return completion(.failure(.cancelled)) }
        let (wake, ended) = shared.withLock { state -> ((@Sendable () -> Void)?, GatewayError?) in
            if let ended = state.ended { return (nil, ended) }
            state.calls.append(PendingCall(method: method, params: params, timeout: timeout, completion: completion))
            return (state.wake, nil)
        }
        if let ended { return completion(.failure(ended)) }
        wake?()
    }

    /// Sends `method` and waits for its response: the payload (`null` when it has none), or
    /// ``GatewayError/rpcFailed(method:_:)``, ``GatewayError/notConnected`` (between
    /// connections), ``GatewayError/timedOut(what:after:)``, ``GatewayError/cancelled`` once
    /// `stop` or the session's own stop is raised, or the error the session ended with. Not from the session thread (an event
    /// handler): use ``send(_:params:timeout:completion:)`` there.
    public func call(_ method: String, params: JSONValue? = nil, timeout: Duration,
                     stop: StopSignal? = nil) throws(GatewayError) -> JSONValue {
        precondition(!isSessionThread, "GatewaySession.call blocks: use send(_:params:timeout:completion:) on the session thread")
        let done = StopSignal()
        let answer = Mutex<Result<JSONValue, GatewayError>?>(nil)
        send(method, params: params, timeout: timeout) { result in
            answer.withLock { $0 = $0 ?? result }
            done.stop()
        }
        // The answer, `stop` or the session's stop raises `either`; the thread sleeps on a
        // condition variable until then (no polling).
        let either = done.joined(with: stop).joined(with: stopSignal)
        either.wait()
        if let result = answer.withLock({ $0 }) { return try result.get() }
        throw .cancelled
    }

    /// ``call(_:params:timeout:stop:)`` for `async` callers: the task is suspended (no thread
    /// waits) and cancelling it returns ``GatewayError/cancelled`` at once.
    public func call(_ method: String, params: JSONValue? = nil, timeout: Duration) async throws(GatewayError) -> JSONValue {
        let once = ResumeOnce()
        let result: Result<JSONValue, GatewayError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<JSONValue, GatewayError>, Never>) in
                once.set(continuation)
                send(method, params: params, timeout: timeout) { once.resume($0) }
            }
        } onCancel: {
            once.resume(.failure(.cancelled))
        }
        return try result.get()
    }

    private var isSessionThread: Bool {
        guard let thread = shared.withLock({ $0.thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    // MARK: The session thread

    private func publish(_ event: GatewaySessionEvent, _ local: (GatewaySessionEvent) -> Void) {
        local(event)
        let handlers = subscribers.withLock { $0.byID.sorted { $0.key < $1.key }.map(\.value) }
        for handler in handlers { handler(event) }
    }

    /// The session loop; the terminal error, or nil when stopped.
    private func runHere(onEvent: (GatewaySessionEvent) -> Void) -> GatewayError? {
        shared.withLock { $0.thread = pthread_self() }
        var schedule = ReconnectSchedule(policy: options.reconnect)
        let negotiation = options.effectiveNegotiation
        var offered = negotiation.preferred
        var attempt = 0
        var ending: GatewayError?
        var urls: [String] = []
        // Negotiation steps taken silently within the current attempt (see below).
        var negotiationSteps: Int? = nil
        while !stopSignal.isStopped {
            if negotiationSteps == nil {
                attempt += 1
                reloadRecord()
                urls = shared.withLock { state -> [String] in
                    state.reconnectRequested = false
                    return state.routes ?? recordState.withLock { $0.urls }
                }
                publish(.connecting(attempt: attempt, urls: urls), onEvent)
            }
            let steps = negotiationSteps ?? 0
            negotiationSteps = nil
            // The attempt's own stop: raised by the session's stop or by a requested reconnect
            // (a beacon that reappeared, a gateway that moved), which abandons it at once.
            let attemptStop = StopSignal()
            let chained = stopSignal.onStop { attemptStop.stop() }
            let abandoned = shared.withLock { state -> Bool in
                state.attempt = attemptStop
                return state.reconnectRequested
            }
            if abandoned { attemptStop.stop() }
            let error = connectAndServe(urls: urls, offered: offered, onEvent: onEvent, schedule: &schedule, attempt: &attempt,
                                        attemptStop: attemptStop)
            stopSignal.removeHandler(chained)
            shared.withLock {
                $0.hello = nil
                $0.url = nil
                $0.wake = nil
                $0.attempt = nil
            }
            if stopSignal.isStopped { break }
            if error == .cancelled, attempt > 0 {
                // An attempt abandoned for a requested reconnect: no disconnection (nothing was
                // connected), the next attempt starts at once with the backoff reset.
                guard shared.withLock({ $0.reconnectRequested }) else { break }
                _ = schedule.disconnected(.requested, at: clock.now, draw: draw())
                continue
            }
            // Protocol negotiation (upstream-2026-10.md §2.3): a refused range whose gateway
            // expects the other one is offered that one at once; a legacy connection whose
            // gateway upgraded was closed with 1012 and goes back to the preferred range.
            // Such a step is part of the attempt, not a disconnection: no event says it (the
            // `connected` event's hello names the protocol in use). At most two steps per
            // attempt (down, and up again); a gateway that keeps flip-flopping goes through the
            // policy like any failure.
            let upgraded = error == .closed(code: 1012, reason: Self.protocolUpgradedReason, during: "connect")
            if let next = negotiation.fallback(after: error, offered: offered) {
                offered = next
                if steps < 2 {
                    negotiationSteps = steps + 1
                    continue
                }
                guard let delay = schedule.disconnected(.failed, at: clock.now, draw: draw()) else {
                    publish(.disconnected(error, retryIn: nil), onEvent)
                    ending = error
                    break
                }
                publish(.disconnected(error, retryIn: delay), onEvent)
                waitBeforeReconnect(until: clock.now + delay)
                continue
            }
            // After a legacy connection that got hello-ok ends (`attempt` was reset), or a legacy
            // gateway reported an upgrade, the next attempt offers the preferred range again: a
            // gateway upgraded while it restarted is spoken to at its newest protocol.
            if attempt == 0 || upgraded {
                offered = negotiation.preferred
            }
            if upgraded, steps < 2 {
                negotiationSteps = steps + 1
                continue
            }
            // A refused shared token is retried once, at once, with the stored device token where
            // upstream allows it (loopback, or a pinned wss://): part of the attempt, as the
            // negotiation steps are.
            if deviceTokenRetry(after: error, urls: urls) {
                negotiationSteps = steps
                continue
            }
            if let revoked = revokeToken(after: error) {
                publish(.disconnected(revoked, retryIn: nil), onEvent)
                ending = revoked
                break
            }
            let requested = shared.withLock { $0.reconnectRequested }
            let reason: SessionDisconnect
            if requested {
                reason = .requested
            } else if case .closed(let code, _, _) = error {
                reason = .closed(code: code)
            } else if case .pairingRequired = error {
                reason = .awaitingApproval
            } else {
                reason = .failed
            }
            if needsSomeoneToAct(error) && !requested {
                publish(.disconnected(error, retryIn: nil), onEvent)
                ending = error
                break
            }
            guard var delay = schedule.disconnected(reason, at: clock.now, draw: draw()) else {
                publish(.disconnected(error, retryIn: nil), onEvent)
                ending = error
                break
            }
            // A gateway still starting names when to come back (`retryAfterMs`, clamped where it
            // is read); upstream's client waits exactly that (docs/gateway/protocol/handshake.md).
            if case .gatewayStarting(let retryAfter, _) = error, !requested { delay = retryAfter }
            publish(.disconnected(error, retryIn: delay), onEvent)
            waitBeforeReconnect(until: clock.now + delay)
        }
        shared.withLock { $0.ended = ending ?? .cancelled }
        failQueuedCalls(with: ending ?? .cancelled)
        publish(.ended(ending), onEvent)
        return ending
    }

    /// The close reason sent when a legacy connection's gateway reports a newer protocol.
    static let protocolUpgradedReason = "gateway protocol upgraded"

    /// Errors after which trying again cannot help until someone acts: refusals of the
    /// credential, trust or protocol. A pending pairing request is not among them (the
    /// session keeps trying, at most every ``ReconnectPolicy/maxDelay``, until it is approved).
    static func needsSomeoneToAct(_ error: GatewayError) -> Bool {
        switch error {
        case .pairingRequired: return false
        case .protocolMismatch, .clientVersionMismatch, .invalidURL: return true
        default: return error.isRefusal
        }
    }

    /// ``needsSomeoneToAct(_:)`` under this session's policy: a changed certificate is retried
    /// when ``ReconnectPolicy/retriesChangedCertificate`` says so.
    private func needsSomeoneToAct(_ error: GatewayError) -> Bool {
        if options.reconnect.retriesChangedCertificate, case .tlsTrust(_, .pinMismatch) = error { return false }
        if options.reconnect.retriedRefusals.contains(error.code) { return false }
        return Self.needsSomeoneToAct(error)
    }

    /// The gateway's detail or close reason when `error` says it no longer accepts the device
    /// token this session sent: `AUTH_DEVICE_TOKEN_MISMATCH`, a 1008 close "device token
    /// mismatch" (upstream's GatewayClient clears the token on both, `upstream-2026-10.md` §2.3),
    /// or `AUTH_TOKEN_MISMATCH`: the session's only credential is that stored token.
    static func tokenRefusal(_ error: GatewayError) -> String? {
        switch error {
        case .authRejected(let shape), .deviceAuthRejected(let shape), .connectRejected(let shape):
            if let detail = shape.detailCode, ["AUTH_DEVICE_TOKEN_MISMATCH", "AUTH_TOKEN_MISMATCH"].contains(detail) { return detail }
            if shape.message.lowercased() == "device_token_mismatch" { return "device_token_mismatch" }
            return nil
        case .closed(1008, let reason, _) where reason.lowercased().contains("device token mismatch"):
            return "1008 device token mismatch"
        default:
            return nil
        }
    }

    /// The one bounded retry upstream's clients make after a shared token was refused
    /// (`upstream-2026-10.md` §2.3; `docs/gateway/protocol/auth.md`): when `error` is
    /// one that invites it (``GatewayErrorShape/invitesDeviceTokenRetry``), the credential sent was a token
    /// other than the device token stored for the role, one is stored, and every route is
    /// trusted (loopback, or `wss://` with a pin), the next `connect` sends the stored token (with
    /// its scopes) instead, for the rest of the session. True when it will; at most once.
    private func deviceTokenRetry(after error: GatewayError, urls: [String]) -> Bool {
        guard case .authRejected(let shape) = error, shape.invitesDeviceTokenRetry else { return false }
        let record = recordState.withLock { $0 }
        guard let stored = record.token(for: options.role.rawValue, deviceId: identity.value.deviceId) else { return false }
        let pin = options.pin ?? record.tlsFingerprint
        let trusted = !urls.isEmpty && urls.allSatisfy { url in
            (try? GatewayEndpoint(parsing: url))?.admitsDeviceTokenRetry(pin: pin) ?? false
        }
        guard trusted else { return false }
        return credentialState.withLock { state -> Bool in
            guard !state.retried, let sent = state.auth?.token, sent != stored.token, state.auth?.password == nil else { return false }
            state = (ConnectAuth(token: stored.token), options.role == .node ? state.scopes : stored.scopes, true)
            return true
        }
    }

    /// When `error` is a refusal of the stored device token: removes that token (for this
    /// gateway, role and device) from the registry under its lock and from the session's record;
    /// the terminal error to end with.
    private func revokeToken(after error: GatewayError) -> GatewayError? {
        // Only a stored token is cleared; a credential given in the options is the caller's.
        guard options.credential == nil, let detail = Self.tokenRefusal(error) else { return nil }
        let role = options.role.rawValue
        let deviceId = identity.value.deviceId
        // The token that was sent; the registry's is removed only while it is still that one
        // (another process may have stored a new one meanwhile).
        let sent = recordState.withLock { record -> String? in
            defer { record.tokens.removeAll { $0.role == role } }
            return record.token(for: role, deviceId: deviceId)?.token
        }
        if let registry, let sent {
            _ = try? registry.update(id: gatewayID) { gateway in
                guard gateway.token(for: role, deviceId: deviceId)?.token == sent else { return }
                gateway.tokens.removeAll { $0.role == role }
            }
        }
        return .deviceTokenRevoked(role: role, detail: detail)
    }

    /// Takes the routes, pin and device name of the registry's current copy of the entry (stored
    /// by another process, a re-pin or a relocation) when the session has a registry and the
    /// entry is still there for this device. The tokens stay the session's own (it stores a
    /// re-issued one in both places).
    private func reloadRecord() {
        guard registryWrites == .answers, let registry, let fresh = registry.snapshot().gateway(id: gatewayID),
              fresh.deviceId == identity.value.deviceId else { return }
        recordState.withLock { record in
            record.urls = fresh.urls
            record.tlsFingerprint = fresh.tlsFingerprint
            record.deviceName = fresh.deviceName
        }
    }

    /// Between attempts: waits on the clock, failing calls that arrive (not connected), until
    /// `deadline`, a requested reconnect or the stop.
    private func waitBeforeReconnect(until deadline: Monotonic.Instant) {
        while !stopSignal.isStopped, clock.now < deadline {
            failQueuedCalls(with: .notConnected)
            if shared.withLock({ $0.reconnectRequested }) { return }
            clock.sleep(until: min(deadline, clock.now + StopSignal.pollSlice), unless: { self.stopSignal.isStopped })
        }
    }

    private func failQueuedCalls(with error: GatewayError) {
        let calls = shared.withLock { state -> [PendingCall] in
            defer { state.calls.removeAll() }
            return state.calls
        }
        for call in calls { call.completion(.failure(error)) }
    }

    /// The connect request for the current stored token, offering `offered`.
    private func connectRequest(offering offered: ClosedRange<Int64>) -> ConnectRequest {
        let current = recordState.withLock { $0 }
        let token = current.token(for: options.role.rawValue, deviceId: identity.value.deviceId)
        let displayName = current.deviceName ?? HostName.current(fallback: "linux")
        let client = options.client ?? (options.role == .node
            ? .nodeHost(version: ClawpairVersion.current, displayName: displayName)
            : .operatorCLI(version: ClawpairVersion.current, displayName: displayName))
        let (credential, chosenScopes) = credentialState.withLock { ($0.auth, $0.scopes) }
        let scopes = chosenScopes ?? (options.role == .node ? [] : token?.scopes ?? [])
        var request = ConnectRequest(client: client, role: options.role, scopes: scopes, caps: options.caps,
                                     commands: options.commands, permissions: options.permissions,
                                     auth: credential ?? ConnectAuth(token: token?.token),
                                     payloadVersion: options.payloadVersion)
        request.protocolRange = offered
        return request
    }

    /// For a link other than the network's (a scripted gateway in tests): the calls queued since
    /// the last take, each to be answered through its completion.
    func takeQueuedCalls() -> [(method: String, params: JSONValue?, completion: @Sendable (Result<JSONValue, GatewayError>) -> Void)] {
        shared.withLock { state in
            defer { state.calls.removeAll() }
            return state.calls.map { ($0.method, $0.params, $0.completion) }
        }
    }

    /// For a link other than the network's (a scripted gateway in tests): `wake` is called when a
    /// call is queued or a reconnect is asked for, until this connection ends, so the link waits
    /// for that instead of looking every few milliseconds. Calls queued before are not announced:
    /// take them after setting it.
    func onWake(_ wake: @escaping @Sendable () -> Void) {
        shared.withLock { $0.wake = wake }
    }

    /// For a link other than the network's: reports a gateway event as the session does.
    func report(_ event: GatewayEvent, _ onEvent: (GatewaySessionEvent) -> Void) {
        publish(.event(event), onEvent)
    }

    /// The endpoint to connect: the only route, or the winner of a race over several.
    private func chooseEndpoint(urls: [String], pin: String?, stop: StopSignal) -> Result<GatewayEndpoint, GatewayError> {
        var endpoints: [GatewayEndpoint] = []
        var lastError: GatewayError = .invalidURL(urls.first ?? "", reason: "the gateway record has no URL")
        for url in urls {
            do {
                var endpoint = try GatewayEndpoint(parsing: url)
                if endpoint.tls { endpoint.pin = pin }
                endpoints.append(endpoint)
            } catch {
                lastError = error
            }
        }
        guard let first = endpoints.first else { return .failure(lastError) }
        guard endpoints.count > 1 else { return .success(first) }
        var routes: [ProbeRoute] = []
        for endpoint in endpoints {
            guard let expanded = try? ProbeCandidates.expand(endpoint.url) else { continue }
            var more = expanded.routes
            if let pin, endpoint.tls { ProbeCandidates.applyPin(pin, source: .trust, to: &more) }
            routes += more
        }
        let configuration = ProbeConfiguration(timeout: options.connectTimeout, allowInsecure: true)
        let report = try? Prober.run(routes: routes, configuration: configuration, resolver: resolver, clock: clock, stop: stop)
        guard let report, let winner = report.winningResult else {
            if stop.isStopped { return .failure(.cancelled) }
            // A route that presented another certificate than the pin says more than "nothing
            // answered": the gateway may have renewed it (never accepted; the caller may retry).
            for result in report?.results ?? [] {
                if case .pinMismatch(let expected, let observed)? = result.failure {
                    return .failure(.tlsTrust(url: result.route.url, .pinMismatch(expected: expected, observed: observed)))
                }
            }
            return .failure(.unreachable(url: first.url, phase: "race", reason: "no route of the gateway answered"))
        }
        var endpoint = GatewayEndpoint(route: winner.route)
        if let address = winner.address { endpoint.knownAddresses = [address.ip] }
        return .success(endpoint)
    }

    /// One attempt and, when it gets hello-ok, the connection until it ends; why it ended.
    private func connectAndServe(urls: [String], offered: ClosedRange<Int64>, onEvent: (GatewaySessionEvent) -> Void,
                                 schedule: inout ReconnectSchedule, attempt: inout Int, attemptStop: StopSignal) -> GatewayError {
        let pin = options.pin ?? recordState.withLock { $0.tlsFingerprint }
        let request = connectRequest(offering: offered)
        let opened = connector.map { $0.connect(urls: urls, pin: pin, request: request, session: self) }
            ?? openNetworkLink(urls: urls, pin: pin, request: request, stop: attemptStop)
        // From hello-ok on, a requested reconnect goes through the connection's wake-up.
        shared.withLock { $0.attempt = nil }
        if case .failure = opened, attemptStop.isStopped { return .cancelled }
        let link: any GatewaySessionLink
        switch opened {
        case .success(let opened): link = opened
        case .failure(let error): return error
        }
        let hello = link.hello
        if hello.protocolVersion > offered.upperBound {
            // A legacy offer answered with a newer protocol: the gateway upgraded.
            link.close(code: 1012, reason: Self.protocolUpgradedReason)
            return .closed(code: 1012, reason: Self.protocolUpgradedReason, during: "connect")
        }
        schedule.connected(at: clock.now)
        attempt = 0
        storeReissued(hello, url: link.url, onEvent: onEvent)
        shared.withLock {
            $0.hello = hello
            $0.url = link.url
        }
        publish(.connected(url: link.url, hello: hello), onEvent)
        let ended = link.serve(self, onEvent: onEvent)
        if stopSignal.isStopped {
            link.close(code: options.stopCloseCode, reason: "stopped")
            return .cancelled
        }
        link.close(code: 1000, reason: "bye")
        return ended
    }

    /// The network's attempt: the endpoint (the only route, or the race's winner), TLS with the
    /// pin, the upgrade, the challenge and `connect`.
    private func openNetworkLink(urls: [String], pin: String?, request: ConnectRequest,
                                 stop: StopSignal) -> Result<any GatewaySessionLink, GatewayError> {
        let endpoint: GatewayEndpoint
        switch chooseEndpoint(urls: urls, pin: pin, stop: stop) {
        case .success(let chosen): endpoint = chosen
        case .failure(let error): return .failure(error)
        }
        let client: GatewayClient
        do {
            client = try GatewayClient(endpoint: endpoint, configuration: options.connection, resolver: resolver, clock: clock,
                                       stop: stop)
        } catch {
            return .failure(error)
        }
        client.tickSilence = (options.reconnect.tickSilenceFactor, options.reconnect.tickTimeoutCloseCode)
        do {
            try client.open(timeout: options.connectTimeout)
            let hello = try client.connect(request, identity: identity.value, timeout: options.connectTimeout)
            return .success(ClientSessionLink(client: client, url: endpoint.url, hello: hello))
        } catch {
            client.close()
            return .failure(error)
        }
    }

    /// Records the answer in the registry, with the token hello-ok issued when it differs.
    private func storeReissued(_ hello: HelloOK, url: String, onEvent: (GatewaySessionEvent) -> Void) {
        if registryWrites == .lastSeen {
            // A concurrent `forget` wins; nothing else in the record is written back.
            let nowMs = wallClockMs()
            _ = try? registry?.update(id: gatewayID) { $0.lastSeenAtMs = nowMs }
            return
        }
        let role = options.role.rawValue
        let current = recordState.withLock { $0 }
        var reissued: [StoredDeviceToken] = []
        if let issued = hello.deviceToken, issued.role == role,
           issued.token != current.token(for: role, deviceId: identity.value.deviceId)?.token {
            reissued.append(issued)
        }
        if let registry {
            let updated = try? registry.recordAnswer(id: gatewayID, url: url, nowMs: wallClockMs(), reissued: reissued)
            if let updated { recordState.withLock { $0 = updated } }
        }
        if !reissued.isEmpty {
            recordState.withLock { record in
                for token in reissued { record.store(token) }
            }
            publish(.tokenStored(role: role), onEvent)
        }
    }

    /// The open connection: events out, calls in, until it ends, a reconnect is asked for or
    /// the session stops (then the caller closes with ``GatewaySessionOptions/stopCloseCode``).
    fileprivate func serve(_ client: GatewayClient, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
        var pending: [String: (completion: @Sendable (Result<JSONValue, GatewayError>) -> Void, timer: EventLoop.Timer)] = [:]
        var requested = false
        // Events and responses arrive on this thread, inside the loop; `onEvent` is used only here.
        return withoutActuallyEscaping(onEvent) { onEvent -> GatewayError in
            client.eventHandler = { [unowned self] event in self.publish(.event(event), onEvent) }
            client.responseHandler = { id, result in
                guard let entry = pending.removeValue(forKey: id) else { return }
                client.cancelTimer(entry.timer)
                entry.completion(result)
            }
            let mailbox = client.makeMailbox { (_: Void) in
                let calls = self.shared.withLock { state -> [PendingCall] in
                    if state.reconnectRequested { requested = true }
                    defer { state.calls.removeAll() }
                    return state.calls
                }
                for call in calls {
                    guard client.isOpen else {
                        call.completion(.failure(.notConnected))
                        continue
                    }
                    let id = client.sendRequest(call.method, params: call.params)
                    let timeout = call.timeout
                    let timer = client.schedule(at: client.clock.now + timeout) {
                        guard let entry = pending.removeValue(forKey: id) else { return }
                        entry.completion(.failure(.timedOut(what: "a response to \(call.method)", after: timeout)))
                    }
                    pending[id] = (call.completion, timer)
                }
            }
            shared.withLock { $0.wake = { mailbox.deliver(()) } }
            mailbox.deliver(())  // calls queued before the connection was up
            // The client's watchdog closes with the policy's code (4000 "tick timeout") after the
            // policy's number of tick intervals (2) of silence.
            let ended = client.serve { requested || self.stopSignal.isStopped }
            client.eventHandler = nil
            client.responseHandler = nil
            let failure = ended ?? (stopSignal.isStopped ? .cancelled : .closed(code: 1000, reason: "reconnect requested", during: "the session"))
            for entry in pending.values { entry.completion(.failure(failure)) }
            pending.removeAll()
            return failure
        }
    }
}

extension GatewaySession {
    /// A session as an operator to `plan`'s target, with `plan`'s credential: any URL (a
    /// command-line one, the local gateway, a registry entry) and any credential (a shared
    /// token, a password, the stored device token), as ``OperatorSession`` connects.
    ///
    /// With `registry` and a registry entry as the target, each answer records the entry's
    /// last-seen time there, as an operator connection does (a concurrent removal of the entry
    /// wins; nothing else is written back: no tokens, no routes). A refused shared token is
    /// retried once with the stored operator token where upstream allows it (loopback, or a
    /// pinned `wss://`), as ``OperatorSession/connect(_:options:)`` does; another refused
    /// credential ends the session.
    public convenience init(operatorPlan plan: OperatorPlan, registry: GatewayRegistry? = nil, identity: DeviceIdentity,
                            client: GatewayClientInfo, timeout: Duration,
                            reconnect: ReconnectPolicy = ReconnectPolicy()) throws(GatewayError) {
        try self.init(operatorPlan: plan, registry: registry, identity: identity, client: client, timeout: timeout, reconnect: reconnect,
                      clock: SystemMonotonicClock(), wallClockMs: { WallClock.nowMs() }, connector: nil)
    }

    /// ``init(operatorPlan:registry:identity:client:timeout:reconnect:)`` with its clocks and
    /// connector given (tests script the gateway).
    convenience init(operatorPlan plan: OperatorPlan, registry: GatewayRegistry?, identity: DeviceIdentity,
                     client: GatewayClientInfo, timeout: Duration, reconnect: ReconnectPolicy, clock: any MonotonicClock,
                     wallClockMs: @escaping @Sendable () -> Int64, connector: (any GatewaySessionConnector)?) throws(GatewayError) {
        let request = plan.connectRequest(client: client)
        let target = plan.target
        // The entry's tokens come along: the one retry with the stored operator token needs them.
        let record = PairedGateway(id: target.record?.id ?? PairedGateway.makeID(), name: target.record?.name ?? target.endpoint.host,
                                   urls: [target.endpoint.url], tlsFingerprint: target.endpoint.pin,
                                   deviceId: target.record?.deviceId ?? identity.deviceId, tokens: target.record?.tokens ?? [],
                                   pairedAtMs: 0, deviceName: request.client.displayName)
        let options = GatewaySessionOptions(role: .operator, client: request.client, scopes: request.scopes, pin: target.endpoint.pin,
                                            connectTimeout: timeout, reconnect: reconnect, connection: .clawpair(timeout: timeout),
                                            credential: plan.credential.auth)
        try self.init(gateway: record, registry: target.record == nil ? nil : registry, identity: identity, options: options, clock: clock,
                      resolver: SystemResolver(), wallClockMs: wallClockMs, jitterDraw: { Double.random(in: 0..<1) },
                      connector: connector, registryWrites: .lastSeen)
    }

    /// The typed operator calls of ``OperatorSession`` over this session's current connection
    /// (nil between connections); `plan` is the one the session was made from. They block the
    /// calling thread, so never call them from an event handler (the session's thread).
    public func operatorCalls(plan: OperatorPlan, timeout: Duration) -> OperatorSession? {
        guard let hello else { return nil }
        return OperatorSession(connection: SessionCalls(self), hello: hello, plan: plan, timeout: timeout)
    }
}

/// A session as ``OperatorSession``'s connection: calls go through the session; closing it
/// leaves the session alone.
private final class SessionCalls: GatewayCalling {
    let session: GatewaySession

    init(_ session: GatewaySession) { self.session = session }

    func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue {
        try session.call(method, params: params, timeout: timeout, stop: nil)
    }

    func close() {}
}

/// A subscription to a ``GatewaySession``'s events; ``cancel()`` ends it.
public struct GatewaySessionSubscription: Sendable {
    let id: Int
    private let onCancel: @Sendable () -> Void

    init(id: Int, onCancel: @escaping @Sendable () -> Void) {
        self.id = id
        self.onCancel = onCancel
    }

    /// Stops delivering events to the handler (idempotent).
    public func cancel() { onCancel() }
}

/// How a ``GatewaySession`` opens its connections: the network by default; tests script the
/// gateway through it (internal seam).
protocol GatewaySessionConnector: Sendable {
    /// One attempt over `urls` (`wss://` ones pinned to `pin`) sending `request`: the connection
    /// after hello-ok, or why there is none.
    func connect(urls: [String], pin: String?, request: ConnectRequest, session: GatewaySession)
        -> Result<any GatewaySessionLink, GatewayError>
}

/// An open connection of a ``GatewaySession``, after hello-ok.
protocol GatewaySessionLink: AnyObject {
    /// The URL it reached.
    var url: String { get }
    /// Its hello-ok.
    var hello: HelloOK { get }
    /// Carries the session's calls and the gateway's events until the connection ends, a
    /// reconnect is asked for or the session stops; why it ended.
    func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError
    /// Closes with `code` and `reason` (idempotent).
    func close(code: UInt16, reason: String)
}

/// A ``GatewayClient`` that got hello-ok.
private final class ClientSessionLink: GatewaySessionLink {
    let client: GatewayClient
    let url: String
    let hello: HelloOK

    init(client: GatewayClient, url: String, hello: HelloOK) {
        self.client = client
        self.url = url
        self.hello = hello
    }

    func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
        session.serve(client, onEvent: onEvent)
    }

    func close(code: UInt16, reason: String) {
        client.close(code: code, reason: reason, failing: .closed(code: code, reason: reason, during: "the session"))
        client.close()
    }

    deinit { client.close() }
}

/// The identity, handed to the session thread. `DeviceIdentity` is immutable (its key is
/// frozen read-only at load) and signing only reads it.
private final class IdentityBox: @unchecked Sendable {
    let value: DeviceIdentity
    init(_ value: DeviceIdentity) { self.value = value }
}

/// A continuation resumed at most once: by the answer or by the cancellation, whichever is first.
private final class ResumeOnce: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Result<JSONValue, GatewayError>, Never>?,
                               early: Result<JSONValue, GatewayError>?)>((nil, nil))

    func set(_ continuation: CheckedContinuation<Result<JSONValue, GatewayError>, Never>) {
        let early = state.withLock { state -> Result<JSONValue, GatewayError>? in
            if let early = state.early {
                state.early = nil
                return early
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ result: Result<JSONValue, GatewayError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<JSONValue, GatewayError>, Never>? in
            defer { state.continuation = nil }
            if state.continuation == nil, state.early == nil { state.early = result }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }
}
