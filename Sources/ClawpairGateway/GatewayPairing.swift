#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairSetupCode
import ClawpairTransport

// Pairing this machine with a gateway from a setup code, as one call:
//
//   decode (the caller) → credential from the code → probe its routes → bootstrap connect with
//   the device identity → while the gateway answers NOT_PAIRED: wait for an operator (on the
//   refused socket when the gateway offers `waitForResolution`, else backing off 1 s, 2 s, … 5 s
//   between attempts, until `wait` runs out) → keep the issued token(s) → one registry transaction.
//
// Gateways since 2026.7 (`packages/gateway-protocol/src/connect-error-details.ts`, the Control
// UI's client in `ui/`) mark the pairing refusal `waitForResolution`, keep that socket open and
// push `device.pair.resolved {requestId, deviceId, decision}` to it: approved → connect again at
// once; rejected or expired → stop (``PairingError/rejected(requestId:reason:)``,
// ``PairingError/requestExpired(requestId:)``). A refusal whose detail code is
// `PAIRING_REJECTED` / `PAIRING_EXPIRED` means the same.
//
// The gateway, the network and time are injected (`PairingTransport`, `PairingClock`), so the
// waiting, rejection, expiry and superseded-request paths are tested without sockets or sleeps.
// The gateway's side (shared/spec/identity-and-handshake.md §8): an unknown device gets NOT_PAIRED
// with a pending requestId and the socket closes; a waiting node is told `wait_then_retry` and
// retries with the same identity, role and scopes; a retry that changes them supersedes the
// request (a new requestId); once rejected, the device's next connect is closed with 1008.

/// What a pairing run reports while it works, in order.
public enum PairingProgress: Sendable, Equatable {
    /// A route of the code answered; pairing connects there.
    case reachable(url: String)
    /// The gateway made a pairing request for this device; an operator must approve it.
    case pending(PairingRequired)
    /// Still pending, `elapsed` after the first pending answer (reported at most once per
    /// ``PairingOptions/progressInterval``, when a retry or a held socket's piece ends).
    case stillWaiting(elapsed: Duration, requestId: String?)
    /// The gateway answered with another request than the one pending (a new id).
    case superseded(PairingRequired)
    /// The connect succeeded: the device is paired (approved now or earlier).
    case approved(requestId: String?)
    /// The gateway refused the pending request; the run throws ``PairingError/rejected(requestId:reason:)``.
    case rejected(requestId: String?)
    /// `wait` ran out before an approval; the run throws ``PairingError/notApproved(requestId:waitedMs:)``.
    case expired(requestId: String?)
    /// Hand-off tokens were issued over plaintext to a host that is not local, and are not kept.
    case handoffTokensIgnored(count: Int)
}

/// Why pairing failed.
public enum PairingError: Error, Sendable, CustomStringConvertible {
    /// The setup code's `expiresAtMs` has passed.
    case codeExpired(expiresAtMs: Int64)
    /// The setup code has no bootstrap token, token or password (it only names a gateway).
    case noCredential
    /// No route of the code reached the gateway: each route's URL and failure.
    /// `trustFailure`: at least one failed TLS trust (pin or system roots); `untrustedFingerprint`:
    /// the SHA-256 of the first certificate that failed system trust without a pin (what a user
    /// who checked it passes as ``PairingOptions/pin``).
    case noRoute(failures: [(url: String, reason: String)], trustFailure: Bool, untrustedFingerprint: String? = nil)
    /// The request was still pending when `wait` ran out.
    case notApproved(requestId: String?, waitedMs: Int64)
    /// The request was rejected: `device.pair.resolved` said so (`reason` empty), the refusal
    /// carried `PAIRING_REJECTED`, or the gateway closed the connection while the request was
    /// pending (1008, `reason` its close reason).
    case rejected(requestId: String?, reason: String)
    /// The pending request expired on the gateway before an operator decided.
    case requestExpired(requestId: String?)
    /// Talking to the gateway failed otherwise.
    case gateway(GatewayError)
    /// The probe could not be set up.
    case transport(TransportError)
    /// The device identity could not be loaded or created (the provider's error).
    case identity(any Error)
    /// The registry transaction failed; nothing was stored.
    case registry(GatewayRegistryError)

