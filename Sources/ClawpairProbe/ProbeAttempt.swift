// One route's pipeline on the event loop: TCP (Happy Eyeballs) → TLS and the pin check →
// WebSocket upgrade → the first message, which must be `connect.challenge`. Each step is timed;
// any failure ends the attempt with the phase it was in and a reason.

import ClawpairCore
import ClawpairTransport
import ClawpairWebSocket

/// Probes one route. Confined to the event loop's thread.
final class ProbeAttempt {
    private let loop: EventLoop
    private let runStart: Monotonic.Instant
    private let configuration: ProbeConfiguration
    private let resolver: any HostResolver
    private let tlsContext: (TLSContext.TrustRoots) throws(TLSError) -> TLSContext
    private let completion: (ProbeResult) -> Void

    private(set) var result: ProbeResult
    private var finished = false
    private var dialer: TCPDialer?
    private var stream: StreamConnection?
    private var handshake: WebSocketClientHandshake?
    private var connection: WebSocketConnection?
    private var startedAt = Monotonic.Instant(nanoseconds: 0)
    private var phaseStart = Monotonic.Instant(nanoseconds: 0)

    init(loop: EventLoop, route: ProbeRoute, index: Int, runStart: Monotonic.Instant, configuration: ProbeConfiguration,
         resolver: any HostResolver, tlsContext: @escaping (TLSContext.TrustRoots) throws(TLSError) -> TLSContext,
         completion: @escaping (ProbeResult) -> Void) {
        self.loop = loop
        self.runStart = runStart
        self.configuration = configuration
        self.resolver = resolver
        self.tlsContext = tlsContext
        self.completion = completion
        self.result = ProbeResult(route: route, index: index)
    }

    private var route: ProbeRoute { result.route }
    private var now: Monotonic.Instant { loop.clock.now }

    /// Starts the pipeline. Completion runs later, on the loop, never from inside `start`.
    func start() {
        startedAt = now
        result.timings.started = startedAt - runStart
        if route.plaintextRefused && !configuration.allowInsecure {
            result.phase = .queued
            loop.schedule(at: startedAt) { [weak self] in self?.fail(.needsTLS) }
            return
        }
        result.phase = SocketAddress(ip: route.host, port: 0) == nil ? .dns : .tcp
        let resolver: any HostResolver = route.knownAddresses.isEmpty ? self.resolver
            : KnownAddressesResolver(addresses: route.knownAddresses)
        let dialer = TCPDialer(loop: loop, host: route.host, port: route.port, resolver: resolver,
                               configuration: configuration.happyEyeballs)
        self.dialer = dialer
        dialer.start { [weak self] outcome in self?.dialed(outcome) }
    }

    /// Stops the attempt (it lost, or time ran out) and returns its final result. `failure`
    /// builds the reason from the phase it was in. No completion follows.
    func stop(_ failure: (ProbePhase) -> ProbeFailure) -> ProbeResult {
        guard !finished else { return result }
        finished = true
        if result.phase == .dns, dialer?.firstAttemptAt != nil { result.phase = .tcp }
        result.failure = failure(result.phase)
        result.timings.total = now - startedAt
        teardown()
        return result
    }

    // MARK: Steps

    private func dialed(_ outcome: Result<TCPConnectResult, TransportError>) {
        guard !finished else {
            if case .success(let connected) = outcome { connected.socket.close() }
            return
        }
        let firstAttemptAt = dialer?.firstAttemptAt
        dialer = nil
        switch outcome {
        case .failure(let error):
            if case .cancelled = error { return }
            if let firstAttemptAt {
                result.phase = .tcp
                result.timings.dns = firstAttemptAt - startedAt
            }
            switch error {
            case .resolutionFailed, .noAddresses: fail(.resolutionFailed(error.message))
            case _ where error.isRefused: fail(.refused(error.message))
            default: fail(.unreachable(error.message))
            }
        case .success(let connected):
            result.address = connected.address
            result.timings.dns = connected.resolutionDuration
            result.timings.tcp = connected.connectDuration
            let stream = StreamConnection(loop: loop, socket: connected.socket, remoteAddress: connected.address)
            self.stream = stream
            stream.onEvent = { [weak self] event in self?.streamEvent(event) }
            phaseStart = now
            if route.tls {
                startTLS(stream)
            } else {
                startWebSocket()
            }
        }
    }

    private func startTLS(_ stream: StreamConnection) {
        result.phase = .tls
        let engine: TLSClientEngine
        do {
            // A pinned route is decided by its fingerprint alone: no root store is loaded for it.
            let roots: TLSContext.TrustRoots = route.pin == nil ? .system : .none
            engine = try TLSClientEngine(context: try tlsContext(roots), serverName: route.host)
        } catch {
            fail(.tlsFailed(error.message))
            return
        }
        stream.startTLS(engine) { [weak self] outcome in self?.tlsDone(outcome) }
    }

