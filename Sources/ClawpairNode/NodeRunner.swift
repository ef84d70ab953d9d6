// A node that stays online (`upstream-2026-10.md` §2.2–§2.3, §2.7): a ``GatewaySession`` to the
// paired gateway as role `node` (client ``NodeClient``), the ``NodeHostRuntime`` on each of its
// connections, and finding a moved gateway by its identity (``GatewayRelocator``).
//
// The session does the connecting: routes (raced when several; the pin on wss://) → connect
// signed with this identity and the stored node token, offering protocol 4…4 and 3…3 on a
// legacy gateway's PROTOCOL_MISMATCH → hello-ok → the tick watch (2x the tick interval of
// silence closes with 4000) and pings → on loss its ``ReconnectPolicy``: again after 250 ms
// doubling (upstream's node host schedule) to 4 s (upstream: 30 s; see
// NodeRunnerOptions.maxDelay), at once after a 1012 close ("service restart"), reset after a
// hello-ok; 1 s apart while a device approval is pending. The runner decides on top of it:
// - from the loss of the connection (or after `relocateAfterFailures` failed attempts in a row),
//   discovery watches without pause on a thread of its own while disconnected, beside the
//   session's attempts: a gateway that moved is found while the first attempt still waits on
//   its vanished routes. Each (re)appearance of the beacon at a known route makes the session
//   reconnect at once, abandoning its wait or the attempt under way (except the attempt right
//   after the loss, which is trying those routes already: a beacon still listed then says
//   nothing new); a failed attempt makes the watch forget what it reported, so a beacon still
//   listed, or back with the same records, counts again at the watch's next run. A beacon at a
//   new address is adopted (registry, under its lock) only after it proved it is this gateway,
//   and the session abandons the attempt in flight and goes there at once (it re-reads the
//   record before each attempt; several routes are raced, the new one first);
// - a certificate that no longer matches the pin is reported with the new fingerprint on each
//   attempt (never accepted), and a pin stored in the registry meanwhile is used without a restart;
// - a refused node token (`AUTH_DEVICE_TOKEN_MISMATCH`; the session clears it from the registry)
//   ends with `.tokenRevoked`; other refusals that need someone to act end with `.failed`;
// - stop closes the connection with 1000.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairBrowse
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import Synchronization

/// What a ``NodeRunner`` declares and how it stays online.
public struct NodeRunnerOptions: Sendable {
    /// The commands and the per-connection behaviour.
    public var host: NodeHostConfiguration
    /// `connect.caps`.
    public var caps: [String]
    /// The display name the node declares.
    public var displayName: String
    /// The first delay before reconnecting (upstream: 250 ms), doubled after each failure.
    public var initialDelay: Duration
    /// The longest delay. Default 4 s, so a node is back within 5 s of its gateway answering
    /// again (issue #22's goal); upstream's node host waits up to 30 s. One attempt is a TCP
    /// connect to the gateway's routes: cheap at that rate.
    public var maxDelay: Duration
    /// How long one connection attempt may take.
    public var connectTimeout: Duration
    /// Discovery used to find a moved gateway; `nil`: no relocation.
    public var discovery: GatewayBrowser.Options?
    /// Failed attempts in a row before discovery starts; 0 (the default): at the loss of the
    /// connection, beside the first attempt, so a gateway that moved is found while that attempt
    /// still waits on its vanished routes (it may take the whole ``connectTimeout``).
    public var relocateAfterFailures: Int
    /// Called at least every 250 ms while the runner's loop is alive (a service's watchdog ping).
    public var heartbeat: (@Sendable () -> Void)?
    /// The steady delay between attempts while the gateway holds this device's pairing request
    /// (device approval pending): 1 s, so the node is online within a second of the approval.
    public var approvalRetryDelay: Duration
    /// How often, while connected, the node asks `node.list` for its own command-surface
    /// `approvalState` (pending-approval or pending-reapproval: its commands wait for an operator)
    /// until it reads approved. Only possible when this machine also holds an operator token for
    /// the gateway (a node's own role cannot call `node.list`); nil: never asked.
    public var commandApprovalCheck: Duration?

