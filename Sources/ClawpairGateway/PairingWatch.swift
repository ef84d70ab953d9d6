// Following a gateway's pairing events live (`clawpair devices watch`, issue #15 §1): the
// events `device.pair.requested` / `device.pair.resolved` (payloads as openclaw/openclaw
// `packages/gateway-protocol/src/schema/devices.ts` DevicePairRequestedEventSchema /
// DevicePairResolvedEventSchema), `device.pair.changed`, `device.pair.setup.completed` /
// `.deliveryUncertain` and `node.pair.requested` / `.resolved` (`shared/spec/pairing-rpcs.md`
// §5.1, `upstream-2026.md`). The gateway broadcasts them to operator sessions with
// operator.pairing; the watch lists the pending requests on every (re)connect so nothing that
// arrived while it was away is missed, and reconnects with a bounded backoff when the
// connection drops or the gateway restarts (it says `shutdown` and closes 1012).
//
// Two ways to run it. On a ``GatewaySession`` (what `clawpair devices watch` does): the
// session connects, reconnects by its ``ReconnectPolicy`` (the gateway's restart, a dropped
// socket) and stops; the watch lists the pending requests on each of its connections and follows
// its events. Or transport-free, with a `connect` closure (one ``OperatorSession`` per
// connection) and a ``MonotonicClock`` for its own backoff, so tests drive the decisions with a
// fake connection and a ``ManualClock``.

import ClawpairCore
import ClawpairDNS
import Synchronization

/// A connection that also delivers events (``GatewayClient`` is one).
public protocol GatewayEventSource: GatewayCalling {
    /// The next event, waiting up to `timeout`; nil when none arrived in time.
    func nextEvent(timeout: Duration) throws(GatewayError) -> GatewayEvent?
}

extension GatewayClient: GatewayEventSource {}

extension OperatorSession {
    /// The next event on this session's connection, waiting up to `timeout`; nil when none
    /// arrived in time or the connection delivers no events.
    public func nextEvent(timeout: Duration) throws(GatewayError) -> GatewayEvent? {
        guard let source = connection as? any GatewayEventSource else { return nil }
        return try source.nextEvent(timeout: timeout)
    }
}

/// `device.pair.resolved`'s payload: `{requestId, deviceId, decision, ts}`.
public struct PairingResolution: Sendable, Equatable {
    /// The pairing request id.
    public var requestId: String
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String?
    /// `approved`, `rejected` or `expired` (a superseded request is resolved too).
    public var decision: String?
    /// When the gateway recorded it, in ms since the epoch.
    public var ts: Int64?

    /// Reads the payload; `context` names it in errors.
    public init(json: JSONValue, context: String = "device.pair.resolved") throws(GatewayError) {
        let reader = try RecordReader(json, context: context)
        requestId = try reader.requiredString("requestId")
        deviceId = try reader.string("deviceId")
        decision = try reader.string("decision")
        ts = try reader.int("ts")
    }
}

/// What the watch saw or did.
public enum PairingWatchEvent: Sendable, Equatable {
    /// Connected (again): the pending requests as listed right then, newest first.
    case connected(pending: [PendingRequest], reconnect: Bool)
    /// A device asks to pair (`device.pair.requested`); `supersedes` is the device's earlier
    /// pending request this one replaced, when the watch knew it.
    case requested(PendingRequest, supersedes: String?)
    /// A request was approved, rejected, expired or superseded (`device.pair.resolved`).
    case resolved(PairingResolution)
    /// A setup code was used (`device.pair.setup.completed`, or `.deliveryUncertain` with
    /// `uncertain` true).
    case setupCompleted(SetupCompletion, uncertain: Bool)
    /// Another pairing event (`device.pair.changed`, `node.pair.*`), its payload redacted.
    case other(name: String, payload: JSONValue?)
    /// The watch approved or rejected a request as the handler asked.
    case acted(PairingWatchAction, result: JSONValue)
    /// Approving or rejecting failed (the request was superseded, already resolved, …).
    case actionFailed(PairingWatchAction, error: GatewayError)
    /// The connection ended or could not be made; the watch retries after `retryIn`.
    case disconnected(error: GatewayError, retryIn: Duration)
}

