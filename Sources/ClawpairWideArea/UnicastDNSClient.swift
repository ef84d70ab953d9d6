// One unicast DNS question to a list of servers: UDP with EDNS(0), TCP when the answer is
// truncated (RFC 1035 §4.2, RFC 7766). Every socket call goes through `Syscall`.
import ClawpairCore
import ClawpairDNS
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Why a unicast query found no usable answer.
public enum WideAreaError: ClawpairError, Equatable {
    /// No server answered before the deadline.
    case timedOut(name: String)
    /// Every server failed: the last failure's description.
    case serverFailed(server: String, reason: String)
    /// A TCP answer declared a length above the limit or ended early.
    case badTCPFrame(server: String, reason: String)

    /// `wide-area-error`: the wide-area DNS server failed.
    public var code: String { "wide-area-error" }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case let .timedOut(name): return "no DNS server answered for \(name) in time"
        case let .serverFailed(server, reason): return "DNS server \(server): \(reason)"
        case let .badTCPFrame(server, reason): return "DNS server \(server) over TCP: \(reason)"
        }
    }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? { "check the DNS servers asked (by default those of /etc/resolv.conf) and that they serve the domain" }
}

/// Sends one question at a time, UDP first, to each server in turn.
public struct UnicastDNSClient: Sendable {
    /// Limits and budgets, each with its default.
    public struct Options: Sendable {
        /// How long one try at one server may take (upstream: `dig +time=1 +tries=1`).
        public var perQuery: Duration = .seconds(1)
        /// The EDNS(0) UDP payload size offered (the DNS Flag Day 2020 value).
        public var udpPayloadSize: UInt16 = 1232
        /// The largest TCP message accepted (the 16-bit length prefix allows 65535).
        public var maxTCPMessage: Int = 65_535
        /// Most questions ``UnicastDNSClient/queryAll(_:deadline:perQuestion:)`` keeps in flight
        /// at one server.
        public var window: Int = 64
        /// The defaults above.
        public init() {}
    }

    /// The servers asked, in order.
    public let servers: [DNSServerAddress]
    /// Timeouts and limits.
    public let options: Options
    /// The time budgets and deadlines are read from.
    public let clock: any MonotonicClock
    /// Called with one line of progress (which server, TCP retries), for `-v`.
    public let note: @Sendable (String) -> Void
    /// Raised: every wait for a server ends at once as if its time were up (from any thread).
    public let stop: StopSignal?
    /// The server that answered last is asked first next time, so one dead server costs one
    /// per-query budget per browse, not one per question.
    private let preferred = PreferredServer()

    private final class PreferredServer: Sendable {
        let index = Mutex(0)
    }

    /// A client asking `servers` in turn, keeping time with `clock`; `stop` ends its waits early.
    public init(servers: [DNSServerAddress], options: Options = Options(), clock: any MonotonicClock = SystemMonotonicClock(),
                stop: StopSignal? = nil, note: @escaping @Sendable (String) -> Void = { _ in }) {
        self.servers = servers
        self.options = options
        self.clock = clock
        self.stop = stop
        self.note = note
    }

    /// Asks `name`/`type` of each server in turn until one gives a response that matches the
    /// question (any RCODE), each try bounded by ``Options/perQuery`` and all by `deadline`.
    public func query(_ name: DNSName, _ type: DNSType, deadline: Monotonic.Instant) throws(WideAreaError) -> DNSMessage {
        var lastError = WideAreaError.timedOut(name: "\(name) \(type)")
        let first = preferred.index.withLock { $0 }
        let order = servers.indices.map { (first + $0) % max(1, servers.count) }
        for index in order {
            let server = servers[index]
            let now = clock.now
            guard now < deadline, stop?.isStopped != true else { break }
            let tryDeadline = min(deadline, now + options.perQuery)
            do {
                if let message = try ask(name, type, server: server, deadline: tryDeadline) {
                    preferred.index.withLock { $0 = index }
                    return message
                }
                note("\(server): no answer for \(name) \(type) within the per-query budget")
            } catch {
                note(error.message)
                lastError = error
            }
        }
        throw lastError
    }