    /// Options for a node answering `host`'s commands.
    public init(host: NodeHostConfiguration, caps: [String] = [], displayName: String,
                initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4),
                connectTimeout: Duration = .seconds(10),
                discovery: GatewayBrowser.Options? = GatewayBrowser.Options(timeout: .milliseconds(1500)),
                relocateAfterFailures: Int = 0, heartbeat: (@Sendable () -> Void)? = nil,
                approvalRetryDelay: Duration = .seconds(1), commandApprovalCheck: Duration? = .seconds(5)) {
        self.host = host
        self.caps = caps
        self.displayName = displayName
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.connectTimeout = connectTimeout
        self.discovery = discovery
        self.relocateAfterFailures = relocateAfterFailures
        self.heartbeat = heartbeat
        self.approvalRetryDelay = approvalRetryDelay
        self.commandApprovalCheck = commandApprovalCheck
    }

    /// The session the runner holds: role `node`, this node's client block, caps and commands,
    /// upstream's node protocol negotiation, the reconnect policy above, and a 1000 close on stop.
    public func sessionOptions() -> GatewaySessionOptions {
        let policy = ReconnectPolicy(initialDelay: initialDelay, maxDelay: maxDelay, multiplier: 2, jitter: 0, stableAfter: .zero,
                                     approvalRetryDelay: approvalRetryDelay, retriesChangedCertificate: true)
        return GatewaySessionOptions(role: .node, client: NodeClient.info(displayName: displayName), scopes: [], caps: caps.sorted(),
                                     commands: host.commands.names, connectTimeout: connectTimeout, reconnect: policy,
                                     connection: .clawpair(timeout: connectTimeout), negotiation: .newestThenLegacy,
                                     stopCloseCode: 1000)
    }
}

/// A state change of a running node, for one log line each.
public enum NodeRunnerEvent: Sendable {
    /// An attempt starts over these routes.
    case connecting(attempt: Int, urls: [String])
    /// hello-ok from `url` at protocol `protocolVersion`.
    case connected(url: String, protocolVersion: Int64)
    /// The gateway waits for an operator to approve this device (`requestId`).
    case awaitingApproval(requestId: String?)
    /// The connection or attempt ended with `error`; the next attempt follows after `retryIn`.
    case disconnected(GatewayError, retryIn: Duration?)
    /// The gateway presented a certificate other than the pinned one (never accepted).
    case certificateChanged(url: String, fingerprint: String)
    /// A pin stored in the registry meanwhile is used from now on.
    case pinReloaded(fingerprint: String?)
    /// Discovery started looking for the gateway.
    case searching
    /// The gateway's beacon is (again) at a known route: reconnecting now.
    case beaconSeen(url: String)
    /// The gateway was found at `url` (proved by `proof`) and the registry's routes were updated.
    case relocated(url: String, proof: GatewayIdentityProof)
    /// The gateway holds this node's command surface (its declared commands) for an operator's
    /// approval: a `node.pair.requested` about this node (`requestId`: the node request to
    /// approve). Until approved, the node is online with no effective commands.
    case commandsAwaitingApproval(requestId: String?)
    /// An operator approved the command surface: a `node.pair.resolved` about this node with
    /// decision `approved` (what upstream's node host acts on, `src/node-host/runner.ts`).
    case commandsApproved(requestId: String?)
    /// Something the runtime did on the connection.
    case host(NodeHostEvent)
}

/// How a ``NodeRunner`` ended.
public enum NodeRunnerEnd: Sendable, Equatable {
    /// Stopped from outside (the connection closed with 1000).
    case stopped
    /// The gateway refused the node token; it was removed from the registry.
    case tokenRevoked
    /// Ended for good: a refusal that needs someone to act.
    case failed(GatewayError)
}

