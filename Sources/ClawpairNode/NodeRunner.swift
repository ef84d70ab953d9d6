// A node that stays online (`upstream-2026-10.md` §2.2–§2.3, §2.7): connect to the paired
// gateway as role `node` (``NodeClient``), run the ``NodeHostRuntime`` on each connection,
// reconnect, and find a moved gateway by its identity (``GatewayRelocator``).
//
//   routes (the record's URLs in order; the pin on wss://) → connect signed with this identity
//   and the stored node token → hello-ok → serve (the client's own watchdog closes after 2x the
//   tick interval of silence) → on loss: again after 250 ms doubling (upstream's node host
//   schedule) to 4 s (upstream: 30 s; see NodeRunnerOptions.maxDelay), at once after a 1012
//   close ("service restart"), reset after a hello-ok.
//
// On top of that:
// - after `relocateAfterFailures` failed attempts in a row (nothing answered), discovery runs on
//   a thread of its own while disconnected: a beacon at a known route triggers an attempt at
//   once; one at a new address is adopted (registry, under its lock) only after it proved it is
//   this gateway, and the next attempt goes there at once;
// - a certificate that no longer matches the pin is reported with the new fingerprint on each
//   attempt (never accepted), and a pin stored in the registry meanwhile is used without a restart;
// - `AUTH_DEVICE_TOKEN_MISMATCH` (or `AUTH_TOKEN_MISMATCH`: a node sends no credential but its
//   stored token) clears the stored node token and ends with `.tokenRevoked`; other refusals
//   that need someone to act end with `.failed`; a pending approval keeps retrying (≤ 30 s).
//
// The session of issue #21 (GatewaySession + ReconnectPolicy) can replace the connect/reconnect
// part; the public API here does not change with it.

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
    /// Failed attempts in a row before discovery starts.
    public var relocateAfterFailures: Int
    /// Called at least every 250 ms while the runner's loop is alive (a service's watchdog ping).
    public var heartbeat: (@Sendable () -> Void)?

    /// Options for a node answering `host`'s commands.
    public init(host: NodeHostConfiguration, caps: [String] = [], displayName: String,
                initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(4),
                connectTimeout: Duration = .seconds(10),
                discovery: GatewayBrowser.Options? = GatewayBrowser.Options(timeout: .milliseconds(1500)),
                relocateAfterFailures: Int = 1, heartbeat: (@Sendable () -> Void)? = nil) {
        self.host = host
        self.caps = caps
        self.displayName = displayName
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.connectTimeout = connectTimeout
        self.discovery = discovery
        self.relocateAfterFailures = relocateAfterFailures
        self.heartbeat = heartbeat
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
    private let hints = Mutex<(reconnect: Bool, searching: Bool, connected: Bool)>((false, false, false))

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
    public func stop() { stopFlag.store(true, ordering: .releasing) }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { stopFlag.load(ordering: .acquiring) }

    private var stopped: Bool { isStopped }

    /// The registry's current record (a new pin or routes stored meanwhile), else the last one known.
    private func current(_ last: PairedGateway) -> PairedGateway {
        registry.snapshot().gateway(id: gatewayID) ?? last
    }

    /// Runs until stopped or an end that needs someone to act; `onEvent` hears every state change
    /// (on this thread, or on the discovery thread for `.searching`, `.beaconSeen`, `.relocated`).
    public func run(onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) -> NodeRunnerEnd {
        let heartbeat = options.heartbeat ?? {}
        var record = initial
        var delay = options.initialDelay
        var attempt = 0
        var failures = 0
        defer { hints.withLock { $0.connected = true } }  // ends a search
        while !stopped {
            heartbeat()
            attempt += 1
            let fresh = current(record)
            if fresh.tlsFingerprint != record.tlsFingerprint { onEvent(.pinReloaded(fingerprint: fresh.tlsFingerprint)) }
            record = fresh
            hints.withLock { $0.reconnect = false }
            onEvent(.connecting(attempt: attempt, urls: record.urls))
            var retryAtOnce = false
            switch connect(record) {
            case .success(let (client, url)):
                attempt = 0
                failures = 0
                delay = options.initialDelay
                hints.withLock { $0.connected = true }
                onEvent(.connected(url: url, protocolVersion: client.hello?.protocolVersion ?? 0))
                // The answering route goes first; a node token the gateway reissued replaces the stored one.
                let reissued = [client.hello?.deviceToken].compactMap { $0 }.filter { $0.role == GatewayRole.node.rawValue }
                _ = try? registry.recordAnswer(id: record.id, url: url, nowMs: WallClock.nowMs(), reissued: reissued)
                let runtime = NodeHostRuntime(configuration: options.host, onEvent: { onEvent(.host($0)) })
                let end = runtime.serve(ClientNodeConnection(client), stopped: { heartbeat(); return self.stopped })
                let closeCode = client.closeStatus.map { $0.code.rawValue }
                client.close()
                hints.withLock { $0.connected = false }
                if end == .stopped { return .stopped }
                let error: GatewayError
                if case .lost(let reason) = end { error = Self.lostError(reason, closeCode: closeCode) } else { error = .notConnected }
                if Self.isTokenMismatch(error) { return revoke(record) }
                retryAtOnce = closeCode == 1012
                onEvent(.disconnected(error, retryIn: retryAtOnce ? .zero : delay))
            case .failure(let error):
                if stopped { return .stopped }
                if Self.isTokenMismatch(error) { return revoke(record) }
                if case .tlsTrust(let url, .pinMismatch(_, let observed)) = error {
                    onEvent(.certificateChanged(url: url, fingerprint: observed))
                } else if case .pairingRequired(let pairing) = error {
                    onEvent(.awaitingApproval(requestId: pairing.requestId))
                } else if Self.needsSomeoneToAct(error) {
                    onEvent(.disconnected(error, retryIn: nil))
                    return .failed(error)
                }
                failures += 1
                onEvent(.disconnected(error, retryIn: delay))
                if failures >= options.relocateAfterFailures, Self.mayRelocate(error), options.discovery != nil,
                   !GatewayRelocator.isLoopbackOnly(record) {
                    startSearch(record, onEvent: onEvent)
                }
            }
            if !retryAtOnce { wait(delay, heartbeat: heartbeat) }
            delay = min(delay * 2, options.maxDelay)
        }
        return .stopped
    }

    /// Waits `delay`, or less when stopped or a hint (beacon seen, gateway relocated) arrives.
    private func wait(_ delay: Duration, heartbeat: () -> Void) {
        let clock = SystemMonotonicClock()
        let deadline = clock.now + delay
        while !stopped, clock.now < deadline {
            heartbeat()
            if hints.withLock({ $0.reconnect }) { return }
            clock.sleep(until: min(deadline, clock.now + .milliseconds(50)), unless: { self.stopped })
        }
    }

    /// One attempt: the routes in order, the first that answers with hello-ok.
    private func connect(_ record: PairedGateway) -> Result<(GatewayClient, String), GatewayError> {
        guard let token = record.token(for: GatewayRole.node.rawValue, deviceId: identity.value.deviceId) else {
            return .failure(.authRejected(GatewayErrorShape(code: "AUTH_TOKEN_MISSING", message: "no node token is stored for this device",
                                                            details: ["code": "AUTH_DEVICE_TOKEN_MISMATCH"])))
        }
        let request = ConnectRequest(client: NodeClient.info(displayName: options.displayName), role: .node, scopes: [],
                                     caps: options.caps.sorted(), commands: options.host.commands.names,
                                     auth: ConnectAuth(token: token.token), payloadVersion: .v3)
        var last: GatewayError = .invalidURL(record.urls.first ?? "", reason: "the gateway record has no URL")
        for url in record.urls where !stopped {
            do throws(GatewayError) {
                var endpoint = try ClawpairGateway.GatewayEndpoint(parsing: url)
                if endpoint.tls { endpoint.pin = record.tlsFingerprint }
                let client = try GatewayClient(endpoint: endpoint, configuration: .clawpair(timeout: options.connectTimeout))
                do {
                    try client.open(timeout: options.connectTimeout)
                    _ = try client.connect(request, identity: identity.value, timeout: options.connectTimeout)
                    return .success((client, url))
                } catch {
                    client.close()
                    throw error
                }
            } catch {
                last = error
                // A refusal is the gateway's answer: other routes lead to the same gateway.
                if error.isRefusal || !Self.mayRelocate(error) && !Self.isTransport(error) { return .failure(error) }
            }
        }
        return .failure(last)
    }

    /// Starts discovery on a thread of its own unless a search runs; it ends once connected.
    private func startSearch(_ record: PairedGateway, onEvent: @escaping @Sendable (NodeRunnerEvent) -> Void) {
        guard hints.withLock({ state -> Bool in
            guard !state.searching else { return false }
            state.searching = true
            state.connected = false
            return true
        }) else { return }
        onEvent(.searching)
        let relocator = GatewayRelocator(registry: registry, identity: identity.value, discovery: options.discovery)
        BackgroundThread.detached {
            relocator.search(for: record, until: { self.stopped || self.hints.withLock { $0.connected } }) { found in
                switch found {
                case .knownRoute(let url): onEvent(.beaconSeen(url: url))
                case .moved(let url, let proof, _): onEvent(.relocated(url: url, proof: proof))
                }
                self.hints.withLock { $0.reconnect = true }
            }
            self.hints.withLock { $0.searching = false }
        }
    }

    /// Whether discovery may find the gateway elsewhere after `error`: nothing answered, or
    /// something that is not this gateway answered.
    static func mayRelocate(_ error: GatewayError) -> Bool {
        switch error {
        case .unreachable, .timedOut, .closed, .stalled, .notGateway: return true
        default: return false
        }
    }

    static func isTransport(_ error: GatewayError) -> Bool {
        switch error {
        case .invalidURL, .protocolViolation, .frameTooLarge, .notConnected: return true
        default: return false
        }
    }

    /// Refusals after which trying again cannot help until someone acts (a pending approval is
    /// not one: upstream keeps retrying at most every 30 s).
    static func needsSomeoneToAct(_ error: GatewayError) -> Bool {
        switch error {
        case .pairingRequired, .tlsTrust: return false
        case .protocolMismatch, .clientVersionMismatch: return true
        default: return error.isRefusal
        }
    }

    /// Whether the gateway no longer accepts the stored node token: `AUTH_DEVICE_TOKEN_MISMATCH`
    /// (upstream clears the token then), a 1008 "device token mismatch"/"revoked" close, or
    /// `AUTH_TOKEN_MISMATCH`: a node sends no credential but that stored token, so a mismatch
    /// can only be that token's.
    static func isTokenMismatch(_ error: GatewayError) -> Bool {
        switch error {
        case .authRejected(let shape), .deviceAuthRejected(let shape), .connectRejected(let shape):
            return ["AUTH_DEVICE_TOKEN_MISMATCH", "AUTH_TOKEN_MISMATCH"].contains(shape.detailCode ?? "")
        default:
            return false
        }
    }

    /// The connection's end as an error: its close (code, reason) when it closed.
    static func lostError(_ reason: String, closeCode: UInt16?) -> GatewayError {
        .closed(code: closeCode ?? 1006, reason: String(reason.prefix(200)), during: "the node session")
    }

    /// Removes the stored node token (upstream clears it on `AUTH_DEVICE_TOKEN_MISMATCH`).
    private func revoke(_ record: PairedGateway) -> NodeRunnerEnd {
        _ = try? registry.update(id: record.id) { gateway in
            gateway.tokens.removeAll { $0.role == GatewayRole.node.rawValue }
        }
        return .tokenRevoked
    }
}

/// A connected ``GatewayClient`` as the runtime sees it.
final class ClientNodeConnection: NodeGatewayConnection {
    let client: GatewayClient

    init(_ client: GatewayClient) { self.client = client }

    func nextEvent(timeout: Duration) throws(NodeConnectionFailure) -> NodeGatewayEvent? {
        do {
            guard let event = try client.nextEvent(timeout: timeout) else { return nil }
            return NodeGatewayEvent(name: event.name, payload: event.payload)
        } catch {
            throw .lost(reason: error.message)
        }
    }

    func request(_ method: String, params: JSONValue, timeout: Duration) throws(NodeConnectionFailure) -> JSONValue {
        do {
            return try client.call(method, params: params, timeout: timeout)
        } catch {
            if case .rpcFailed(_, let shape) = error { throw .refused(code: shape.code, message: shape.message) }
            throw .lost(reason: error.message)
        }
    }
}