    /// One question of ``queryAll(_:deadline:perQuestion:)``.
    public struct Question: Sendable, Hashable {
        /// The name asked about.
        public let name: DNSName
        /// The record type asked for.
        public let type: DNSType
        /// The question (`name`, `type`).
        public init(_ name: DNSName, _ type: DNSType) {
            self.name = name
            self.type = type
        }
    }

    /// Asks every question at once: up to ``Options/window`` of them in flight on one UDP socket
    /// per server, each matched to its answer by ID and question, each given `perQuestion`
    /// (default ``Options/perQuery``) at a server before it moves on to the next server; a
    /// truncated answer is asked again over TCP. Returns the answers in question order, nil
    /// where no server answered in time. A thousand questions cost about one round trip per
    /// window instead of one per question.
    public func queryAll(_ questions: [Question], deadline: Monotonic.Instant,
                         perQuestion: Duration? = nil) -> [DNSMessage?] {
        var answers = [DNSMessage?](repeating: nil, count: questions.count)
        var remaining = Array(questions.indices)
        let first = preferred.index.withLock { $0 }
        for offset in servers.indices {
            guard !remaining.isEmpty, clock.now < deadline, stop?.isStopped != true else { break }
            let index = (first + offset) % servers.count
            let before = remaining.count
            do {
                try pipeline(questions, remaining, into: &answers, server: servers[index], deadline: deadline,
                             perQuestion: perQuestion ?? options.perQuery)
            } catch {
                note(error.message)
            }
            remaining = remaining.filter { answers[$0] == nil }
            if remaining.count < before { preferred.index.withLock { $0 = index } }
            if !remaining.isEmpty {
                note("\(servers[index]): \(remaining.count) of \(before) question(s) unanswered within the per-query budget")
            }
        }
        return answers
    }

