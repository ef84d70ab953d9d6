import ClawpairCore

// Drives `HappyEyeballs` with real sockets, a resolver and an `EventLoop`: the only place
// where its actions touch the system.

/// A connected socket and how long it took to get it.
public struct TCPConnectResult {
    /// The connected socket (the caller owns it now).
    public let socket: TCPSocket
    /// The address that answered first.
    public let address: SocketAddress
    /// When dialing started.
    public let startedAt: Monotonic.Instant
    /// When the first connection attempt started (resolution, plus any resolution delay, done).
    public let firstAttemptAt: Monotonic.Instant
    /// When the winning connect completed.
    public let connectedAt: Monotonic.Instant

    /// Resolution time: from the start to the first attempt (zero for IP literals).
    public var resolutionDuration: Duration { firstAttemptAt - startedAt }
    /// TCP time: from the first attempt to the connection.
    public var connectDuration: Duration { connectedAt - firstAttemptAt }
}

/// Connects to one host name with Happy Eyeballs v2 on an ``EventLoop``.
///
/// IP literals skip the resolver. Names are looked up for AAAA and A at once through the
/// injected ``HostResolver``. Losing attempts are closed as soon as one wins, and everything
/// is closed by ``cancel()``.
public final class TCPDialer {
    private let loop: EventLoop
    /// The host being dialed.
    public let host: String
    /// The port being dialed.
    public let port: Int
    private let resolver: any HostResolver
    private var machine: HappyEyeballs
    private var completion: ((Result<TCPConnectResult, TransportError>) -> Void)?
    private var attempts: [HappyEyeballs.AttemptID: (socket: TCPSocket, registration: EventLoop.Registration?)] = [:]
    private var timer: EventLoop.Timer?
    private var mailbox: Mailbox<ResolverAnswer>?
    private var pending: [HappyEyeballs.Input] = []
    private var processing = false
    private var startedAt = Monotonic.Instant(nanoseconds: 0)
    /// When the first connection attempt started (nil while resolving): tells a caller whose
    /// deadline passed whether it was still resolving or already connecting.
    public private(set) var firstAttemptAt: Monotonic.Instant?

    private struct ResolverAnswer: Sendable {
        let family: SocketAddress.Family
        let result: Result<[SocketAddress], TransportError>
    }

    /// A dialer for `host` (a name, or an IPv4/IPv6 literal without brackets) and `port`.
    public init(loop: EventLoop, host: String, port: Int, resolver: any HostResolver = SystemResolver(),
                configuration: HappyEyeballsConfiguration = HappyEyeballsConfiguration()) {
        self.loop = loop
        self.host = host
        self.port = port
        self.resolver = resolver
        self.machine = HappyEyeballs(host: host, configuration: configuration)
    }

    deinit {
        for (_, attempt) in attempts { attempt.socket.close() }
    }

    /// Starts dialing; `completion` runs once on the loop's thread, never from inside `start`.
    public func start(completion: @escaping (Result<TCPConnectResult, TransportError>) -> Void) {
        precondition(self.completion == nil, "start is called once")
        self.completion = completion
        startedAt = loop.clock.now
        if let literal = SocketAddress(ip: host, port: port) {
            let other: SocketAddress.Family = literal.family == .ipv4 ? .ipv6 : .ipv4
            loop.schedule(at: startedAt) { [weak self] in
                guard let self else { return }
                self.firstAttemptAt = self.startedAt  // nothing to resolve: the first attempt counts from the start
                self.feed(.resolutionFailed(other, .noAddresses(host: self.host)))
                self.feed(.resolved(literal.family, [literal]))
            }
            return
        }
        let mailbox = loop.makeMailbox { [weak self] (answer: ResolverAnswer) in
            switch answer.result {
            case .success(let addresses): self?.feed(.resolved(answer.family, addresses))
            case .failure(let error): self?.feed(.resolutionFailed(answer.family, error))
            }
        }
        self.mailbox = mailbox
        for family in [SocketAddress.Family.ipv6, .ipv4] {
            resolver.resolve(host: host, port: port, family: family) { result in
                mailbox.deliver(ResolverAnswer(family: family, result: result))
            }
        }
    }