extension PairingWatchEvent {
    /// The event as one JSON object (a watch log holds one per line); `rule` is the
    /// auto-approval rule that led to an `acted` approval.
    public func json(rule: String? = nil) -> JSONValue {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        switch self {
        case .connected(let pending, let reconnect):
            return .object([("event", "connected"), ("pending", .array(pending.map(\.json))), ("reconnect", .bool(reconnect))])
        case .requested(let request, let supersedes):
            return .object([("event", "requested"), ("request", request.json)] + (supersedes.map { [("supersedes", .string($0))] } ?? []))
        case .resolved(let resolution):
            return .object([("event", "resolved"), ("requestId", .string(resolution.requestId)), ("deviceId", optional(resolution.deviceId)),
                            ("decision", optional(resolution.decision))])
        case .setupCompleted(let completion, let uncertain):
            return .object([("event", "setup.completed"), ("completion", completion.json), ("uncertain", .bool(uncertain))])
        case .other(let name, let payload):
            return .object([("event", .string(name)), ("payload", payload ?? .null)])
        case .acted(let action, let result):
            return .object([("event", .string(action.pastTense)), ("requestId", .string(action.requestId)), ("result", result),
                            ("rule", optional(rule))])
        case .actionFailed(let action, let error):
            return .object([("event", "action-failed"), ("action", .string(action.pastTense)), ("requestId", .string(action.requestId)),
                            ("error", .string(error.message))])
        case .disconnected(let error, let retry):
            return .object([("event", "disconnected"), ("error", .string(error.message)), ("retryInMs", .int(Self.milliseconds(retry)))])
        }
    }

    /// The action an `acted` or `actionFailed` event reports.
    public var action: PairingWatchAction? {
        switch self {
        case .acted(let action, _), .actionFailed(let action, _): return action
        default: return nil
        }
    }

    /// `duration` in whole milliseconds (saturating).
    public static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return overflow ? (seconds < 0 ? .min : .max) : ms.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue
    }
}

/// What the handler asks the watch to do about an event.
public enum PairingWatchAction: Sendable, Equatable {
    case approve(requestId: String)
    case reject(requestId: String)

    /// The request it acts on.
    public var requestId: String {
        switch self {
        case .approve(let id), .reject(let id): return id
        }
    }

    /// `approved` or `rejected`.
    public var pastTense: String {
        switch self {
        case .approve: return "approved"
        case .reject: return "rejected"
        }
    }
}

/// Settings of a ``PairingWatch``.
public struct PairingWatchConfiguration: Sendable {
    /// The wait before each reconnect; the last one repeats. Default 0.5 s, 1 s, 2 s, 5 s.
    public var backoff: [Duration]
    /// How long one wait for an event lasts before the stop condition is asked again.
    public var pollSlice: Duration
    /// Consecutive failed connects before the watch gives up with the last error (nil: never).
    public var maxConsecutiveFailures: Int?

    /// A configuration; `backoff` must not be empty (an empty one becomes 1 s).
    public init(backoff: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(5)],
                pollSlice: Duration = .milliseconds(200), maxConsecutiveFailures: Int? = nil) {
        self.backoff = backoff.isEmpty ? [.seconds(1)] : backoff
        self.pollSlice = pollSlice
        self.maxConsecutiveFailures = maxConsecutiveFailures
    }
}

/// Follows pairing events across reconnects. Confined to the thread that runs it.
public final class PairingWatch {
    /// The event names the watch reports (everything else, `tick` included, is skipped).
    public static let eventNames: Set<String> = [
        "device.pair.requested", "device.pair.resolved", "device.pair.changed", "device.pair.setup.completed",
        "device.pair.setup.deliveryUncertain", "node.pair.requested", "node.pair.resolved",
    ]

