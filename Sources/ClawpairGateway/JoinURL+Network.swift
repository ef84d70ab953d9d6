// The join URL's GET over clawpair's own transport: one EventLoop on the caller's thread,
// TCPDialer (Happy Eyeballs) → OpenSSL with the system roots for https → `GET path HTTP/1.1`
// with `Connection: close` → the response head (ClawpairWebSocket's bounded parser) → a body of
// `Content-Length` bytes or up to the close, never more than ``JoinURL/maxBodyBytes``.

import ClawpairCore
import ClawpairTransport
import ClawpairWebSocket

/// The network: one GET, no redirects, no cookies, no proxy.
public struct NetworkJoinFetcher: JoinFetching {
    /// The name resolver (the system's by default).
    public var resolver: any HostResolver & Sendable

    /// A fetcher that resolves host names with `resolver`.
    public init(resolver: any HostResolver & Sendable = SystemResolver()) {
        self.resolver = resolver
    }

    /// Fetches `url` with one GET within `timeout`.
    public func get(_ url: JoinURL, timeout: Duration) throws(JoinError) -> JoinHTTPResponse {
        let exchange: JoinExchange
        do {
            exchange = try JoinExchange(url: url, resolver: resolver)
        } catch {
            throw .unreachable(origin: url.origin, phase: "setup", reason: error.message)
        }
        return try exchange.run(timeout: timeout)
    }
}

/// One GET's state, confined to the calling thread.
final class JoinExchange {
    let url: JoinURL
    let loop: EventLoop
    let resolver: any HostResolver
    private var dialer: TCPDialer?
    private var stream: StreamConnection?
    private var parser = HTTPResponseHeadParser()
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var failure: JoinError?
    private var ended = false

    init(url: JoinURL, resolver: any HostResolver) throws(TransportError) {
        self.url = url
        self.resolver = resolver
        loop = try EventLoop()
    }

    deinit {
        dialer?.cancel()
        stream?.close()
    }

    func run(timeout: Duration) throws(JoinError) -> JoinHTTPResponse {
        let dialer = TCPDialer(loop: loop, host: url.host, port: url.port, resolver: resolver)
        self.dialer = dialer
        dialer.start { [weak self] outcome in self?.dialed(outcome) }
        do {
            try loop.run(until: loop.clock.now.advanced(by: timeout)) { !self.done }
        } catch {
            throw .unreachable(origin: url.origin, phase: "poll", reason: error.message)
        }
        stream?.close()
        if let failure { throw failure }
        guard let head, complete else {
            throw .unreachable(origin: url.origin, phase: head == nil ? "http" : "body",
                               reason: "no complete answer within \(GatewayError.milliseconds(timeout)) ms")
        }
        return JoinHTTPResponse(status: head.statusCode, contentType: head.value("Content-Type")?.lowercased(),
                                retryAfterSeconds: head.value("Retry-After").flatMap { Int($0) },
                                body: body)
    }

    private var done: Bool { failure != nil || complete }

    /// The head arrived and the body is whole (its Content-Length, or the connection ended).
    private var complete: Bool {
        guard let head else { return false }
        if let length = head.value("Content-Length").flatMap({ Int($0) }) {
            return body.count >= length || ended
        }
        return ended
    }

    private func dialed(_ outcome: Result<TCPConnectResult, TransportError>) {
        dialer = nil
        switch outcome {
        case .failure(let error):
            failure = .unreachable(origin: url.origin, phase: "tcp", reason: error.message)
        case .success(let connected):
            let stream = StreamConnection(loop: loop, socket: connected.socket, remoteAddress: connected.address)
            self.stream = stream
            stream.onEvent = { [weak self] event in self?.received(event) }
            guard url.tls else { return sendRequest() }
            do {
                let engine = try TLSClientEngine(context: try TLSContext(minimumVersion: .tls12, trustRoots: .system), serverName: url.host)
                stream.startTLS(engine) { [weak self] outcome in self?.handshaken(outcome) }
            } catch {
                failure = .unreachable(origin: url.origin, phase: "tls", reason: error.message)
            }
        }
    }

    private func handshaken(_ outcome: Result<TLSClientEngine, StreamError>) {
        switch outcome {
        case .failure(let error):
            failure = .unreachable(origin: url.origin, phase: "tls", reason: error.message)
        case .success(let engine):
            switch TLSTrust.evaluate(engine.peerCertificate, policy: TLSPinPolicy()) {
            case .success: sendRequest()
            case .failure(let trust): failure = .tlsTrust(origin: url.origin, trust)
            }
        }
    }

    private func sendRequest() {
        let host = url.host.contains(":") ? "[\(url.host)]" : url.host
        let authority = url.port == (url.tls ? 443 : 80) ? host : "\(host):\(url.port)"
        let request = "GET \(url.path) HTTP/1.1\r\nHost: \(authority)\r\nUser-Agent: clawpair/\(ClawpairVersion.current)\r\n"
            + "Accept: application/json\r\nConnection: close\r\n\r\n"
        stream?.send(Array(request.utf8))
    }

    private func received(_ event: StreamEvent) {
        switch event {
        case .data(let bytes):
            guard head == nil else { return append(bytes) }
            do {
                if let (parsed, remainder) = try parser.parse(bytes) {
                    head = parsed
                    if parsed.value("Transfer-Encoding") != nil {
                        failure = .unexpectedAnswer(status: parsed.statusCode, contentType: "Transfer-Encoding: chunked is not read")
                        return
                    }
                    append(remainder)
                }
            } catch {
                if case .responseHeadTooLarge = error { failure = .tooLarge; return }
                failure = .unreachable(origin: url.origin, phase: "http", reason: error.message)
            }
        case .closed:
            ended = true
        case .failed(let error):
            if head == nil { failure = .unreachable(origin: url.origin, phase: "http", reason: error.message) }
            ended = true
        }
    }

    private func append(_ bytes: [UInt8]) {
        body += bytes
        if body.count > JoinURL.maxBodyBytes { failure = .tooLarge }
    }
}

@available(*, unavailable)
extension JoinExchange: Sendable {}