    /// What failed, in one sentence.
    public var message: String {
        switch self {
        case .codeExpired(let ms): return "the setup code expired \(WallClock.iso8601(ms: ms) ?? "")"
        case .noCredential: return "the setup code carries no bootstrap token, token or password"
        case .noRoute(let failures, _, _):
            return "no route of the setup code reached the gateway (\(failures.map { "\($0.url): \($0.reason)" }.joined(separator: "; ")))"
        case .notApproved(let id, let waitedMs):
            return "pairing request \(id.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "") was not approved within \(DurationText.describe(milliseconds: waitedMs))"
        case .rejected(let id, let reason):
            if reason.isEmpty { return "pairing request \(GatewayError.describe(requestId: id)) was rejected on the gateway" }
            return "the gateway closed the connection: \(TerminalText.sanitize(reason, maxScalars: 200))"
        case .requestExpired(let id):
            return "pairing request \(GatewayError.describe(requestId: id)) expired on the gateway before an operator approved it"
        case .gateway(let error): return error.message
        case .transport(let error): return error.message
        case .identity(let error): return (error as? any ClawpairError)?.message ?? "\(error)"
        case .registry(let error): return error.message
        }
    }

    public var description: String { message }
}

/// The outcome of a pairing.
public struct PairingResult: Sendable, Equatable {
    /// The registry record as stored.
    public var gateway: PairedGateway
    /// The URL the pairing connected to.
    public var url: String
    /// The device id the tokens were issued to.
    public var deviceId: String
    /// The device token for the role asked for.
    public var token: StoredDeviceToken
    /// Every token stored: `token` and the hand-off tokens kept.
    public var tokens: [StoredDeviceToken]
    /// The pending request that was approved, when the gateway did not approve at once.
    public var requestId: String?
    /// Whether this gateway became the selected one (no gateway was selected before).
    public var becameActive: Bool
    /// A node paired with a gateway that approves a node's commands as a second step (2026.7+:
    /// its hello-ok lists methods but no longer `node.pair.request`); unless the setup code's
    /// enrollment approved them, an operator still has to (`node.pair.approve`).
    public var commandApprovalFollows = false

    /// `{"ok": true, "gateway": {id, name, urls, tlsFingerprint}, "deviceId", "role", "scopes",
    /// "url", "requestId", "tokens": [{role, scopes}]}`: no token value.
    public var json: JSONValue {
        .object([
            ("ok", true),
            ("gateway", .object([("id", .string(gateway.id)), ("name", .string(gateway.name)),
                                 ("urls", .array(gateway.urls.map(JSONValue.string))),
                                 ("tlsFingerprint", gateway.tlsFingerprint.map(JSONValue.string) ?? .null)])),
            ("deviceId", .string(deviceId)), ("role", .string(token.role)),
            ("scopes", .array(token.scopes.map(JSONValue.string))), ("url", .string(url)),
            ("requestId", requestId.map(JSONValue.string) ?? .null),
            ("tokens", .array(tokens.map { .object([("role", .string($0.role)), ("scopes", .array($0.scopes.map(JSONValue.string)))]) })),
        ])
    }
}