    private let connect: (() throws -> OperatorSession)?
    private let session: (session: GatewaySession, plan: OperatorPlan, timeout: Duration)?
    /// The pending request id of each device, to tell a supersession.
    private var pendingByDevice: [String: String] = [:]
    private let clock: any MonotonicClock
    private let configuration: PairingWatchConfiguration

    /// A watch that opens sessions with `connect` and waits out backoffs on `clock`.
    public init(configuration: PairingWatchConfiguration = PairingWatchConfiguration(), clock: any MonotonicClock = SystemMonotonicClock(),
                connect: @escaping () throws -> OperatorSession) {
        self.connect = connect
        session = nil
        self.clock = clock
        self.configuration = configuration
    }

    /// A watch over `session` (an operator session made from `plan`, not started yet: ``run(until:poll:handle:)``
    /// starts and stops it). Its reconnects and their backoff are the session's; `timeout` bounds
    /// each call (listing, approving); `configuration`'s poll slice applies, its backoff does not.
    public init(session: GatewaySession, plan: OperatorPlan, timeout: Duration,
                configuration: PairingWatchConfiguration = PairingWatchConfiguration()) {
        connect = nil
        self.session = (session, plan, timeout)
        clock = SystemMonotonicClock()
        self.configuration = configuration
    }

    /// The reconnect policy of a session a watch runs on: 0.5 s doubling to 5 s without jitter,
    /// reset after each connection; `operator-access-denied` retried (an administrator may grant
    /// access while the watch runs; upstream's clients keep retrying on it).
    public static let sessionPolicy = ReconnectPolicy(initialDelay: .milliseconds(500), maxDelay: .seconds(5), multiplier: 2, jitter: 0,
                                                      stableAfter: .zero, retriedRefusals: ["operator-access-denied"])

    /// Runs until `stopped()` is true (asked at least every ``PairingWatchConfiguration/pollSlice``),
    /// reporting each event to `handle`, which may ask for approvals or rejections (performed in order;
    /// what a handler asks while being told the outcome of an action is ignored). Errors
    /// that no reconnect can fix (refused credentials, a missing scope, a TLS trust failure)
    /// and errors thrown by `handle` end the watch; so does reaching
    /// ``PairingWatchConfiguration/maxConsecutiveFailures``.
    /// `poll`, asked as often as `stopped`, may ask for actions too (keys an operator typed).
    public func run(until stopped: () -> Bool, poll: () -> [PairingWatchAction] = { [] },
                    handle: (PairingWatchEvent) throws -> [PairingWatchAction]) throws {
        if let session {
            return try run(on: session.session, plan: session.plan, timeout: session.timeout, until: stopped, wake: nil,
                           poll: poll, handle: handle)
        }
        guard let connect else { return }
        var failures = 0
        var connectedBefore = false
        while !stopped() {
            let session: OperatorSession
            let pending: [PendingRequest]
            do {
                session = try connect()
                pending = try session.listDevices().sortedPending
            } catch let error as GatewayError {
                guard Self.isRetryable(error) else { throw error }
                failures += 1
                if let limit = configuration.maxConsecutiveFailures, failures >= limit { throw error }
                try wait(after: error, failures: failures, handle: handle, stopped: stopped)
                continue
            }
            failures = 0
            pendingByDevice = [:]
            for request in pending.reversed() { pendingByDevice[request.deviceId] = request.requestId }
            for action in try handle(.connected(pending: pending, reconnect: connectedBefore)) {
                try perform(action, session, handle)
            }
            connectedBefore = true
            do {
                try follow(session, until: stopped, poll: poll, handle: handle)
                session.close()
                return
            } catch let error as GatewayError {
                session.close()
                guard Self.isRetryable(error) else { throw error }
                try wait(after: error, failures: 1, handle: handle, stopped: stopped)
            }
        }
    }