    /// Sends `pending` (indices into `questions`) to `server`, a window at a time, and puts
    /// each answer into `answers`.
    private func pipeline(_ questions: [Question], _ pending: [Int], into answers: inout [DNSMessage?],
                          server: DNSServerAddress, deadline: Monotonic.Instant,
                          perQuestion: Duration) throws(WideAreaError) {
        let fd = try openSocket(server, type: Int32(SOCK_DGRAM.rawValue))
        defer { close(fd) }
        do { try Syscall.retrying("connect") { server.withSockaddr { connect(fd, $0, $1) } } } catch { throw failure(server, error) }
        struct Flight { let index: Int; let query: DNSMessage; let bytes: [UInt8]; let giveUp: Monotonic.Instant }
        var unsent = pending[...]
        var inFlight: [UInt16: Flight] = [:]
        var buffer = [UInt8](repeating: 0, count: 65_535)
        while !unsent.isEmpty || !inFlight.isEmpty {
            let now = clock.now
            guard now < deadline, stop?.isStopped != true else { break }
            while inFlight.count < max(1, options.window), let index = unsent.first {
                unsent = unsent.dropFirst()
                var id = UInt16.random(in: 0...UInt16.max)
                while inFlight[id] != nil { id = UInt16.random(in: 0...UInt16.max) }
                var query = DNSMessage.query(id: id, name: questions[index].name, type: questions[index].type,
                                             recursionDesired: true)
                query.additionals.append(EDNSInfo(udpPayloadSize: options.udpPayloadSize).record)
                guard let bytes = try? query.pack() else { continue }
                let sent: Syscall.Outcome<Int>
                do { sent = try Syscall.nonBlocking("send") { send(fd, bytes, bytes.count, 0) } } catch { throw failure(server, error) }
                guard case .done = sent else { unsent = [index] + unsent; break }  // the socket buffer is full: read first
                inFlight[id] = Flight(index: index, query: query, bytes: bytes, giveUp: min(deadline, now + perQuestion))
            }
            for (id, flight) in inFlight where flight.giveUp <= now { inFlight[id] = nil }
            guard let wake = inFlight.values.map(\.giveUp).min() else { continue }
            guard try wait(fd, .readable, until: wake, server: server) else { continue }
            while true {
                let outcome: Syscall.Outcome<Int>
                do {
                    outcome = try Syscall.nonBlocking("recv") { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
                } catch {
                    // ECONNREFUSED and the like: the server is not there for any of them.
                    throw failure(server, error)
                }
                guard case let .done(count) = outcome else { break }
                guard let message = try? DNSMessage.unpack(Array(buffer[..<count])),
                      let flight = inFlight[message.header.id],
                      Self.matches(message, id: message.header.id, question: flight.query.questions[0]) else { continue }
                inFlight[message.header.id] = nil
                if message.header.isTruncated {
                    let question = flight.query.questions[0]
                    note("\(server): answer for \(question.name) \(question.type) truncated; retrying over TCP")
                    answers[flight.index] = try? tcp(flight.bytes, server: server, id: message.header.id, question: question,
                                                     deadline: min(deadline, clock.now + perQuestion))
                } else {
                    answers[flight.index] = message
                }
            }
        }
    }

    private func ask(_ name: DNSName, _ type: DNSType, server: DNSServerAddress,
                     deadline: Monotonic.Instant) throws(WideAreaError) -> DNSMessage? {
        let id = UInt16.random(in: 0...UInt16.max)
        var query = DNSMessage.query(id: id, name: name, type: type, recursionDesired: true)
        query.additionals.append(EDNSInfo(udpPayloadSize: options.udpPayloadSize).record)
        let bytes: [UInt8]
        do { bytes = try query.pack() } catch { throw .serverFailed(server: server.description, reason: "cannot encode the query: \(error)") }
        guard let reply = try udp(bytes, server: server, id: id, question: query.questions[0], deadline: deadline) else {
            return nil
        }
        guard reply.header.isTruncated else { return reply }
        note("\(server): answer for \(name) \(type) truncated; retrying over TCP")
        return try tcp(bytes, server: server, id: id, question: query.questions[0], deadline: deadline)
    }

    /// Whether `message` answers our query: a response with our ID and exactly our question
    /// (name compared ignoring ASCII case, RFC 4343).
    static func matches(_ message: DNSMessage, id: UInt16, question: DNSQuestion) -> Bool {
        guard message.header.isResponse, message.header.id == id, message.questions.count == 1 else { return false }
        let got = message.questions[0]
        return got.type == question.type && got.class == question.class && got.name.equalsIgnoringCase(question.name)
    }

    private func failure(_ server: DNSServerAddress, _ error: SystemError) -> WideAreaError {
        .serverFailed(server: server.description, reason: "\(error.call): \(String(cString: strerror(error.errno)))")
    }

    private func openSocket(_ server: DNSServerAddress, type: Int32) throws(WideAreaError) -> Int32 {
        let family = server.family == .ipv4 ? AF_INET : AF_INET6
        do {
            return try Syscall.retrying("socket") { socket(family, type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }
        } catch { throw failure(server, error) }
    }

    /// Waits until `fd` is ready for `events` or `deadline` passes; false on timeout, and at once
    /// when ``stop`` is raised.
    private func wait(_ fd: Int32, _ events: PollEvents, until deadline: Monotonic.Instant,
                      server: DNSServerAddress) throws(WideAreaError) -> Bool {
        guard clock.now < deadline, stop?.isStopped != true else { return false }
        let wakeup = stop.map { StopWakeup($0) }
        var descriptors = [PollDescriptor(fd, events)]
        if let stopping = wakeup?.pollDescriptor { descriptors.append(stopping) }
        do { try Poll.wait(&descriptors, until: deadline, clock: clock) } catch { throw failure(server, error) }
        return stop?.isStopped != true && !descriptors[0].ready.isEmpty
    }

    /// One UDP exchange on a connected socket (the kernel then delivers only datagrams from the
    /// server's address and port); datagrams that do not match our ID and question are dropped.
    private func udp(_ bytes: [UInt8], server: DNSServerAddress, id: UInt16, question: DNSQuestion,
                     deadline: Monotonic.Instant) throws(WideAreaError) -> DNSMessage? {
        let fd = try openSocket(server, type: Int32(SOCK_DGRAM.rawValue))
        defer { close(fd) }
        do {
            try Syscall.retrying("connect") { server.withSockaddr { connect(fd, $0, $1) } }
            try Syscall.retrying("send") { send(fd, bytes, bytes.count, 0) }
        } catch { throw failure(server, error) }
        var buffer = [UInt8](repeating: 0, count: 65_535)
        while try wait(fd, .readable, until: deadline, server: server) {
            let outcome: Syscall.Outcome<Int>
            do {
                outcome = try Syscall.nonBlocking("recv") { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            } catch { throw failure(server, error) }
            guard case let .done(count) = outcome else { continue }
            guard let message = try? DNSMessage.unpack(Array(buffer[..<count])),
                  Self.matches(message, id: id, question: question) else { continue }
            return message
        }
        return nil
    }

    /// One TCP exchange: non-blocking connect, the query with its 2-byte length, then one
    /// length-prefixed answer of at most ``Options/maxTCPMessage`` bytes.
    private func tcp(_ bytes: [UInt8], server: DNSServerAddress, id: UInt16, question: DNSQuestion,
                     deadline: Monotonic.Instant) throws(WideAreaError) -> DNSMessage? {
        let fd = try openSocket(server, type: Int32(SOCK_STREAM.rawValue))
        defer { close(fd) }
        let started: Syscall.Outcome<Int32>
        do { started = try Syscall.nonBlocking("connect") { server.withSockaddr { connect(fd, $0, $1) } } } catch {
            throw failure(server, error)
        }
        if case .wouldBlock = started {
            guard try wait(fd, .writable, until: deadline, server: server) else { return nil }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            do { try Syscall.retrying("getsockopt") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) } } catch {
                throw failure(server, error)
            }
            if code != 0 { throw failure(server, SystemError(call: "connect", errno: code)) }
        }
        let frame = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        var sent = 0
        while sent < frame.count {
            let outcome: Syscall.Outcome<Int>
            do {
                outcome = try Syscall.nonBlocking("send") {
                    frame.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                }
            } catch { throw failure(server, error) }
            switch outcome {
            case let .done(count): sent += count
            case .wouldBlock: guard try wait(fd, .writable, until: deadline, server: server) else { return nil }
            }
        }
        guard let prefix = try read(fd, count: 2, server: server, deadline: deadline) else { return nil }
        let length = Int(prefix[0]) << 8 | Int(prefix[1])
        guard length >= 12, length <= options.maxTCPMessage else {
            throw .badTCPFrame(server: server.description, reason: "declared length \(length) is outside 12…\(options.maxTCPMessage)")
        }
        guard let body = try read(fd, count: length, server: server, deadline: deadline) else { return nil }
        let message: DNSMessage
        do { message = try DNSMessage.unpack(body) } catch {
            throw .badTCPFrame(server: server.description, reason: "malformed answer: \(error)")
        }
        guard Self.matches(message, id: id, question: question) else {
            throw .badTCPFrame(server: server.description, reason: "the answer does not match the question")
        }
        return message
    }

    /// Exactly `count` bytes, or nil at the deadline.
    private func read(_ fd: Int32, count: Int, server: DNSServerAddress,
                      deadline: Monotonic.Instant) throws(WideAreaError) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let outcome: Syscall.Outcome<Int>
            do {
                outcome = try Syscall.nonBlocking("recv") {
                    bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
                }
            } catch { throw failure(server, error) }
            switch outcome {
            case .done(0):
                throw .badTCPFrame(server: server.description, reason: "connection closed after \(got) of \(count) bytes")
            case let .done(n): got += n
            case .wouldBlock: guard try wait(fd, .readable, until: deadline, server: server) else { return nil }
            }
        }
        return bytes
    }
}