/// What to pair as, and how long to try.
public struct PairingOptions: Sendable, Equatable {
    /// Node (default: client node-host) or operator (client cli with the scopes a setup code hands off).
    public var role: GatewayRole
    /// This device's display name on the gateway.
    public var deviceName: String
    /// The registry name for the gateway (default: its host without `.local`, made unique).
    public var gatewayName: String?
    /// How long to wait for an operator's approval (0: give up at the first pending answer; at
    /// most ``GatewayPairing/maxWait``).
    public var wait: Duration
    /// Limit for the probe and for each connection attempt.
    public var timeout: Duration
    /// Also dial ws:// routes to hosts that need wss://.
    public var allowInsecure: Bool
    /// The connect payload to sign (v3 binds platform and device family).
    public var payloadVersion: ConnectPayloadVersion
    /// `client.version` of the connect request.
    public var clientVersion: String
    /// `client.platform` of the connect request, e.g. `Linux 6.8.0`.
    public var platform: String
    /// How often a long wait reports ``PairingProgress/stillWaiting(elapsed:requestId:)``, and
    /// the longest piece a held socket waits before asking again (default 30 s, at least 1 s).
    public var progressInterval: Duration = .seconds(30)
    /// A TLS pin the user checked (`--trust` / `--tls-fingerprint`): the SHA-256 fingerprint,
    /// normalized, that every wss:// route without a pin of its own must match instead of the
    /// system roots (the setup code's pin stays on its primary route, as `clawpair probe` does:
    /// ``ProbeCandidates/applyPin(_:source:to:)``). Nil: the code's pin, else the system roots.
    public var pin: String? = nil

    /// Options with the command line's defaults: 5 minutes of waiting, 10 s per attempt.
    public init(role: GatewayRole = .node, deviceName: String, gatewayName: String? = nil, wait: Duration = .seconds(300),
                timeout: Duration = .seconds(10), allowInsecure: Bool = false, payloadVersion: ConnectPayloadVersion = .v2,
                clientVersion: String = ClawpairVersion.current, platform: String = "Linux") {
        self.role = role
        self.deviceName = deviceName
        self.gatewayName = gatewayName
        self.wait = wait
        self.timeout = timeout
        self.allowInsecure = allowInsecure
        self.payloadVersion = payloadVersion
        self.clientVersion = clientVersion
        self.platform = platform
    }
}

/// A hello-ok and what the connection showed of the gateway.
public struct PairingHello: Sendable, Equatable {
    /// The gateway's hello-ok.
    public var hello: HelloOK
    /// The SHA-256 fingerprint of the gateway's certificate, on a TLS connection.
    public var certificateFingerprint: String?

    /// A hello with the certificate fingerprint seen (nil without TLS).
    public init(hello: HelloOK, certificateFingerprint: String? = nil) {
        self.hello = hello
        self.certificateFingerprint = certificateFingerprint
    }
}

/// One connect attempt's outcome: paired, or pending (with the gateway's decision when it held
/// the socket and pushed `device.pair.resolved` in time).
public enum PairingAttempt: Sendable, Equatable {
    /// hello-ok.
    case paired(PairingHello)
    /// Pairing required; `decision` is nil when the gateway did not decide while the socket was held.
    case pending(PairingRequired, decision: PairingDecision?)
}

/// How pairing reaches the gateway. ``NetworkPairingTransport`` dials it; tests answer in-process.
public protocol PairingTransport {
    /// Races `routes` as `clawpair probe` does and reports which answered.
    func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport
    /// One bootstrap attempt: connects to `endpoint`, sends `request` signed by `identity`,
    /// closes. A pending device gets ``GatewayError/pairingRequired(_:)``.
    func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                 timeout: Duration) throws(GatewayError) -> PairingHello
    /// One attempt that, when the gateway answers pairing-required with `waitForResolution`,
    /// waits on that socket up to `resolutionWait` for its decision; `pending` hears the
    /// pairing-required answer as soon as it arrives (before the wait). The default calls
    /// ``connect(_:to:identity:timeout:)`` and never waits.
    func attempt(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity, timeout: Duration,
                 resolutionWait: Duration, pending: (PairingRequired) -> Void) throws(GatewayError) -> PairingAttempt
}

extension PairingTransport {
    public func attempt(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity, timeout: Duration,
                        resolutionWait: Duration, pending: (PairingRequired) -> Void) throws(GatewayError) -> PairingAttempt {
        do {
            return .paired(try connect(request, to: endpoint, identity: identity, timeout: timeout))
        } catch {
            guard case .pairingRequired(let pairing) = error else { throw error }
            pending(pairing)
            return .pending(pairing, decision: nil)
        }
    }
}