    /// ``run(until:poll:handle:)`` that sleeps until something happens instead of looking every
    /// ``PairingWatchConfiguration/pollSlice``: raising `stop` (from any thread) ends the watch
    /// within milliseconds, and `input` (a descriptor, such as a terminal's), once readable, wakes
    /// it to call `poll`, which is to read what is there. `poll` is asked only while connected
    /// (input typed meanwhile waits); an `input` that hangs up or fails is no longer watched.
    /// A watch made with a `connect` closure looks at `stop` every poll slice instead.
    public func run(stop: StopSignal, input: Int32? = nil, poll: () -> [PairingWatchAction] = { [] },
                    handle: (PairingWatchEvent) throws -> [PairingWatchAction]) throws {
        guard let session else { return try run(until: { stop.isStopped }, poll: poll, handle: handle) }
        try run(on: session.session, plan: session.plan, timeout: session.timeout, until: { stop.isStopped },
                wake: (stop, input), poll: poll, handle: handle)
    }

    /// The most session events that wait for the watch's thread (beyond it the oldest go; the
    /// pending list of the next connection covers what was lost).
    static let maxQueuedEvents = 4096

    /// ``run(until:poll:handle:)`` on a ``GatewaySession``: on each of its connections the
    /// pending requests are listed and reported (`connected`), then its pairing events; a lost
    /// connection is reported with the session's next delay; the session's end ends the watch.
    /// With `wake`, the watch sleeps until an event, the stop or its input (``run(stop:input:poll:handle:)``);
    /// without, it looks every poll slice.
    private func run(on session: GatewaySession, plan: OperatorPlan, timeout: Duration, until stopped: () -> Bool,
                     wake: (stop: StopSignal, input: Int32?)?,
                     poll: () -> [PairingWatchAction], handle: (PairingWatchEvent) throws -> [PairingWatchAction]) throws {
        let inbox = Inbox()
        let subscription = session.subscribe { event in inbox.append(event) }
        let stopWakeup = wake.map { (signal: $0.stop, wakeup: StopWakeup($0.stop)) }
        var input = wake?.input
        defer {
            subscription.cancel()
            session.stop()
        }
        session.start()
        var calls: OperatorSession?
        var connectedBefore = false
        /// Runs `body`; a call that failed because the connection went away waits for the next one.
        func onConnection(_ body: () throws -> Void) throws {
            do {
                try body()
            } catch let error as GatewayError where Self.isRetryable(error) || error == .cancelled {
                calls = nil
            }
        }
        while !stopped() {
            if let current = calls { try onConnection { for action in poll() { try perform(action, current, handle) } } }
            let events = inbox.take()
            if events.isEmpty {
                if let stopWakeup {
                    input = sleep(until: inbox, stopWakeup, input: input, watchingInput: calls != nil)
                } else {
                    clock.sleep(until: clock.now + configuration.pollSlice, unless: { stopped() || !inbox.isEmpty })
                }
                continue
            }
            for event in events {
                switch event {
                case .connected:
                    guard let connection = session.operatorCalls(plan: plan, timeout: timeout) else { continue }
                    // A refusal (a missing scope) ends the watch; a connection lost at once waits for the next.
                    try onConnection {
                        let pending = try connection.listDevices().sortedPending
                        pendingByDevice = [:]
                        for request in pending.reversed() { pendingByDevice[request.deviceId] = request.requestId }
                        calls = connection
                        for action in try handle(.connected(pending: pending, reconnect: connectedBefore)) {
                            try perform(action, connection, handle)
                        }
                        connectedBefore = true
                    }
                case .event(let event):
                    guard let connection = calls else { continue }
                    try onConnection { try report(event, connection, handle) }
                case .disconnected(let error, let retryIn):
                    calls = nil
                    if let retryIn { _ = try handle(.disconnected(error: error, retryIn: retryIn)) }
                case .ended(let error):
                    if let error { throw error }
                    return
                case .connecting, .tokenStored:
                    continue
                }
            }
        }
    }

