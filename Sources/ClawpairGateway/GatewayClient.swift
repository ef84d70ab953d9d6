// A gateway connection with a blocking API for command-line use, driven by one `EventLoop` on
// the caller's thread: TCP (Happy Eyeballs) → TLS with the pin check → WebSocket upgrade →
// `connect.challenge` → signed `connect` → hello-ok → RPCs and events.
//
// Each blocking call runs the loop until its answer arrives, the connection fails, or its own
// deadline passes; nothing runs between calls. After hello-ok a watchdog closes the connection
// when the gateway is silent for more than twice its tick interval (`identity-and-handshake.md`
// §4). Messages are capped at 64 KiB before `connect` succeeds and after it at hello-ok's
// `policy.maxPayload` or the configuration's ceiling (2 MiB by default), whichever is smaller.
// A message over its limit fails with ``GatewayError/frameTooLarge(size:limit:)`` naming the limit
// that applied (``GatewayMessageLimit``); a control frame over RFC 6455's 125 bytes likewise.
//
// Silence has one rule: until the gateway has spoken (`connect.challenge`), running out of time
// at any step (TCP, TLS, upgrade, challenge) is ``GatewayError/unreachable(url:phase:reason:)``;
// after it, a missing answer is ``GatewayError/timedOut(what:after:)`` and a silent session
// ``GatewayError/stalled(silentFor:tickInterval:)``.

import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairTransport
import ClawpairWebSocket

/// An event from the gateway (other than `tick`).
public struct GatewayEvent: Sendable, Equatable {
    /// The event's name (`device.pair.requested`, …).
    public var name: String
    /// The event's payload, if any.
    public var payload: JSONValue?
    /// The gateway's sequence number for the event, if any.
    public var seq: Int64?

    /// An event.
    public init(name: String, payload: JSONValue?, seq: Int64?) {
        self.name = name
        self.payload = payload
        self.seq = seq
    }
}

/// Settings of a ``GatewayClient``.
public struct GatewayClientConfiguration: Sendable {
    /// How long to wait for `connect.challenge` after the upgrade (the Swift apps wait 6 s).
    public var challengeTimeout: Duration
    /// `User-Agent` of the upgrade request.
    public var userAgent: String
    /// Connection racing over the host's addresses.
    public var happyEyeballs: HappyEyeballsConfiguration
    /// Events kept until read; older ones are dropped beyond this.
    public var maxQueuedEvents: Int
    /// Bytes of event messages kept until read; older events are dropped beyond this.
    public var maxQueuedEventBytes: Int
    /// The largest message accepted after hello-ok, whatever the gateway announces.
    public var maxPayloadCeiling: Int

    /// 2 MiB: a parsed message takes several times its size in memory (a 20 MB device list
    /// peaked at 176 MB), so this keeps a command under 64 MB whatever the gateway sends; a
    /// device list of this size has some ten thousand entries.
    public static let defaultMaxPayloadCeiling = 2 << 20
    /// 1 MiB of unread events.
    public static let defaultMaxQueuedEventBytes = 1 << 20

    /// A configuration; the defaults suit a gateway on the LAN.
    public init(challengeTimeout: Duration = .seconds(6), userAgent: String = "clawpair",
                happyEyeballs: HappyEyeballsConfiguration = HappyEyeballsConfiguration(), maxQueuedEvents: Int = 1024,
                maxQueuedEventBytes: Int = GatewayClientConfiguration.defaultMaxQueuedEventBytes,
                maxPayloadCeiling: Int = GatewayClientConfiguration.defaultMaxPayloadCeiling) {
        self.challengeTimeout = challengeTimeout
        self.userAgent = userAgent
        self.happyEyeballs = happyEyeballs
        self.maxQueuedEvents = maxQueuedEvents
        self.maxQueuedEventBytes = maxQueuedEventBytes
        self.maxPayloadCeiling = maxPayloadCeiling
    }
}

/// One connection to a gateway. Confined to the thread that created it.
public final class GatewayClient {
    private enum Phase: Equatable {
        case idle, dialing, tls, upgrading, awaitingChallenge, ready, connecting, open, finished
        /// `connect` was refused with `waitForResolution`; the socket stays open for `device.pair.resolved`.
        case awaitingResolution
    }