/// The real network: ClawpairProbe's `Prober`, then a `GatewayClient` per attempt.
public struct NetworkPairingTransport: PairingTransport {
    /// The client configuration of each attempt.
    public var configuration: GatewayClientConfiguration
    /// Ends the probe and any attempt (with its held socket) soon after it is raised.
    public var stop: StopSignal?

    /// A transport whose attempts use `configuration` and end when `stop` is raised.
    public init(configuration: GatewayClientConfiguration = GatewayClientConfiguration(), stop: StopSignal? = nil) {
        self.configuration = configuration
        self.stop = stop
    }

    public func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport {
        try Prober.run(routes: routes, configuration: configuration, stop: stop)
    }

    public func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                        timeout: Duration) throws(GatewayError) -> PairingHello {
        let session = try GatewayClient(endpoint: endpoint, configuration: configuration, stop: stop)
        defer { session.close() }
        try session.open(timeout: timeout)
        let hello = try session.connect(request, identity: identity, timeout: timeout)
        return PairingHello(hello: hello, certificateFingerprint: session.certificate?.fingerprint)
    }

    public func attempt(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity, timeout: Duration,
                        resolutionWait: Duration, pending: (PairingRequired) -> Void) throws(GatewayError) -> PairingAttempt {
        let session = try GatewayClient(endpoint: endpoint, configuration: configuration, stop: stop)
        defer { session.close() }
        try session.open(timeout: timeout)
        do {
            let hello = try session.connect(request, identity: identity, timeout: timeout, holdForResolution: resolutionWait > .zero)
            return .paired(PairingHello(hello: hello, certificateFingerprint: session.certificate?.fingerprint))
        } catch {
            guard case .pairingRequired(let pairing) = error else { throw error }
            pending(pairing)
            guard pairing.waitForResolution, resolutionWait > .zero else { return .pending(pairing, decision: nil) }
            return .pending(pairing, decision: session.awaitPairingResolution(pairing, timeout: resolutionWait))
        }
    }
}

/// Time for the approval wait: the monotonic clock that measures it and sleeps between
/// attempts, plus the wall clock for the code's expiry and the record's timestamps.
public protocol PairingClock: MonotonicClock {
    /// Epoch milliseconds.
    var wallClockMs: Int64 { get }
}

/// The system's clocks (``SystemMonotonicClock`` between attempts).
public struct SystemPairingClock: PairingClock {
    private let fixedWallClockMs: Int64?
    private let monotonic = SystemMonotonicClock()

    /// The system clocks; `wallClockMs` pins the wall clock (the command line's `CLAWPAIR_NOW_MS`).
    public init(wallClockMs: Int64? = nil) {
        fixedWallClockMs = wallClockMs
    }

    public var now: Monotonic.Instant { monotonic.now }
    public var wallClockMs: Int64 { fixedWallClockMs ?? WallClock.nowMs() }

    public func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
        monotonic.sleep(until: deadline, unless: stopped)
    }
}

/// Pairs this machine with the gateway of a decoded setup code and stores the issued device
/// token(s) in the registry:
///
/// ```swift
/// let setup = try SetupCode.parse(text)
/// let pairing = GatewayPairing(setup: setup, options: PairingOptions(deviceName: "kitchen-pi"),
///                              registry: GatewayRegistry(home: home))
/// let result = try pairing.run(identity: identity) { print($0) }
/// ```
public struct GatewayPairing {
    /// The first wait between attempts; each later one is a second longer, up to ``maxBackoff``.
    public static let firstBackoff: Duration = .seconds(1)
    /// The longest wait between attempts.
    public static let maxBackoff: Duration = .seconds(5)
    /// `wait` is clamped to 0…this (a day), so a huge value cannot wrap the deadline around.
    public static let maxWait: Duration = .seconds(86_400)