    /// The session's events on their way to the watch's thread, and what wakes it when one comes.
    private final class Inbox: Sendable {
        private let state = Mutex<(events: [GatewaySessionEvent], arrived: StopSignal?)>(([], nil))

        /// Queues `event` (the oldest goes beyond ``PairingWatch/maxQueuedEvents``) and wakes the sleeper.
        func append(_ event: GatewaySessionEvent) {
            let arrived = state.withLock { state -> StopSignal? in
                if state.events.count >= PairingWatch.maxQueuedEvents { state.events.removeFirst() }
                state.events.append(event)
                return state.arrived
            }
            arrived?.stop()
        }

        /// The events queued so far, taken.
        func take() -> [GatewaySessionEvent] {
            state.withLock { state in
                defer { state.events.removeAll() }
                return state.events
            }
        }

        var isEmpty: Bool { state.withLock { $0.events.isEmpty } }

        /// A signal raised when an event comes (already raised when one is queued), until the next call.
        func arrival() -> StopSignal {
            let arrived = StopSignal()
            let queued = state.withLock { state -> Bool in
                state.arrived = arrived
                return !state.events.isEmpty
            }
            if queued { arrived.stop() }
            return arrived
        }
    }

    /// Sleeps in poll(2) until an event comes to `inbox`, `stopWakeup`'s signal is raised or,
    /// when `watchingInput`, `input` is readable; returns the input still to watch (nil once it
    /// hung up or failed). Without its wake-up pipes (out of descriptors) it looks again after a
    /// poll slice.
    private func sleep(until inbox: Inbox, _ stop: (signal: StopSignal, wakeup: StopWakeup), input: Int32?,
                       watchingInput: Bool) -> Int32? {
        let arrival = StopWakeup(inbox.arrival())
        var descriptors = [arrival.pollDescriptor, stop.wakeup.pollDescriptor].compactMap { $0 }
        let wakeups = descriptors.count
        let watched = watchingInput ? input : nil
        if let watched { descriptors.append(PollDescriptor(watched, .readable)) }
        let deadline = wakeups < 2 ? clock.now + configuration.pollSlice : nil
        guard (try? Poll.wait(&descriptors, until: deadline, clock: clock)) != nil else {
            clock.sleep(until: clock.now + configuration.pollSlice, unless: { stop.signal.isStopped || !inbox.isEmpty })  // poll(2) itself failed
            return input
        }
        if watched != nil, let last = descriptors.last, !last.ready.isDisjoint(with: [.hangup, .error]) { return nil }
        return input
    }

    /// One gateway event: interpreted, told to the handler, its actions performed.
    private func report(_ event: GatewayEvent, _ session: OperatorSession,
                        _ handle: (PairingWatchEvent) throws -> [PairingWatchAction]) throws {
        guard var reported = try Self.interpret(event) else { return }
        switch reported {
        case .requested(let request, _):
            let previous = pendingByDevice[request.deviceId]
            pendingByDevice[request.deviceId] = request.requestId
            reported = .requested(request, supersedes: previous == request.requestId ? nil : previous)
        case .resolved(let resolution):
            if let device = resolution.deviceId, pendingByDevice[device] == resolution.requestId { pendingByDevice[device] = nil }
        default:
            break
        }
        for action in try handle(reported) { try perform(action, session, handle) }
    }

    private func follow(_ session: OperatorSession, until stopped: () -> Bool, poll: () -> [PairingWatchAction],
                        handle: (PairingWatchEvent) throws -> [PairingWatchAction]) throws {
        while !stopped() {
            for action in poll() { try perform(action, session, handle) }
            guard let event = try session.nextEvent(timeout: configuration.pollSlice) else { continue }
            try report(event, session, handle)
        }
    }