    /// Stops dialing and closes every socket; the completion gets `.cancelled` if it has not run.
    public func cancel() {
        feed(.cancel)
    }

    private func feed(_ input: HappyEyeballs.Input) {
        pending.append(input)
        guard !processing else { return }
        processing = true
        while !pending.isEmpty {
            let next = pending.removeFirst()
            // One reading of the clock for the input and its actions: the first attempt's instant is
            // the one the machine armed its timers from, so the reported TCP time can't fall short
            // of the stagger it waited.
            let now = loop.clock.now
            for action in machine.handle(next, now: now) { perform(action, now: now) }
        }
        processing = false
    }

    private func perform(_ action: HappyEyeballs.Action, now: Monotonic.Instant) {
        switch action {
        case .startAttempt(let id, let address):
            if firstAttemptAt == nil { firstAttemptAt = now }
            startAttempt(id, address)
        case .cancelAttempt(let id):
            if let attempt = attempts.removeValue(forKey: id) {
                if let registration = attempt.registration { loop.deregister(registration) }
                attempt.socket.close()
            }
        case .setTimer(let deadline):
            if let timer { loop.cancel(timer) }
            timer = loop.schedule(at: deadline) { [weak self] in
                self?.timer = nil
                self?.feed(.timerFired)
            }
        case .cancelTimer:
            if let timer { loop.cancel(timer) }
            timer = nil
        case .connected(let id, let address):
            guard let attempt = attempts.removeValue(forKey: id) else { return }
            if let registration = attempt.registration { loop.deregister(registration) }
            finish(.success(TCPConnectResult(socket: attempt.socket, address: address, startedAt: startedAt,
                                             firstAttemptAt: firstAttemptAt ?? startedAt, connectedAt: loop.clock.now)))
        case .failed(let error):
            finish(.failure(error))
        }
    }

    private func startAttempt(_ id: HappyEyeballs.AttemptID, _ address: SocketAddress) {
        let socket: TCPSocket
        do {
            socket = try TCPSocket(family: address.family)
        } catch {
            pending.append(.attemptFailed(id, error))
            return
        }
        do {
            if try socket.startConnect(to: address) {
                attempts[id] = (socket, nil)
                pending.append(.attemptSucceeded(id))
                return
            }
        } catch {
            socket.close()
            pending.append(.attemptFailed(id, error))
            return
        }
        let registration = loop.register(socket.fileDescriptor, interest: .writable) { [weak self] _ in
            self?.connectReady(id, address)
        }
        attempts[id] = (socket, registration)
    }

    private func connectReady(_ id: HappyEyeballs.AttemptID, _ address: SocketAddress) {
        guard let attempt = attempts[id] else { return }
        if let registration = attempt.registration { loop.deregister(registration) }
        attempts[id] = (attempt.socket, nil)
        do {
            try attempt.socket.finishConnect(to: address)
            feed(.attemptSucceeded(id))
        } catch {
            attempts[id] = nil
            attempt.socket.close()
            feed(.attemptFailed(id, error))
        }
    }

    private func finish(_ result: Result<TCPConnectResult, TransportError>) {
        if let timer { loop.cancel(timer) }
        timer = nil
        if let mailbox { loop.closeMailbox(mailbox) }
        mailbox = nil
        for (_, attempt) in attempts {
            if let registration = attempt.registration { loop.deregister(registration) }
            attempt.socket.close()
        }
        attempts.removeAll()
        let completion = self.completion
        self.completion = { _ in }
        completion?(result)
    }
}

@available(*, unavailable)
extension TCPDialer: Sendable {}