    /// The decoded setup code.
    public let setup: DecodedSetup
    /// What to pair as.
    public var options: PairingOptions
    /// Where the tokens go.
    public let registry: GatewayRegistry
    /// How the gateway is reached.
    public var transport: any PairingTransport
    /// Time.
    public var clock: any PairingClock
    /// Stops the run from any thread: it returns soon after with ``PairingError/gateway(_:)``
    /// wrapping ``GatewayError/cancelled`` (code `cancelled`), storing nothing. Give the same
    /// signal to ``NetworkPairingTransport/stop`` so a connect in flight ends too.
    public var stop: StopSignal?

    /// A pairing of `setup` with `options`, stored in `registry`.
    public init(setup: DecodedSetup, options: PairingOptions, registry: GatewayRegistry,
                transport: any PairingTransport = NetworkPairingTransport(), clock: any PairingClock = SystemPairingClock()) {
        self.setup = setup
        self.options = options
        self.registry = registry
        self.transport = transport
        self.clock = clock
    }

    /// The credential the code carries: its bootstrap token, else its token, else its password.
    public var credential: ConnectAuth? { Self.credential(of: setup) }

    /// The credential `setup` carries (nil for a code or URL that only names a gateway, which
    /// is no secret).
    public static func credential(of setup: DecodedSetup) -> ConnectAuth? {
        if let bootstrap = setup.bootstrapToken { return ConnectAuth(bootstrapToken: bootstrap) }
        if let token = setup.token { return ConnectAuth(token: token) }
        if let password = setup.password { return ConnectAuth(password: password) }
        return nil
    }

    /// The connect request pairing sends: node-host as a node; cli as an operator with the
    /// bootstrap scopes (and `operator.questions` for a G4 code).
    public func connectRequest(auth: ConnectAuth) -> ConnectRequest {
        let client: GatewayClientInfo = options.role == .node
            ? .nodeHost(version: options.clientVersion, platform: options.platform, displayName: options.deviceName)
            : .operatorCLI(version: options.clientVersion, platform: options.platform, displayName: options.deviceName)
        var scopes: [String] = []
        if options.role == .operator {
            scopes = ConnectRequest.bootstrapOperatorScopes
            if setup.generation == .g4 { scopes.append("operator.questions") }
        }
        return ConnectRequest(client: client, role: options.role, scopes: scopes, auth: auth, payloadVersion: options.payloadVersion)
    }

    /// Pairs with `identity`.
    public func run(identity: DeviceIdentity, progress: (PairingProgress) -> Void = { _ in }) throws(PairingError) -> PairingResult {
        try run(identity: { identity }, progress: progress)
    }