    private func perform(_ action: PairingWatchAction, _ session: OperatorSession,
                         _ handle: (PairingWatchEvent) throws -> [PairingWatchAction]) throws {
        let result: Result<JSONValue, GatewayError>
        do {
            switch action {
            case .approve(let id): result = .success(try session.approveDevice(requestId: id).json)
            case .reject(let id): result = .success(try session.rejectDevice(requestId: id).json)
            }
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let json): _ = try handle(.acted(action, result: json))
        case .failure(let error):
            guard case .rpcFailed = error else { throw error }
            _ = try handle(.actionFailed(action, error: error))
        }
    }

    private func wait(after error: GatewayError, failures: Int, handle: (PairingWatchEvent) throws -> [PairingWatchAction],
                      stopped: () -> Bool) throws {
        let delays = configuration.backoff
        let delay = delays[min(max(0, failures - 1), delays.count - 1)]
        _ = try handle(.disconnected(error: error, retryIn: delay))
        clock.sleep(until: clock.now + delay, unless: stopped)
    }

    /// Whether reconnecting can help: the network, a timeout, a closed or stalled connection.
    public static func isRetryable(_ error: GatewayError) -> Bool {
        switch error {
        // A gateway still starting, and one that grants no operator access yet (an administrator
        // may grant it while the watch runs: upstream's clients keep retrying on OPERATOR_ACCESS_DENIED).
        case .unreachable, .timedOut, .stalled, .closed, .notConnected, .notGateway, .gatewayStarting, .operatorAccessDenied: return true
        default: return false
        }
    }

    /// The event as the watch reports it, or nil for events it skips.
    public static func interpret(_ event: GatewayEvent) throws(GatewayError) -> PairingWatchEvent? {
        guard eventNames.contains(event.name) else { return nil }
        let payload = event.payload ?? .object([])
        switch event.name {
        case "device.pair.requested":
            return .requested(try PendingRequest(json: payload, context: event.name), supersedes: nil)
        case "device.pair.resolved":
            return .resolved(try PairingResolution(json: payload, context: event.name))
        case "device.pair.setup.completed", "device.pair.setup.deliveryUncertain":
            return .setupCompleted(try SetupCompletion(json: payload, context: event.name),
                                   uncertain: event.name.hasSuffix("deliveryUncertain"))
        default:
            return .other(name: event.name, payload: event.payload.map(OperatorRecords.redactingTokens))
        }
    }
}

/// Non-interactive approval rules (say, role `node` from 10.0.0.0/8): a request is approved
/// only when every given rule holds.
public struct PairingAutoApproval: Sendable, Equatable {
    /// The role the request must ask for (its `role`, or every one of its `roles`).
    public var role: String?
    /// Networks the request's `remoteIp` must be in.
    public var networks: [IPNetwork]

    /// Rules: the role asked for (nil: any) and the networks the request must come from (empty: any).
    public init(role: String?, networks: [IPNetwork]) {
        self.role = role
        self.networks = networks
    }

    /// Whether no rule is set (then nothing is approved automatically).
    public var isEmpty: Bool { role == nil && networks.isEmpty }

    /// Whether `request` passes every rule; never for a repair or when no rule is set. Returns
    /// the reason it did not, for the log.
    public func check(_ request: PendingRequest) -> (approve: Bool, reason: String) {
        if isEmpty { return (false, "no approval rule") }
        if let role {
            let asked = request.roles ?? request.role.map { [$0] } ?? []
            guard !asked.isEmpty, asked.allSatisfy({ $0 == role }) else {
                return (false, "asks for role \(asked.isEmpty ? "-" : asked.joined(separator: ",")), not \(role)")
            }
        }
        if !networks.isEmpty {
            guard let text = request.remoteIp else { return (false, "no remote address") }
            guard networks.contains(where: { $0.contains(address: text) }) else {
                return (false, "address \(text) is outside \(networks.map(\.description).joined(separator: ","))")
            }
        }
        return (true, "matches " + ([role.map { "role \($0)" }].compactMap { $0 } + networks.map { "from \($0)" }).joined(separator: ", "))
    }
}