    /// Where it connects.
    public let endpoint: GatewayEndpoint
    /// The configuration the client was made with.
    public let configuration: GatewayClientConfiguration
    /// The challenge the gateway sent, once `open` returned.
    public private(set) var challenge: GatewayChallenge?
    /// hello-ok, once `connect` succeeded.
    public private(set) var hello: HelloOK?
    /// The server certificate (wss:// only).
    public private(set) var certificate: TLSPeerCertificate?
    /// How the certificate was accepted.
    public private(set) var trustBasis: TLSTrustBasis?
    /// The address the TCP connection reached.
    public private(set) var remoteAddress: SocketAddress?
    /// The close code and reason, once the connection closed.
    public private(set) var closeStatus: WebSocketCloseStatus?

    private let loop: EventLoop
    private let resolver: any HostResolver
    private var phase = Phase.idle
    private var failure: GatewayError?
    private var dialer: TCPDialer?
    private var stream: StreamConnection?
    private var handshake: WebSocketClientHandshake?
    private var connection: WebSocketConnection?
    private var awaited: Set<String> = []
    private var responses: [String: (ok: Bool, payload: JSONValue?, error: GatewayErrorShape?)] = [:]
    private var events: [GatewayEvent] = []
    /// The message size of each queued event, and their sum.
    private var eventSizes: [Int] = []
    private var queuedEventBytes = 0
    private var lastHeard = Monotonic.Instant(nanoseconds: 0)
    private var watchdog: EventLoop.Timer?
    /// The limit on each message: clawpair's before hello-ok, then the gateway's or clawpair's ceiling.
    private var messageLimit = GatewayMessageLimit.preConnect(bytes: GatewayFrames.preConnectMaxBytes)
    /// The phase a wait timed out in (before the failure ended the connection).
    private var phaseAtTimeout = Phase.idle
    /// Whether a refused `connect` with `waitForResolution` keeps the socket open.
    private var holdsForResolution = false

    /// Session-only hooks (``GatewaySession`` runs the connection on its own thread): when set,
    /// events go to `eventHandler` as they arrive instead of the queue ``nextEvent(timeout:)``
    /// reads, and responses to ``sendRequest(_:params:)`` go to `responseHandler`.
    var eventHandler: ((GatewayEvent) -> Void)?
    var responseHandler: ((String, Result<JSONValue, GatewayError>) -> Void)?
    /// How many tick intervals of silence end the session, and the close code sent then
    /// (upstream: 2 and 4000; a session sets its ``ReconnectPolicy``'s).
    var tickSilence: (factor: Int, closeCode: UInt16) = (2, 4000)
    /// Requests sent with ``sendRequest(_:params:)``, by id, with their method.
    private var detached: [String: String] = [:]