    /// Pairs, asking `identity` for the device identity once a route answered (so none is
    /// created for a gateway that cannot be reached). `progress` hears each step.
    public func run(identity: () throws -> DeviceIdentity, progress: (PairingProgress) -> Void = { _ in }) throws(PairingError) -> PairingResult {
        if setup.isExpired(nowMs: clock.wallClockMs) { throw .codeExpired(expiresAtMs: setup.expiresAtMs ?? 0) }
        guard let auth = credential else { throw .noCredential }

        // 1. Which route answers?
        let report: ProbeReport
        do {
            var routes = ProbeCandidates.routes(of: setup, codeIndex: 0)
            if let pin = options.pin { ProbeCandidates.applyPin(pin, source: .trust, to: &routes) }
            report = try transport.probe(routes,
                                         configuration: ProbeConfiguration(timeout: options.timeout, allowInsecure: options.allowInsecure))
        } catch {
            if stop?.isStopped == true || error == .cancelled { throw .gateway(.cancelled) }
            throw .transport(error)
        }
        try stop?.check(or: PairingError.gateway(.cancelled))
        guard let winner = report.winningResult else {
            let untrusted = report.results.lazy.compactMap { result -> String? in
                if case .tlsUntrusted(let observed?, _)? = result.failure { return observed }
                return nil
            }.first
            throw .noRoute(failures: report.results.map { ($0.route.url, $0.failure?.message ?? "no answer") },
                           trustFailure: report.results.contains { $0.failure?.isTrustFailure == true },
                           untrustedFingerprint: untrusted)
        }
        var endpoint = GatewayEndpoint(route: winner.route)
        if let address = winner.address { endpoint.knownAddresses = [address.ip] }
        progress(.reachable(url: endpoint.url))

        // 2. Connect with the code's credential until approved.
        let device: DeviceIdentity
        do {
            device = try identity()
        } catch {
            throw .identity(error)
        }
        let (answer, requestId) = try waitForApproval(connectRequest(auth: auth), endpoint: endpoint, identity: device, progress: progress)

        // 3. Keep the token(s).
        guard let token = answer.hello.deviceToken else {
            throw .gateway(.protocolViolation("hello-ok carries no device token"))
        }
        var issued = [token]
        let handoff = answer.hello.handoffTokens
        if Self.keepsHandoffTokens(bootstrap: setup.bootstrapToken != nil, endpoint: endpoint) {
            issued += handoff.filter { $0.role != token.role }
        } else if !handoff.isEmpty {
            progress(.handoffTokensIgnored(count: handoff.count))
        }
        let (record, becameActive) = try commit(issued, endpoint: endpoint, deviceId: device.deviceId,
                                                certificateFingerprint: answer.certificateFingerprint)
        var result = PairingResult(gateway: record, url: endpoint.url, deviceId: device.deviceId, token: token, tokens: issued,
                                   requestId: requestId, becameActive: becameActive)
        let methods = answer.hello.methods
        result.commandApprovalFollows = options.role == .node && !methods.isEmpty && !methods.contains("node.pair.request")
        return result
    }

    /// Hand-off tokens are kept only from a bootstrap connect over wss://, or over ws:// to a
    /// loopback or local-network host (as the iOS app does).
    public static func keepsHandoffTokens(bootstrap: Bool, endpoint: GatewayEndpoint) -> Bool {
        bootstrap && (endpoint.tls || endpoint.allowsPlaintext)
    }