/// Keeps this machine online as a node of one paired gateway.
///
/// ```swift
/// var commands = NodeCommandSet(NodeBuiltinCommands.commands(NodeBuiltinCommands.defaultNames, facts: facts, hostName: name))
/// commands.add(NodeCommand("myapp.ping") { _ in ["pong": true] })
/// let runner = NodeRunner(gateway: record, registry: registry, identity: identity,
///                         options: NodeRunnerOptions(host: NodeHostConfiguration(commands: commands), displayName: name))
/// let end = runner.run { event in print(event) }
/// ```
public final class NodeRunner: Sendable {
    private let gatewayID: String
    private let initial: PairedGateway
    private let registry: GatewayRegistry
    private let identity: IdentityReference
    /// The options.
    public let options: NodeRunnerOptions
    private let stopFlag = Atomic<Bool>(false)
    private let session = Mutex<GatewaySession?>(nil)
    private let bridge = NodeSessionBridge()
    /// Connection state for the relocation decisions (the session thread writes it, the search reads it).
    private let hints = Mutex<Hints>(Hints())

    private struct Hints {
        /// The running discovery watch: its stop (raised once connected, on stop, at the end) and
        /// its relocator (told to forget its reports when an attempt failed).
        var search: (stop: StopSignal, relocator: GatewayRelocator)?
        var connected = false
        /// Whether the attempt that just ended had reached hello-ok.
        var servedSinceLastLoss = false
        var failures = 0
        var pin: String?
        /// Whether the command surface was last seen pending (nil: nothing seen).
        var commandsPending: Bool?
        /// Whether a node.list check runs.
        var checking = false
        /// Whether the session ended.
        var ended = false
    }

    /// A runner for the registry record `gateway`, signed by `identity`.
    public init(gateway: PairedGateway, registry: GatewayRegistry, identity: DeviceIdentity, options: NodeRunnerOptions) {
        gatewayID = gateway.id
        initial = gateway
        self.registry = registry
        self.identity = IdentityReference(identity)
        self.options = options
    }

    /// Ends the run from any thread: it returns within about 250 ms (an attempt in progress
    /// first ends), the connection closed with 1000.
    public func stop() {
        stopFlag.store(true, ordering: .releasing)
        hints.withLock { $0.search?.stop }?.stop()
        session.withLock { $0 }?.stop()
        bridge.interrupt()
    }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { stopFlag.load(ordering: .acquiring) }

    /// Runs until stopped or an end that needs someone to act; `onEvent` hears every state change
    /// (on the session's thread, on this one for the runtime's `.host` events, or on the
    /// discovery thread for `.searching`, `.beaconSeen`, `.relocated`).
    public func run(onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) -> NodeRunnerEnd {
        let heartbeat = options.heartbeat ?? {}
        let record = registry.snapshot().gateway(id: gatewayID) ?? initial
        let session: GatewaySession
        do {
            session = try GatewaySession(gateway: record, registry: registry, identity: identity.value, options: options.sessionOptions())
        } catch {
            // No node token is stored for this device: nothing to connect with.
            return .tokenRevoked
        }
        hints.withLock { $0.pin = record.tlsFingerprint }
        self.session.withLock { $0 = session }
        defer {
            // Ends a search.
            hints.withLock { hints -> StopSignal? in
                hints.connected = true
                return hints.search?.stop
            }?.stop()
        }
        if isStopped { session.stop() }
        session.start { [self] event in handle(event, session: session, onEvent: onEvent) }
        var generation = 0
        while true {
            heartbeat()
            switch bridge.next(after: generation, until: Monotonic.now + .milliseconds(250)) {
            case .idle:
                continue
            case .ended(let error):
                return Self.end(error)
            case .connected(let current):
                generation = current
                let runtime = NodeHostRuntime(configuration: options.host, onEvent: { onEvent(.host($0)) })
                let connection = SessionNodeConnection(bridge: bridge, session: session, generation: current)
                _ = runtime.serve(connection, stopped: { [bridge] in
                    heartbeat()
                    return self.isStopped || bridge.isLost(current)
                })
            }
        }
    }

    /// How the session's end reads for the caller.
    static func end(_ error: GatewayError?) -> NodeRunnerEnd {
        switch error {
        case nil, .cancelled?: return .stopped
        case .deviceTokenRevoked?: return .tokenRevoked
        case let error?: return .failed(error)
        }
    }