/// An IPv4 or IPv6 network in CIDR form (`10.0.0.0/8`, `fd00::/8`, or one address), over
/// ClawpairDNS's strict address parsers.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    enum Base: Sendable, Equatable {
        case v4(IPv4Address)
        case v6(IPv6Address)
    }

    let base: Base
    /// The prefix length in bits.
    public let prefixLength: Int

    /// Parses `a.b.c.d[/n]` or an IPv6 address `[/n]`; nil when it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let base = Self.address(String(parts[0])) else { return nil }
        let bits: Int
        switch base {
        case .v4: bits = 32
        case .v6: bits = 128
        }
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                  let length = Int(parts[1]), length <= bits else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.base = base
    }

    /// A readable form, for messages and logs.
    public var description: String {
        switch base {
        case .v4(let address): return "\(address)/\(prefixLength)"
        case .v6(let address): return "\(address)/\(prefixLength)"
        }
    }

    /// Whether the address in `text` (IPv4, IPv6 with an optional `%zone`, or IPv4-mapped
    /// IPv6 for an IPv4 network) is inside the network; false when it does not parse.
    public func contains(address text: String) -> Bool {
        guard let candidate = Self.address(text) else { return false }
        switch (base, candidate) {
        case (.v4(let network), .v4(let address)):
            return address.isIn(network, prefixLength: prefixLength)
        case (.v6(let network), .v6(let address)):
            return address.isIn(network, prefixLength: prefixLength)
        case (.v4(let network), .v6(let address)):
            // ::ffff:a.b.c.d, as a dual-stack socket reports an IPv4 peer.
            guard address.high == 0, address.low >> 32 == 0xFFFF else { return false }
            return IPv4Address(UInt32(truncatingIfNeeded: address.low)).isIn(network, prefixLength: prefixLength)
        case (.v6, .v4):
            return false
        }
    }

    private static func address(_ text: String) -> Base? {
        if let v4 = IPv4Address(text) { return .v4(v4) }
        let bare = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        return IPv6Address(bare).map(Base.v6)
    }
}

extension OperatorSession {
    /// Waits until the setup code `setupId` is used: polls `device.pair.setupStatus`
    /// every `pollEvery` and, between polls, takes `device.pair.setup.completed` /
    /// `.deliveryUncertain` events for this code when the connection delivers events. Returns
    /// the first completion, or — after `within` on `clock`, polled once more since the events
    /// are best effort — ``SetupStatus/outstanding``. `stopped` (asked at least every
    /// `pollEvery`) ends the wait early, also with `.outstanding`.
    public func waitForSetupUse(setupId: String, within: Duration, clock: any MonotonicClock = SystemMonotonicClock(),
                                pollEvery: Duration = .seconds(2), stopped: () -> Bool = { false }) throws(GatewayError) -> SetupStatus {
        let deadline = clock.now + max(.zero, within)
        let events = connection is any GatewayEventSource
        while true {
            let status = try setupStatus(setupId: setupId)
            if status != .outstanding || clock.now >= deadline || stopped() { return status }
            let nextPoll = min(deadline, clock.now + max(.milliseconds(100), pollEvery))
            while clock.now < nextPoll, !stopped() {
                guard events else {
                    clock.sleep(until: nextPoll, unless: stopped)
                    break
                }
                guard let event = try nextEvent(timeout: min(nextPoll - clock.now, .milliseconds(200))),
                      case .setupCompleted(let completion, let uncertain)? = try? PairingWatch.interpret(event),
                      completion.setupId == setupId else { continue }
                return uncertain ? .deliveryUncertain(completion) : .completed(completion)
            }
        }
    }
}
