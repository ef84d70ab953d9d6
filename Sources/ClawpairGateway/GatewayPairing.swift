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
//   refused socket when the gateway offers `waitForResolution`, else connecting again at a steady
//   jittered ~1 s, with a last attempt when `wait` runs out) → keep the issued token(s) → one
//   registry transaction.
//
// Upstream offers the held socket only to clients that send the cap `device-pairing-wait`, and
// documents it for Control UI operator clients (`docs/gateway/protocol/auth.md`); a node
// bootstrap gets no push and keeps reconnecting with the same bootstrap token (`wait_then_retry`,
// `pauseReconnect: false`, same doc). So clawpair sends the cap when it pairs as an operator (a
// gateway that does not hold its socket closes it as before), never in a node's caps (those
// are the node's declared capabilities), and otherwise retries about once a second: an approval
// is noticed within about a second instead of after a 1, 2, … 5 s backoff.
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
    /// Still pending after an attempt, `elapsed` after the first pending answer, with `left` of
    /// the wait to go: after every attempt, for a live status line (the reminders are
    /// ``stillWaiting(elapsed:requestId:)``).
    case waiting(elapsed: Duration, left: Duration, requestId: String?)
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

    /// A readable form, for messages and logs.
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
    /// Whether this gateway became the selected one (no gateway was selected before, or
    /// ``PairingOptions/makeDefault`` asked for it).
    public var becameActive: Bool
    /// How the gateway proved it is the existing record's gateway that was updated; nil when a
    /// new record was made (see ``GatewayIdentityProof``).
    public var identityProof: GatewayIdentityProof?
    /// The default gateway that stays the default (nil when this one is, or none is set).
    public var previousDefault: String?
    /// Other records that list the answered URL but whose gateway it did not prove to be:
    /// left unchanged (a gateway that moved, or another one now at that address).
    public var sharingRoute: [String] = []
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
            ("updatedRecord", .bool(identityProof != nil)), ("proof", identityProof?.json ?? .null),
            ("isDefault", .bool(previousDefault == nil)), ("previousDefault", previousDefault.map(JSONValue.string) ?? .null),
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
    /// The connect payload to sign: v3 (binds platform and device family; upstream's preferred
    /// payload) unless a program asks for v2.
    public var payloadVersion: ConnectPayloadVersion
    /// `client.version` of the connect request.
    public var clientVersion: String
    /// `client.platform` of the connect request: ``GatewayClientInfo/linuxPlatform`` unless a
    /// program has a reason to differ (gateways pin it: a change needs approval again).
    public var platform: String
    /// How often a long wait reports ``PairingProgress/stillWaiting(elapsed:requestId:)``, and
    /// the longest piece a held socket waits before asking again (default 30 s, at least 1 s).
    public var progressInterval: Duration = .seconds(30)
    /// A TLS pin the user checked: the SHA-256 fingerprint,
    /// normalized, that every wss:// route without a pin of its own must match instead of the
    /// system roots (the setup code's pin stays on its primary route, as in a probe:
    /// ``ProbeCandidates/applyPin(_:source:to:)``). Nil: the code's pin, else the system roots.
    public var pin: String? = nil
    /// Make the paired gateway the default for commands that name none even when another one
    /// is (the default otherwise changes only when none is set).
    public var makeDefault = false

    /// Options with the command line's defaults: 5 minutes of waiting, 10 s per attempt.
    public init(role: GatewayRole = .node, deviceName: String, gatewayName: String? = nil, wait: Duration = .seconds(300),
                timeout: Duration = .seconds(10), allowInsecure: Bool = false, payloadVersion: ConnectPayloadVersion = .v3,
                clientVersion: String = ClawpairVersion.current, platform: String = GatewayClientInfo.linuxPlatform) {
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
    /// Races `routes` (as ClawpairProbe's ``Prober`` does) and reports which answered.
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
    /// Connects once and reports pairing-required as a pending attempt (never waiting for the decision on the socket).
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

    /// Races `routes` with ClawpairProbe's ``Prober``.
    public func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport {
        try Prober.run(routes: routes, configuration: configuration, stop: stop)
    }

    /// Opens a ``GatewayClient`` to `endpoint` and connects with `request`, signed by `identity`, within `timeout`.
    public func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                        timeout: Duration) throws(GatewayError) -> PairingHello {
        let stopped = { [stop] in stop?.isStopped ?? false }
        do {
            return try GatewayStartupRetry.run(within: timeout, stopped: stopped) { () throws(GatewayError) -> PairingHello in
                let session = try GatewayClient(endpoint: endpoint, configuration: configuration, stop: stop)
                defer { session.close() }
                try session.open(timeout: timeout)
                let hello = try session.connect(request, identity: identity, timeout: timeout)
                return PairingHello(hello: hello, certificateFingerprint: session.certificate?.fingerprint)
            }
        } catch {
            // A stop during the wait for a starting gateway ends the attempt as a stop, not as its last answer.
            if stopped() { throw .cancelled }
            throw error
        }
    }

    /// Connects once; when the gateway answers pairing-required with `waitForResolution`, waits on that socket up to `resolutionWait` for the decision.
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

    /// The monotonic clock's reading.
    public var now: Monotonic.Instant { monotonic.now }
    /// The wall clock, in ms since the epoch (fixed when the clock was made with one).
    public var wallClockMs: Int64 { fixedWallClockMs ?? WallClock.nowMs() }

    /// Sleeps until `deadline`, waking early when `stopped` returns true.
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
    /// The pause between attempts while a request is pending and the gateway does not hold the
    /// socket: about a second, plus ``retryJitter``.
    public static let retryInterval: Duration = .seconds(1)
    /// The most ``retryJitterSource`` may move one pause either way (so many waiting devices do
    /// not reconnect in step).
    public static let retryJitter: Duration = .milliseconds(200)
    /// The client cap that asks the gateway to hold a refused pairing connect open and push its
    /// decision (`device.pair.resolved`), as upstream's clients declare it.
    public static let pairingWaitCap = "device-pairing-wait"
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
    /// The jitter of each pause between attempts, in -1…1 of ``retryJitter`` (random by default;
    /// tests pass a fixed sequence).
    public var retryJitterSource: @Sendable () -> Double = { Double.random(in: -1...1) }

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
        return ConnectRequest(client: client, role: options.role, scopes: scopes,
                              caps: options.role == .operator ? [Self.pairingWaitCap] : [], auth: auth,
                              payloadVersion: options.payloadVersion)
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
            var routes = ProbeCandidates.routes(of: setup)
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

        // 3. Keep the token(s), when they are fit to keep (names, sizes: nothing is stored otherwise).
        guard let token = answer.hello.deviceToken else {
            throw .gateway(.protocolViolation("hello-ok carries no device token"))
        }
        if let problem = answer.hello.grantProblem { throw .gateway(.protocolViolation(problem)) }
        var issued = [token]
        let handoff = answer.hello.handoffTokens
        if Self.keepsHandoffTokens(bootstrap: setup.bootstrapToken != nil, endpoint: endpoint) {
            issued += handoff.filter { $0.role != token.role }
        } else if !handoff.isEmpty {
            progress(.handoffTokensIgnored(count: handoff.count))
        }
        let committed = try commit(issued, endpoint: endpoint, device: device, certificateFingerprint: answer.certificateFingerprint)
        var result = PairingResult(gateway: committed.record, url: endpoint.url, deviceId: device.deviceId, token: token, tokens: issued,
                                   requestId: requestId, becameActive: committed.becameActive)
        result.identityProof = committed.proof
        result.previousDefault = committed.previousDefault
        result.sharingRoute = committed.sharingRoute
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
    /// `wait` runs out; returns the hello and the last pending request id. One loop: an attempt
    /// (held up to a progress interval when the gateway holds the socket), then its outcome,
    /// then a pause of about ``retryInterval`` (never past the deadline, so the last attempt is
    /// made when the wait runs out, not a backoff step earlier).
    private func waitForApproval(_ request: ConnectRequest, endpoint: GatewayEndpoint, identity: DeviceIdentity,
                                 progress: (PairingProgress) -> Void) throws(PairingError) -> (PairingHello, String?) {
        let wait = min(max(options.wait, .zero), Self.maxWait)
        let start = clock.now
        let deadline = start + wait
        let interval = max(options.progressInterval, .seconds(1))
        var pending: PairingRequired?
        var firstPending = start
        var reported = start
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
            case .approved?, .superseded?:
                continue  // connect again at once: approved gets hello-ok, superseded follows the new request
            case .rejected?:
                progress(.rejected(requestId: pairing.requestId))
                throw .rejected(requestId: pairing.requestId, reason: "")
            case .expired?:
                throw .requestExpired(requestId: pairing.requestId)
            case nil:
                break
            }
            let now = clock.now
            guard now < deadline else {
                progress(.expired(requestId: pairing.requestId))
                throw .notApproved(requestId: pairing.requestId, waitedMs: Self.milliseconds(now - start))
            }
            progress(.waiting(elapsed: now - firstPending, left: deadline - now, requestId: pairing.requestId))
            if pairing.waitForResolution, held > .zero, now - before >= held {
                continue  // the gateway held the socket for the whole piece: ask again at once
            }
            let jitter = min(max(retryJitterSource(), -1), 1)
            let pause = Self.retryInterval + Self.retryJitter * jitter
            let wakeAt = min(now + pause, deadline)
            if let stop {
                if stop.sleep(until: wakeAt, clock: clock) { throw .gateway(.cancelled) }
            } else {
                clock.sleep(until: wakeAt, unless: { false })
            }
        }
    }

    /// What the registry transaction of a pairing did.
    struct Committed {
        var record: PairedGateway
        var becameActive: Bool
        var proof: GatewayIdentityProof?
        var previousDefault: String?
        var sharingRoute: [String]
    }

    /// The record this pairing's answer belongs to, proved without the lock: a pin match or a
    /// reissued stored token (nothing sent), else, for a record that already has the answered
    /// URL and holds a token for this device, a connect there with that token
    /// (``PairedGateway/proveIdentity(at:identity:timeout:transport:)``).
    private func provedRecord(_ issued: [StoredDeviceToken], endpoint: GatewayEndpoint, device: DeviceIdentity,
                              observed: String?) -> (id: String, proof: GatewayIdentityProof)? {
        let snapshot = registry.snapshot()
        if let (record, proof) = snapshot.record(provedBy: observed, issued: issued, deviceId: device.deviceId) {
            return (record.id, proof)
        }
        for record in snapshot.gateways where record.matches(url: endpoint.url) && record.holdsTokens(for: device.deviceId) {
            if record.tlsFingerprint != nil, endpoint.tls { continue }  // a pinned record is proved by its pin alone
            if let proof = record.proveIdentity(at: endpoint, identity: device, timeout: options.timeout, transport: transport) {
                return (record.id, proof)
            }
        }
        return nil
    }

    /// One registry transaction. The answered route joins an existing record only when the
    /// gateway proved it is that record's gateway (``GatewayIdentityProof``); then only that
    /// route is added (first), the pin is kept, and the new tokens are stored. Otherwise a new
    /// record is made with the answered route first and the code's other URLs that no other
    /// record has; no other record's routes or pin change. The default gateway changes only when
    /// none is set or ``PairingOptions/makeDefault`` asks for it.
    private func commit(_ issued: [StoredDeviceToken], endpoint: GatewayEndpoint, device: DeviceIdentity,
                        certificateFingerprint: String?) throws(PairingError) -> Committed {
        let deviceId = device.deviceId
        let observed = endpoint.tls ? (certificateFingerprint ?? endpoint.pin)?.lowercased() : nil
        let proved = provedRecord(issued, endpoint: endpoint, device: device, observed: observed)
        let nowMs = clock.wallClockMs
        do {
            return try registry.update { (snapshot: inout RegistrySnapshot) throws(GatewayRegistryError) -> Committed in
                var record: PairedGateway
                var proof: GatewayIdentityProof?
                if let proved, let existing = snapshot.gateway(id: proved.id) {
                    record = existing
                    proof = proved.proof
                    record.urls.removeAll { PairedGateway.canonical($0) == PairedGateway.canonical(endpoint.url) }
                    record.urls.insert(endpoint.url, at: 0)
                    if record.tlsFingerprint == nil, let observed { record.tlsFingerprint = observed }
                } else {
                    let others = snapshot.gateways
                    var urls = [endpoint.url]
                    for other in setup.endpoints.map(\.url) where !urls.contains(other) && !others.contains(where: { $0.matches(url: other) }) {
                        urls.append(other)
                    }
                    let base = endpoint.host.hasSuffix(".local") ? String(endpoint.host.dropLast(6)) : endpoint.host
                    record = PairedGateway(name: snapshot.uniqueName(base), urls: urls, tlsFingerprint: observed, deviceId: deviceId,
                                           pairedAtMs: nowMs)
                }
                if record.deviceId != deviceId {
                    record.tokens = []
                    record.deviceId = deviceId
                }
                for entry in issued { record.store(entry) }
                record.lastSeenAtMs = nowMs
                if let name = options.gatewayName { record.name = name }
                record.deviceName = options.deviceName
                try snapshot.save(record)
                let previous = snapshot.active
                let becameActive = previous == nil || (options.makeDefault && previous?.id != record.id)
                if becameActive { snapshot.activeID = record.id }
                let recordID = record.id
                let sharing = snapshot.gateways.filter { $0.id != recordID && $0.matches(url: endpoint.url) }.map(\.name)
                return Committed(record: record, becameActive: becameActive, proof: proof,
                                 previousDefault: becameActive ? nil : previous.flatMap { $0.id == recordID ? nil : $0.name },
                                 sharingRoute: sharing)
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