    /// A session event, on the session's thread: the node's state changes, the runtime's
    /// connection, the relocation decisions.
    private func handle(_ event: GatewaySessionEvent, session: GatewaySession, onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) {
        switch event {
        case .connecting(let attempt, let urls):
            let pin = session.record.tlsFingerprint
            let changed = hints.withLock { hints -> Bool in
                defer { hints.pin = pin }
                return hints.pin != pin
            }
            if changed { onEvent(.pinReloaded(fingerprint: pin)) }
            onEvent(.connecting(attempt: attempt, urls: urls))
        case .connected(let url, let hello):
            let search = hints.withLock { hints -> StopSignal? in
                hints.connected = true
                hints.servedSinceLastLoss = true
                hints.failures = 0
                return hints.search?.stop
            }
            search?.stop()
            onEvent(.connected(url: url, protocolVersion: hello.protocolVersion))
            bridge.connected()
            startApprovalCheck(session.record, onEvent: onEvent)
        case .event(let event):
            if let approval = Self.commandApproval(event, nodeId: identity.value.deviceId) {
                commandSurface(pending: approval.pending, requestId: approval.requestId, onEvent: onEvent)
                return
            }
            bridge.push(NodeGatewayEvent(name: event.name, payload: event.payload))
        case .tokenStored:
            break
        case .disconnected(let error, let retryIn):
            bridge.lost()
            let (served, failures) = hints.withLock { hints -> (Bool, Int) in
                defer { hints.servedSinceLastLoss = false }
                hints.connected = false
                // A connection that got hello-ok and then ended is not a failed attempt.
                if !hints.servedSinceLastLoss { hints.failures += 1 }
                return (hints.servedSinceLastLoss, hints.failures)
            }
            // A refused token: the end says it (and the session cleared it).
            if case .deviceTokenRevoked = error { return }
            if case .tlsTrust(let url, .pinMismatch(_, let observed)) = error {
                onEvent(.certificateChanged(url: url, fingerprint: observed))
            } else if case .pairingRequired(let pairing) = error {
                onEvent(.awaitingApproval(requestId: pairing.requestId))
            }
            onEvent(.disconnected(error, retryIn: retryIn))
            // A failed attempt: what the watch reported may have been stale, or may come back unchanged.
            if !served { hints.withLock { $0.search?.relocator }?.forgetReportedBeacons() }
            let record = session.record
            if Self.searches(after: error, retryIn: retryIn, failuresInARow: failures, threshold: options.relocateAfterFailures),
               options.discovery != nil, !GatewayRelocator.isLoopbackOnly(record) {
                startSearch(record, session: session, onEvent: onEvent)
            }
        case .ended(let error):
            hints.withLock { $0.ended = true }
            bridge.end(error)
        }
    }

    /// Reports a change of the command surface's state: pending (each time it becomes so), or
    /// approved after it was seen pending (an approved surface seen first says nothing).
    private func commandSurface(pending: Bool, requestId: String?, onEvent: @Sendable (NodeRunnerEvent) -> Void) {
        let previous = hints.withLock { hints -> Bool? in
            defer { hints.commandsPending = pending }
            return hints.commandsPending
        }
        if pending, previous != true { onEvent(.commandsAwaitingApproval(requestId: requestId)) }
        if !pending, previous == true { onEvent(.commandsApproved(requestId: requestId)) }
    }