    /// A client of `endpoint`. Every blocking call returns ``GatewayError/cancelled`` soon after
    /// `stop` is raised (from any thread), and closes the connection.
    public init(endpoint: GatewayEndpoint, configuration: GatewayClientConfiguration = GatewayClientConfiguration(),
                resolver: any HostResolver = SystemResolver(), clock: any MonotonicClock = SystemMonotonicClock(),
                stop: StopSignal? = nil) throws(GatewayError) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.resolver = resolver
        do {
            loop = try EventLoop(clock: clock)
        } catch {
            throw .unreachable(url: endpoint.url, phase: "setup", reason: error.message)
        }
        if let stop { loop.stop(on: stop) }
    }

    deinit {
        teardown()
    }

    /// Whether the connection is up (hello-ok received and not closed).
    public var isOpen: Bool { phase == .open && failure == nil }

    // MARK: Opening

    /// Connects, upgrades and waits for `connect.challenge`; `timeout` bounds all of it.
    @discardableResult
    public func open(timeout: Duration) throws(GatewayError) -> GatewayChallenge {
        precondition(phase == .idle, "open is called once")
        let deadline = loop.clock.now.advanced(by: timeout)
        phase = .dialing
        let resolver: any HostResolver = endpoint.knownAddresses.isEmpty ? self.resolver
            : KnownAddressesResolver(addresses: endpoint.knownAddresses)
        let dialer = TCPDialer(loop: loop, host: endpoint.host, port: endpoint.port, resolver: resolver,
                               configuration: configuration.happyEyeballs)
        self.dialer = dialer
        dialer.start { [weak self] outcome in self?.dialed(outcome) }
        do {
            try wait(until: deadline, what: "connect.challenge") { self.challenge != nil }
        } catch .timedOut(let what, let after) {
            // Time ran out before the gateway spoke: unreachable, naming the step that hung.
            let limit = GatewayError.milliseconds(timeout)
            switch phaseAtTimeout {
            case .dialing: throw .unreachable(url: endpoint.url, phase: "tcp", reason: "no answer within \(limit) ms")
            case .tls: throw .unreachable(url: endpoint.url, phase: "tls", reason: "no TLS handshake within \(limit) ms")
            case .upgrading: throw .unreachable(url: endpoint.url, phase: "ws", reason: "no WebSocket upgrade within \(limit) ms")
            case .awaitingChallenge: throw Self.noChallenge(endpoint, within: timeout)
            default: throw .timedOut(what: what, after: after)
            }
        }
        guard let challenge else { throw .notConnected }
        return challenge
    }

    /// No `connect.challenge` in time after the upgrade: the server never spoke as a gateway.
    private static func noChallenge(_ endpoint: GatewayEndpoint, within timeout: Duration) -> GatewayError {
        .unreachable(url: endpoint.url, phase: "challenge",
                     reason: "the WebSocket upgrade succeeded but no connect.challenge arrived within \(GatewayError.milliseconds(timeout)) ms")
    }

    private func dialed(_ outcome: Result<TCPConnectResult, TransportError>) {
        dialer = nil
        guard phase == .dialing else {
            if case .success(let connected) = outcome { connected.socket.close() }
            return
        }
        switch outcome {
        case .failure(let error):
            fail(.unreachable(url: endpoint.url, phase: error.isRefused ? "tcp" : "connect", reason: error.message))
        case .success(let connected):
            remoteAddress = connected.address
            let stream = StreamConnection(loop: loop, socket: connected.socket, remoteAddress: connected.address)
            self.stream = stream
            stream.onEvent = { [weak self] event in self?.streamEvent(event) }
            if endpoint.tls { startTLS(stream) } else { startUpgrade() }
        }
    }

    private func startTLS(_ stream: StreamConnection) {
        phase = .tls
        do {
            // A pinned endpoint is decided by its fingerprint alone: no root store is loaded.
            let context = try TLSContext(minimumVersion: .tls12, trustRoots: endpoint.pin == nil ? .system : .none)
            let engine = try TLSClientEngine(context: context, serverName: endpoint.host)
            stream.startTLS(engine) { [weak self] outcome in self?.tlsDone(outcome) }
        } catch {
            fail(.unreachable(url: endpoint.url, phase: "tls", reason: error.message))
        }
    }

    private func tlsDone(_ outcome: Result<TLSClientEngine, StreamError>) {
        guard phase == .tls else { return }
        switch outcome {
        case .failure(let error):
            fail(.unreachable(url: endpoint.url, phase: "tls", reason: error.message))
        case .success(let engine):
            var observed = engine.peerCertificate
            if endpoint.pin != nil {
                observed.systemTrusted = false
                observed.verificationError = nil
            }
            certificate = observed
            let policy = TLSPinPolicy(pin: endpoint.pin, allowTrustOnFirstUse: false, required: true)
            switch TLSTrust.evaluate(observed, policy: policy) {
            case .success(let basis):
                trustBasis = basis
                startUpgrade()
            case .failure(let failure):
                fail(.tlsTrust(url: endpoint.url, failure))
            }
        }
    }

    private func startUpgrade() {
        phase = .upgrading
        let request = WebSocketHandshakeRequest(host: endpoint.host, port: endpoint.port, tls: endpoint.tls, path: endpoint.path,
                                                extraHeaders: [("User-Agent", configuration.userAgent)])
        handshake = WebSocketClientHandshake(request: request)
        stream?.send(request.bytes)
    }

    // MARK: Connecting

    /// Sends `connect` with the device block signed over the challenge, and waits for the
    /// answer. A refusal closes the connection; the error says why and what to do. With
    /// `holdForResolution`, a pairing-required refusal that offers `waitForResolution` leaves
    /// the socket open for ``awaitPairingResolution(_:timeout:)``.
    @discardableResult
    public func connect(_ request: ConnectRequest, identity: DeviceIdentity, timeout: Duration,
                        nowMs: () -> Int64 = WallClock.nowMs, holdForResolution: Bool = false) throws(GatewayError) -> HelloOK {
        guard phase == .ready, let challenge else { throw failure ?? .notConnected }
        holdsForResolution = holdForResolution
        let params: JSONValue
        do {
            params = try request.params(identity: identity, challenge: challenge, nowMs: nowMs())
        } catch {
            throw .protocolViolation("cannot sign the connect request: \(error.message)")
        }
        phase = .connecting
        let payload = try exchange(method: "connect", params: params, timeout: timeout, isConnect: true)
        let hello: HelloOK
        // A hello-ok above the offered range is let through (up to the newest version spoken) so
        // that a session can tell a gateway that upgraded under a legacy offer (upstream closes
        // 1012 "gateway protocol upgraded" then, `upstream-2026-10.md` §2.3); below it, never.
        let acceptable = request.protocolRange.lowerBound...max(request.protocolRange.upperBound, ConnectRequest.maxProtocol)
        switch HelloOK.accepting(payload, requested: acceptable) {
        case .success(let accepted): hello = accepted
        case .failure(let refusal):
            fail(refusal)
            throw failure ?? .notConnected
        }
        self.hello = hello
        phase = .open
        messageLimit = hello.maxPayload <= configuration.maxPayloadCeiling ? .announced(bytes: hello.maxPayload)
            : .ceiling(bytes: configuration.maxPayloadCeiling, announced: hello.maxPayload)
        connection?.updateLimits(maxFramePayloadSize: max(messageLimit.bytes, WebSocketFrameDecoder.maxControlPayloadSize),
                                 maxMessageSize: messageLimit.bytes)
        startWatchdog(tick: .milliseconds(hello.tickIntervalMs))
        return hello
    }

    /// After ``connect(_:identity:timeout:nowMs:holdForResolution:)`` threw a pairing-required
    /// refusal with `waitForResolution`: waits up to `timeout` on the same socket for the
    /// gateway's `device.pair.resolved` about `pairing`'s request. Returns its decision, or nil
    /// when time ran out or the gateway closed the socket (a newer connect of this device
    /// superseded the waiter, or the gateway restarted): then connect again. Closes the
    /// connection in every case.
    public func awaitPairingResolution(_ pairing: PairingRequired, timeout: Duration) -> PairingDecision? {
        defer { close() }
        guard phase == .awaitingResolution, failure == nil else { return nil }
        let deadline = loop.clock.now.advanced(by: timeout)
        var decision: PairingDecision?
        runLoop(until: deadline) {
            while decision == nil, !self.events.isEmpty {
                let event = self.takeEvent()
                guard event.name == "device.pair.resolved" else { continue }
                decision = PairingDecision(resolvedEvent: event.payload, requestId: pairing.requestId, deviceId: pairing.deviceId)
            }
            return decision != nil
        }
        return decision
    }

    // MARK: Calls and events

    /// Sends one request and waits up to `timeout` for its response payload (`null` when the
    /// response has none).
    public func call(_ method: String, params: JSONValue? = nil, timeout: Duration) throws(GatewayError) -> JSONValue {
        if let failure { throw failure }
        guard phase == .open else { throw .notConnected }
        return try exchange(method: method, params: params, timeout: timeout, isConnect: false)
    }

    /// The next event, waiting up to `timeout`; nil when none arrived in time.
    public func nextEvent(timeout: Duration) throws(GatewayError) -> GatewayEvent? {
        if !events.isEmpty { return takeEvent() }
        if let failure { throw failure }
        guard phase == .open else { throw .notConnected }
        let deadline = loop.clock.now.advanced(by: timeout)
        runLoop(until: deadline) { !self.events.isEmpty }
        if !events.isEmpty { return takeEvent() }
        if let failure { throw failure }
        return nil
    }

    private func takeEvent() -> GatewayEvent {
        queuedEventBytes -= eventSizes.removeFirst()
        return events.removeFirst()
    }

    /// Closes politely (a normal close frame, then the socket). Safe to call more than once.
    public func close() {
        guard phase != .finished else { return }
        if var connection, stream != nil {
            connection.close(code: .normalClosure, reason: "bye")
            stream?.send(connection.takeOutbound())
            self.connection = connection
        }
        phase = .finished
        teardown()
    }

    private func exchange(method: String, params: JSONValue?, timeout: Duration, isConnect: Bool) throws(GatewayError) -> JSONValue {
        let deadline = loop.clock.now.advanced(by: timeout)
        let id = RequestID.make()
        awaited.insert(id)
        defer { awaited.remove(id) }
        send(GatewayFrames.request(id: id, method: method, params: params))
        let what = isConnect ? "the connect response" : "a response to \(method)"
        do {
            try wait(until: deadline, what: what) { self.responses[id] != nil }
        } catch {
            if isConnect, case .closed(_, let reason, _) = error, let shape = responses[id]?.error {
                throw GatewayError.connectFailure(shape, closeReason: reason)
            }
            throw error
        }
        guard let response = responses.removeValue(forKey: id) else { throw .notConnected }
        if response.ok { return response.payload ?? .null }
        let shape = response.error ?? GatewayErrorShape(code: "UNKNOWN", message: "")
        if isConnect, case .pairingRequired(let pairing) = GatewayError.connectFailure(shape), pairing.waitForResolution,
           failure == nil {
            // The gateway keeps this socket for device.pair.resolved (and closes it on any RPC).
            if holdsForResolution {
                phase = .awaitingResolution
            } else {
                close()
            }
            throw .pairingRequired(pairing)
        }
        if isConnect {
            // The gateway closes after a refused connect; wait briefly for its close frame (the
            // reason may carry the pairing requestId), which the connection answers. When none
            // comes in time, close first: the socket never ends without a Close frame.
            let closeDeadline = min(deadline, loop.clock.now.advanced(by: .milliseconds(200)))
            runLoop(until: closeDeadline) { self.closeStatus != nil }
            let error = GatewayError.connectFailure(shape, closeReason: closeStatus?.reason)
            close()
            throw error
        }
        throw .rpcFailed(method: method, shape)
    }

    private func send(_ text: String) {
        guard var connection else { return }
        do {
            try connection.send(text: text)
        } catch {
            return
        }
        stream?.send(connection.takeOutbound())
        self.connection = connection
    }

    /// Runs the loop until `condition` holds, the connection fails, or `deadline` passes.
    /// The condition is checked before the failure: a response that arrived before the close
    /// counts.
    private func wait(until deadline: Monotonic.Instant, what: String, _ condition: @escaping () -> Bool) throws(GatewayError) {
        let started = loop.clock.now
        runLoop(until: deadline, condition)
        if condition() { return }
        if let failure { throw failure }
        let error = GatewayError.timedOut(what: what, after: deadline - started)
        phaseAtTimeout = phase
        fail(error)
        throw error
    }

    /// Runs the loop until `condition` holds, the connection fails, or `deadline` passes; a
    /// deadline that passes is not a failure here.
    private func runLoop(until deadline: Monotonic.Instant?, _ condition: @escaping () -> Bool) {
        do {
            try loop.run(until: deadline) { !condition() && self.failure == nil }
        } catch {
            fail(.unreachable(url: endpoint.url, phase: "poll", reason: error.message))
        }
        if loop.isStopped, failure == nil, !condition() { stopped() }
    }

    /// A raised stop: close politely and fail every wait with ``GatewayError/cancelled``.
    private func stopped() {
        if var connection, stream != nil, phase != .finished {
            connection.close(code: .goingAway, reason: "stopped")
            stream?.send(connection.takeOutbound())
            self.connection = connection
        }
        fail(.cancelled)
    }

    // MARK: Session hooks

    /// The loop's clock.
    var clock: any MonotonicClock { loop.clock }

    /// A mailbox into this client's loop (for requests from other threads).
    func makeMailbox<Value: Sendable>(_ handler: @escaping (Value) -> Void) -> Mailbox<Value> {
        loop.makeMailbox(handler)
    }

    /// Runs `body` on the loop at `deadline`.
    @discardableResult
    func schedule(at deadline: Monotonic.Instant, _ body: @escaping () -> Void) -> EventLoop.Timer {
        loop.schedule(at: deadline, body)
    }

    /// Cancels a timer from ``schedule(at:_:)``.
    func cancelTimer(_ timer: EventLoop.Timer) { loop.cancel(timer) }

    /// Sends a request without waiting; its response goes to `responseHandler` (a failure of
    /// the connection fails every request still open). Returns the request id.
    func sendRequest(_ method: String, params: JSONValue?) -> String {
        let id = RequestID.make()
        guard failure == nil, phase == .open else {
            responseHandler?(id, .failure(failure ?? .notConnected))
            return id
        }
        detached[id] = method
        send(GatewayFrames.request(id: id, method: method, params: params))
        return id
    }

    /// Runs the loop until the connection fails, the stop is raised or `condition` holds; the
    /// failure that ended it (nil when `condition` ended it).
    func serve(until condition: @escaping () -> Bool) -> GatewayError? {
        runLoop(until: nil, condition)
        return condition() ? nil : failure ?? .notConnected
    }

    /// Closes with `code` and `reason` (a session's own close, such as 4000 on tick silence),
    /// failing with `error`.
    func close(code: UInt16, reason: String, failing error: GatewayError) {
        if var connection, stream != nil, phase != .finished {
            // A code a caller chose that may not be sent (1005, 1006, 2xxx…) becomes 4000.
            let wire = WebSocketCloseCode(rawValue: code)
            connection.close(code: wire.isValidOnWire ? wire : WebSocketCloseCode(rawValue: 4000), reason: reason)
            stream?.send(connection.takeOutbound())
            self.connection = connection
        }
        fail(error)
    }

    // MARK: Input

    private func streamEvent(_ event: StreamEvent) {
        switch event {
        case .data(let bytes):
            lastHeard = loop.clock.now
            if phase == .upgrading {
                upgradeData(bytes)
            } else {
                frameData(bytes)
            }
        case .closed:
            if phase == .upgrading {
                fail(.notGateway(url: endpoint.url, reason: handshake?.endOfStreamError.message ?? "the connection closed"))
            } else {
                transportEnded()
            }
        case .failed(let error):
            switch phase {
            case .upgrading: fail(.unreachable(url: endpoint.url, phase: "ws", reason: error.message))
            default: transportEnded(error.message)
            }
        }
    }

    private func upgradeData(_ bytes: [UInt8]) {
        guard var handshake else { return }
        do {
            let progress = try handshake.receive(bytes)
            self.handshake = handshake
            if case .upgraded(_, let remainder) = progress {
                phase = .awaitingChallenge
                connection = WebSocketConnection(role: .client, maxFramePayloadSize: GatewayFrames.preConnectMaxBytes,
                                                 maxMessageSize: GatewayFrames.preConnectMaxBytes, maxFragmentCount: 1024)
                scheduleChallengeTimeout()
                if !remainder.isEmpty { frameData(remainder) }
            }
        } catch {
            fail(.notGateway(url: endpoint.url, reason: error.message))
        }
    }

    private func scheduleChallengeTimeout() {
        let timeout = configuration.challengeTimeout
        _ = loop.schedule(at: loop.clock.now.advanced(by: timeout)) { [weak self] in
            guard let self, self.phase == .awaitingChallenge else { return }
            self.fail(Self.noChallenge(self.endpoint, within: timeout))
        }
    }

    private func frameData(_ bytes: [UInt8]) {
        guard var connection else { return }
        connection.receive(bytes)
        if connection.hasOutbound { stream?.send(connection.takeOutbound()) }  // pongs, close echoes
        var pending: [WebSocketEvent] = []
        while let event = connection.nextEvent() { pending.append(event) }
        self.connection = connection
        for event in pending {
            guard failure == nil else { return }
            switch event {
            case .text(let text): message(text)
            case .binary: violation("the gateway sent a binary message")
            case .ping, .pong: continue
            case .closed(let status, _):
                closeStatus = status
                let during = phaseDescription
                if phase == .awaitingChallenge {
                    fail(.notGateway(url: endpoint.url, reason: "the server closed the WebSocket (code \(status.code.rawValue)) before connect.challenge"))
                } else {
                    fail(.closed(code: status.code.rawValue, reason: status.reason, during: during))
                }
            case .failed(let error):
                switch error {
                // The frame limit is never below 125 bytes (control frames); the limit that applies
                // to a data frame is the message limit, which it is over too.
                case .frameTooLarge(let length, _): fail(.frameTooLarge(size: Int(clamping: length), limit: messageLimit))
                case .messageTooLarge(let size, _): fail(.frameTooLarge(size: size, limit: messageLimit))
                case .controlFrameTooLong(let opcode, let length):
                    fail(.frameTooLarge(size: length, limit: .controlFrame(opcode: "\(opcode)")))
                default: fail(.protocolViolation(error.message))
                }
            }
        }
        if let connection = self.connection, connection.shouldCloseTransport, failure == nil {
            fail(.closed(code: closeStatus?.code.rawValue ?? 1006, reason: closeStatus?.reason ?? "", during: phaseDescription))
        }
    }

    private func message(_ text: String) {
        if phase == .awaitingChallenge {
            switch GatewayChallenge.parse(text) {
            case .success(let challenge):
                self.challenge = challenge
                phase = .ready
            case .failure(let notChallenge):
                fail(.notGateway(url: endpoint.url, reason: notChallenge.detail))
            }
            return
        }
        let frame: GatewayFrame
        do {
            frame = try GatewayFrames.decode(text, maxBytes: messageLimit.bytes)
        } catch .tooLarge(let size, _) {
            fail(.frameTooLarge(size: size, limit: messageLimit))
            return
        } catch {
            violation(error.message)
            return
        }
        switch frame {
        case .response(let id, let ok, let payload, let error):
            if awaited.contains(id) { responses[id] = (ok, payload, error) }
            if let method = detached.removeValue(forKey: id) {
                let outcome: Result<JSONValue, GatewayError> = ok ? .success(payload ?? .null)
                    : .failure(.rpcFailed(method: method, error ?? GatewayErrorShape(code: "UNKNOWN", message: "")))
                responseHandler?(id, outcome)
            }
        case .event(let name, let payload, let seq):
            if name == "tick" || name == "connect.challenge" { return }
            if let eventHandler, phase == .open {
                eventHandler(GatewayEvent(name: name, payload: payload, seq: seq))
                return
            }
            let size = text.utf8.count
            while !events.isEmpty, events.count >= configuration.maxQueuedEvents
                    || queuedEventBytes + size > configuration.maxQueuedEventBytes {
                _ = takeEvent()
            }
            events.append(GatewayEvent(name: name, payload: payload, seq: seq))
            eventSizes.append(size)
            queuedEventBytes += size
        case .request, .cancel:
            return
        }
    }

    private func transportEnded(_ detail: String? = nil) {
        guard failure == nil else { return }
        if phase == .awaitingChallenge {
            fail(.notGateway(url: endpoint.url, reason: "the connection closed before connect.challenge arrived"))
            return
        }
        let reason = closeStatus?.reason ?? detail ?? "the connection dropped"
        fail(.closed(code: closeStatus?.code.rawValue ?? 1006, reason: reason, during: phaseDescription))
    }

    private var phaseDescription: String {
        switch phase {
        case .connecting: return "connect"
        case .awaitingResolution: return "the wait for approval"
        case .open: return "the session"
        default: return "the handshake"
        }
    }

    // MARK: Watchdog

    private func startWatchdog(tick: Duration) {
        lastHeard = loop.clock.now
        scheduleWatchdog(tick: tick)
    }

    private func scheduleWatchdog(tick: Duration) {
        let limit = tick * max(1, tickSilence.factor)
        watchdog = loop.schedule(at: lastHeard.advanced(by: limit).advanced(by: .milliseconds(1))) { [weak self] in
            guard let self, self.phase == .open, self.failure == nil else { return }
            let silent = self.loop.clock.now - self.lastHeard
            if silent > limit {
                // As upstream's client: close with 4000 "tick timeout" (upstream-2026-10.md §2.3).
                self.close(code: self.tickSilence.closeCode, reason: "tick timeout",
                           failing: .stalled(silentFor: silent, tickInterval: tick))
            } else {
                self.scheduleWatchdog(tick: tick)
            }
        }
    }

    // MARK: Ending

    private func violation(_ detail: String) {
        if var connection, stream != nil {
            connection.close(code: .protocolError, reason: "")
            stream?.send(connection.takeOutbound())
            self.connection = connection
        }
        fail(.protocolViolation(detail))
    }

    private func fail(_ error: GatewayError) {
        guard failure == nil else { return }
        failure = error
        phase = .finished
        teardown()
        let open = detached
        detached = [:]
        for id in open.keys.sorted() { responseHandler?(id, .failure(error)) }
    }

    private func teardown() {
        if let watchdog { loop.cancel(watchdog) }
        watchdog = nil
        dialer?.cancel()
        dialer = nil
        stream?.onEvent = nil
        stream?.close()
        stream = nil
    }
}

@available(*, unavailable)
extension GatewayClient: Sendable {}