    /// Connects until the gateway answers with hello-ok, the request is rejected or expires, or
    /// `wait` runs out; returns the hello and the last pending request id.
    private func waitForApproval(_ request: ConnectRequest, endpoint: GatewayEndpoint, identity: DeviceIdentity,
                                 progress: (PairingProgress) -> Void) throws(PairingError) -> (PairingHello, String?) {
        let wait = min(max(options.wait, .zero), Self.maxWait)
        let start = clock.now
        let deadline = start + wait
        let interval = max(options.progressInterval, .seconds(1))
        var pending: PairingRequired?
        var firstPending = start
        var reported = start
        var backoff = Self.firstBackoff
        while true {
            try stop?.check(or: PairingError.gateway(.cancelled))
            let pairing: PairingRequired
            let decision: PairingDecision?
            let before = clock.now
            let held = min(max(deadline - before, .zero), interval)
            do {
                let attempt = try transport.attempt(request, to: endpoint, identity: identity, timeout: options.timeout,
                                                    resolutionWait: held) { answer in
                    if let previous = pending {
                        if previous.requestId != answer.requestId {
                            progress(.superseded(answer))
                        } else if clock.now - reported >= interval {
                            reported = clock.now
                            progress(.stillWaiting(elapsed: clock.now - firstPending, requestId: answer.requestId))
                        }
                    } else {
                        firstPending = clock.now
                        reported = clock.now
                        progress(.pending(answer))
                    }
                    pending = answer
                }
                switch attempt {
                case .paired(let answer):
                    progress(.approved(requestId: pending?.requestId))
                    return (answer, pending?.requestId)
                case .pending(let answer, let resolved):
                    (pairing, decision) = (answer, resolved)
                }
            } catch {
                if stop?.isStopped == true { throw .gateway(.cancelled) }
                switch error {
                case .pairingRejected(let id):
                    progress(.rejected(requestId: id ?? pending?.requestId))
                    throw .rejected(requestId: id ?? pending?.requestId, reason: "")
                case .pairingExpired(let id):
                    throw .requestExpired(requestId: id ?? pending?.requestId)
                case .closed(let code, let reason, _) where pending != nil && code == 1008:
                    // A rejected request: the gateway refuses the device until it asks again.
                    progress(.rejected(requestId: pending?.requestId))
                    throw .rejected(requestId: pending?.requestId, reason: reason)
                default:
                    throw .gateway(error)
                }
            }
            pending = pairing
            try stop?.check(or: PairingError.gateway(.cancelled))
            switch decision {
            case .approved?:
                backoff = Self.firstBackoff
                continue  // connect again at once: this one gets hello-ok
            case .rejected?:
                progress(.rejected(requestId: pairing.requestId))
                throw .rejected(requestId: pairing.requestId, reason: "")
            case .expired?:
                throw .requestExpired(requestId: pairing.requestId)
            case nil:
                break
            }
            if clock.now >= deadline {
                progress(.expired(requestId: pairing.requestId))
                throw .notApproved(requestId: pairing.requestId, waitedMs: Self.milliseconds(wait))
            }
            if pairing.waitForResolution, held > .zero, clock.now - before >= held {
                continue  // the gateway held the socket for the whole piece: ask again at once
            }
            guard clock.now + backoff < deadline else {
                progress(.expired(requestId: pairing.requestId))
                throw .notApproved(requestId: pairing.requestId, waitedMs: Self.milliseconds(wait))
            }
            if let stop {
                if stop.sleep(until: clock.now + backoff, clock: clock) { throw .gateway(.cancelled) }
            } else {
                clock.sleep(for: backoff)
            }
            backoff = min(backoff + .seconds(1), Self.maxBackoff)
        }
    }

    /// One registry transaction: the record of a gateway with one of these URLs (or a new one),
    /// the URL that worked first, the pin, the tokens; selected when no gateway is.
    private func commit(_ issued: [StoredDeviceToken], endpoint: GatewayEndpoint, deviceId: String,
                        certificateFingerprint: String?) throws(PairingError) -> (PairedGateway, Bool) {
        var urls = [endpoint.url]
        for other in setup.endpoints.map(\.url) where !urls.contains(other) { urls.append(other) }
        let nowMs = clock.wallClockMs
        do {
            return try registry.update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) -> (PairedGateway, Bool) in
                var record: PairedGateway
                let current = snapshot
                if let existing = urls.lazy.compactMap({ current.gateway(url: $0) }).first {
                    record = existing
                } else {
                    let base = endpoint.host.hasSuffix(".local") ? String(endpoint.host.dropLast(6)) : endpoint.host
                    record = PairedGateway(name: snapshot.uniqueName(base), urls: urls, deviceId: deviceId, pairedAtMs: nowMs)
                }
                if record.deviceId != deviceId {
                    record.tokens = []
                    record.deviceId = deviceId
                }
                for url in urls.reversed() { record.urls.removeAll { $0 == url }; record.urls.insert(url, at: 0) }
                if endpoint.tls { record.tlsFingerprint = endpoint.pin ?? certificateFingerprint }
                for entry in issued { record.store(entry) }
                record.lastSeenAtMs = nowMs
                if let name = options.gatewayName { record.name = name }
                record.deviceName = options.deviceName
                try snapshot.save(record)
                let becameActive = snapshot.activeID == nil
                if becameActive { snapshot.activeID = record.id }
                return (record, becameActive)
            }
        } catch {
            throw .registry(error)
        }
    }

    /// Whole milliseconds of a duration within 0…``maxWait`` (such as a progress report's `elapsed`).
    public static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

@available(*, unavailable)
extension GatewayPairing: Sendable {}