    /// While connected: asks `node.list`, over an operator session with this machine's stored
    /// operator token, for this node's `approvalState` every ``NodeRunnerOptions/commandApprovalCheck``
    /// until it reads approved (or anything but pending), the connection ends or the runner stops.
    /// Without an operator token, or when the gateway refuses the call, nothing is said.
    private func startApprovalCheck(_ record: PairedGateway, onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) {
        let deviceId = identity.value.deviceId
        guard let interval = options.commandApprovalCheck, record.token(for: GatewayRole.operator.rawValue, deviceId: deviceId) != nil,
              hints.withLock({ hints -> Bool in
                  defer { hints.checking = true }
                  return !hints.checking
              }) else { return }
        let options = GatewaySessionOptions(role: .operator, connectTimeout: self.options.connectTimeout,
                                            reconnect: ReconnectPolicy(maxConsecutiveFailures: 1),
                                            connection: .clawpair(timeout: self.options.connectTimeout))
        let registry = registry, identity = identity.value, timeout = self.options.host.requestTimeout
        BackgroundThread.detached {
            defer { self.hints.withLock { $0.checking = false } }
            guard let operatorSession = try? GatewaySession(gateway: record, registry: registry, identity: identity, options: options)
            else { return }
            operatorSession.start()
            defer { operatorSession.stop() }
            let connected = { !self.isStopped && self.hints.withLock { $0.connected && !$0.ended } }
            while connected() {
                guard let list = try? operatorSession.call("node.list", params: .object([]), timeout: timeout),
                      let state = Self.approvalState(list, nodeId: deviceId) else { return }
                guard state.pending else {
                    self.commandSurface(pending: false, requestId: nil, onEvent: onEvent)
                    return
                }
                var requestId = state.requestId
                if requestId == nil, let pairing = try? operatorSession.call("node.pair.list", params: .object([]), timeout: timeout) {
                    requestId = Self.pendingRequestId(pairing, nodeId: deviceId)
                }
                self.commandSurface(pending: true, requestId: requestId, onEvent: onEvent)
                let until = Monotonic.now + interval
                while connected(), Monotonic.now < until { SystemMonotonicClock().sleep(until: min(until, Monotonic.now + .milliseconds(100)),
                                                                                          unless: { !connected() }) }
            }
        }
    }

    /// This node's entry in a `node.list` answer: whether its command surface waits for an
    /// operator (`approvalState` pending-approval or pending-reapproval; `packages/gateway-protocol`
    /// built d.ts, `upstream-2026-10.md` §1.7) and the request to approve when the entry names it;
    /// nil when the node is not listed or its state is neither pending nor approved.
    static func approvalState(_ list: JSONValue, nodeId: String) -> (pending: Bool, requestId: String?)? {
        guard let nodes = try? NodeList(json: list).nodes, let node = nodes.first(where: { $0.nodeId == nodeId }) else { return nil }
        switch node.approvalState {
        case "pending-approval", "pending-reapproval": return (true, node.pendingRequestId.map { String($0.prefix(128)) })
        case "approved": return (false, nil)
        default: return nil
        }
    }

    /// The id of this node's pending request in a `node.pair.list` answer, if any.
    static func pendingRequestId(_ list: JSONValue, nodeId: String) -> String? {
        guard let pending = try? NodePairingList(json: list).pending else { return nil }
        return pending.first { $0.nodeId == nodeId }.map { String($0.requestId.prefix(128)) }
    }

    /// Whether discovery starts after an attempt or a connection ended with `error`: the session
    /// tries again (`retryIn`), nothing answered or something that is not this gateway did
    /// (``mayRelocate(_:)``), and `failuresInARow` (0 for a connection lost after hello-ok)
    /// reached `threshold`.
    static func searches(after error: GatewayError, retryIn: Duration?, failuresInARow: Int, threshold: Int) -> Bool {
        retryIn != nil && failuresInARow >= threshold && mayRelocate(error)
    }

    /// Starts watching discovery on a thread of its own unless a watch runs; it ends once
    /// connected. Each (re)appearance of the gateway's beacon at a known route, and each move
    /// it proves, ends the session's wait or the attempt under way at once (``GatewaySession/reconnectNow()``):
    /// the attempt it starts re-reads the record, the new route first.
    private func startSearch(_ record: PairedGateway, session: GatewaySession,
                             onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) {
        // A watch still winding down after the last connect (its stop raised) does not count.
        guard let (stop, relocator) = hints.withLock({ state -> (StopSignal, GatewayRelocator)? in
            guard state.search?.stop.isStopped ?? true, !state.connected else { return nil }
            let search = (stop: StopSignal(),
                          relocator: GatewayRelocator(registry: registry, identity: identity.value, discovery: options.discovery))
            state.search = search
            return search
        }) else { return }
        if isStopped { stop.stop() }
        onEvent(.searching)
        BackgroundThread.detached {
            Self.watch(relocator, for: record, stop: stop, session: session, connected: { self.hints.withLock { $0.connected } },
                       retryingAfterLoss: { self.hints.withLock { !$0.connected && $0.failures == 0 } }, onEvent: onEvent)
            self.hints.withLock { if $0.search?.stop === stop { $0.search = nil } }
        }
    }