    private func tlsDone(_ outcome: Result<TLSClientEngine, StreamError>) {
        guard !finished else { return }
        switch outcome {
        case .failure(let error):
            fail(.tlsFailed(Self.tlsDetail(error)))
        case .success(let engine):
            var certificate = engine.peerCertificate
            if route.pin != nil {
                // System trust was not checked (no roots loaded); only the pin decides.
                certificate.systemTrusted = false
                certificate.verificationError = nil
            }
            result.certificate = certificate
            result.tlsVersion = engine.protocolVersion
            result.timings.tls = now - phaseStart
            let policy = TLSPinPolicy(pin: route.pin, allowTrustOnFirstUse: false, required: true)
            switch TLSTrust.evaluate(certificate, policy: policy) {
            case .success(let basis):
                result.trust = basis
                phaseStart = now
                startWebSocket()
            case .failure(.certificateUnavailable):
                fail(.certificateUnavailable)
            case .failure(.pinMismatch(let expected, let observed)):
                fail(.pinMismatch(expected: expected, observed: observed))
            case .failure(.untrustedCertificate(let observed, let reason)):
                fail(.tlsUntrusted(observed: observed, reason: reason))
            }
        }
    }

    private func startWebSocket() {
        result.phase = .ws
        var headers: [(name: String, value: String)] = [("User-Agent", configuration.userAgent)]
        if let origin = configuration.origin { headers.append(("Origin", origin)) }
        let request = WebSocketHandshakeRequest(host: route.host, port: route.port, tls: route.tls, path: route.path,
                                                extraHeaders: headers)
        handshake = WebSocketClientHandshake(request: request)
        stream?.send(request.bytes)
    }

    private func streamEvent(_ event: StreamEvent) {
        guard !finished else { return }
        switch (result.phase, event) {
        case (.ws, .data(let bytes)):
            guard var handshake else { return }
            do {
                let progress = try handshake.receive(bytes)
                self.handshake = handshake
                if case .upgraded(_, let remainder) = progress {
                    result.timings.ws = now - phaseStart
                    phaseStart = now
                    result.phase = .challenge
                    connection = WebSocketConnection(role: .client, maxFramePayloadSize: GatewayChallenge.maxBytes,
                                                     maxMessageSize: GatewayChallenge.maxBytes, maxFragmentCount: 64)
                    // A liveness check ends here, leaving with a close frame (the challenge is not awaited).
                    if configuration.passesAtUpgrade { return succeed() }
                    if !remainder.isEmpty { receiveFrames(remainder) }
                }
            } catch {
                fail(.notWebSocket(error.message))
            }
        case (.ws, .closed):
            fail(.notWebSocket(handshake?.endOfStreamError.message ?? "the connection closed"))
        case (.ws, .failed(let error)):
            fail(.notWebSocket(error.message))
        case (.challenge, .data(let bytes)):
            receiveFrames(bytes)
        case (.challenge, .closed):
            fail(.notGateway("the connection closed before connect.challenge arrived"))
        case (.challenge, .failed(let error)):
            fail(.notGateway(error.message))
        case (_, .data), (_, .closed), (_, .failed):
            break
        }
    }

    private func receiveFrames(_ bytes: [UInt8]) {
        guard var connection else { return }
        connection.receive(bytes)
        defer { self.connection = connection }
        if connection.hasOutbound { stream?.send(connection.takeOutbound()) }  // pongs
        while let event = connection.nextEvent() {
            switch event {
            case .text(let text):
                switch GatewayChallenge.parse(text) {
                case .success(let challenge):
                    result.challengeTimestamp = challenge.timestamp
                    result.timings.challenge = now - phaseStart
                    self.connection = connection
                    succeed()
                case .failure(let notChallenge):
                    fail(.notGateway(notChallenge.detail))
                }
                return
            case .binary:
                fail(.notGateway("the first message is binary"))
                return
            case .ping, .pong:
                continue
            case .closed(let status, _):
                let reason = status.reason.isEmpty ? "" : ": \(status.reason)"
                fail(.notGateway("the server closed the WebSocket (code \(status.code)\(reason)) before connect.challenge"))
                return
            case .failed(let error):
                fail(.notGateway("WebSocket protocol error: \(error.message)"))
                return
            }
        }
    }

    // MARK: Ending

    private func succeed() {
        guard !finished else { return }
        finished = true
        result.phase = .done
        result.timings.total = now - startedAt
        // Leave politely: a normal close frame, then the socket.
        if var connection {
            connection.close(code: .normalClosure, reason: "probe")
            stream?.send(connection.takeOutbound())
        }
        teardown()
        completion(result)
    }

    private func fail(_ failure: ProbeFailure) {
        guard !finished else { return }
        finished = true
        result.failure = failure
        result.timings.total = now - startedAt
        teardown()
        completion(result)
    }

    private func teardown() {
        dialer?.cancel()
        dialer = nil
        stream?.onEvent = nil
        stream?.close()
        stream = nil
    }

    private static func tlsDetail(_ error: StreamError) -> String {
        switch error {
        case .tls(.handshakeFailed(let reason)): return reason
        case .tls(.closedDuringHandshake): return "the server closed the connection during the handshake (is it plain ws://?)"
        case .tls(let other): return other.message
        case .transport(let other): return other.message
        case .peerNotReading: return error.message
        }
    }
}