    /// The watch of a search: reports each find and makes `session` reconnect at once while
    /// not `connected()`, until `stop`. While `retryingAfterLoss()` (the attempt right after a lost
    /// connection is under way, no attempt failed since), a beacon at a known route is passed
    /// over: that attempt is trying those routes already, and the beacon may be the one listed
    /// before the loss (the watch reports it again once an attempt failed).
    static func watch(_ relocator: GatewayRelocator, for record: PairedGateway, stop: StopSignal, session: GatewaySession,
                      connected: @escaping @Sendable () -> Bool, retryingAfterLoss: @escaping @Sendable () -> Bool = { false },
                      onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) {
        relocator.watch(for: record, stop: stop) { found in
            switch found {
            case .knownRoute(let url):
                if retryingAfterLoss() { return }
                onEvent(.beaconSeen(url: url))
            case .moved(let url, let proof, _): onEvent(.relocated(url: url, proof: proof))
            }
            // The session re-reads the record (new routes) before the attempt it starts now.
            if !connected() { session.reconnectNow() }
        }
    }

    /// What `event` says about the command surface of node `nodeId` (for a signed node, its
    /// deviceId): pending (`node.pair.requested` for it) or approved (`node.pair.resolved` for
    /// it with decision `approved`); nil for anything else. Payloads as
    /// `packages/gateway-protocol/src/schema/nodes.ts` (`requestId`, `nodeId`, `decision`).
    static func commandApproval(_ event: GatewayEvent, nodeId: String) -> (pending: Bool, requestId: String?)? {
        guard event.name == "node.pair.requested" || event.name == "node.pair.resolved",
              event.payload?["nodeId"]?.stringValue == nodeId else { return nil }
        // The gateway's text: bounded here, sanitized where it is shown.
        let requestId = event.payload?["requestId"]?.stringValue.flatMap { $0.isEmpty ? nil : String($0.prefix(128)) }
        if event.name == "node.pair.requested" { return (true, requestId) }
        return event.payload?["decision"]?.stringValue == "approved" ? (false, requestId) : nil
    }

    /// Whether discovery may find the gateway elsewhere after `error`: nothing answered, or
    /// something that is not this gateway answered.
    static func mayRelocate(_ error: GatewayError) -> Bool {
        switch error {
        case .unreachable, .timedOut, .closed, .stalled, .notGateway: return true
        default: return false
        }
    }

    /// Refusals after which trying again cannot help until someone acts (a pending approval and
    /// a changed certificate are not: the node keeps retrying). The session decides with the
    /// same rule (``ReconnectPolicy/retriesChangedCertificate`` set).
    static func needsSomeoneToAct(_ error: GatewayError) -> Bool {
        switch error {
        case .pairingRequired, .tlsTrust: return false
        case .protocolMismatch, .clientVersionMismatch: return true
        default: return error.isRefusal
        }
    }

    /// Whether the gateway no longer accepts the stored node token: what the session clears the
    /// token on and ends with ``GatewayError/deviceTokenRevoked(role:detail:)``
    /// (`AUTH_DEVICE_TOKEN_MISMATCH`, or `AUTH_TOKEN_MISMATCH`: a node sends no credential but
    /// its stored token, so a mismatch can only be that token's).
    static func isTokenMismatch(_ error: GatewayError) -> Bool {
        switch error {
        case .deviceTokenRevoked: return true
        case .authRejected(let shape), .deviceAuthRejected(let shape), .connectRejected(let shape):
            return ["AUTH_DEVICE_TOKEN_MISMATCH", "AUTH_TOKEN_MISMATCH"].contains(shape.detailCode ?? "")
        default:
            return false
        }
    }
}
