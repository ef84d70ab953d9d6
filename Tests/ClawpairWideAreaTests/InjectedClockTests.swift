import ClawpairCore
import ClawpairDNS
import ClawpairWideArea
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The unicast client and the wide-area browser keep time with the clock they are given: budgets
/// and deadlines pass when a ``ManualClock`` says so. The servers are UDP sockets on 127.0.0.1 in
/// this process; each moves the clock when it handles a query, so nothing waits for real time.
@Suite("wide-area on an injected clock", .serialized)
struct InjectedClockTests {
    @Test("the per-query budget is measured on the injected clock: a server that lets it pass is skipped")
    func perQueryBudget() throws {
        let clock = ManualClock()
        // The first server lets 1.5 s pass (more than the 1 s budget), then sends a datagram that
        // is no answer; the client wakes, sees the budget gone and asks the second server.
        let slow = try LoopbackDNSServer { _ in
            clock.advance(by: .milliseconds(1500))
            return [Array("not an answer".utf8)]
        }
        let good = try LoopbackDNSServer { query in
            [try Self.reply(to: query, answers: [DNSResourceRecord(name: query.questions[0].name, ttl: 60,
                                                                    data: .a(IPv4Address(0xC000_0207)))])]
        }
        let notes = Mutex<[String]>([])
        let client = UnicastDNSClient(servers: [slow.address, good.address], clock: clock,
                                      note: { line in notes.withLock { $0.append(line) } })
        let answer = try client.query(try DNSName("gw.openclaw.internal."), .a, deadline: clock.now + .seconds(10))
        #expect(answer.answers.map(\.data) == [DNSRecordData.a(IPv4Address(0xC000_0207))])
        #expect(slow.queries == 1 && good.queries == 1)
        #expect(notes.withLock { $0 }.contains { $0.contains("no answer for gw.openclaw.internal. A within the per-query budget") },
                "\(notes.withLock { $0 })")
    }

    @Test("a stop raised while the client waits for a server ends the wait at once (only the time limit catches a hang)",
          .timeLimit(.minutes(1)))
    func stopEndsTheWait() throws {
        let stop = StopSignal()
        // The server takes the query and raises the stop instead of answering; the client would
        // otherwise wait out an hour-long budget.
        let server = try LoopbackDNSServer { _ in
            stop.stop()
            return []
        }
        var options = UnicastDNSClient.Options()
        options.perQuery = .seconds(3600)
        let client = UnicastDNSClient(servers: [server.address], options: options, stop: stop)
        #expect(throws: WideAreaError.timedOut(name: "gw.openclaw.internal. A")) {
            try client.query(try DNSName("gw.openclaw.internal."), .a, deadline: Monotonic.now + .seconds(3600))
        }
        #expect(server.queries == 1 && stop.isStopped)
    }

    @Test("a deadline already passed on the injected clock asks no server")
    func deadlinePassed() throws {
        let clock = ManualClock()
        let server = try LoopbackDNSServer { _ in [] }
        let client = UnicastDNSClient(servers: [server.address], clock: clock)
        let deadline = clock.now
        clock.advance(by: .seconds(1))
        #expect(throws: WideAreaError.timedOut(name: "gw.openclaw.internal. A")) {
            try client.query(try DNSName("gw.openclaw.internal."), .a, deadline: deadline)
        }
        #expect(server.queries == 0)
    }

    @Test("the browser resolves no instance once the injected clock passes its deadline")
    func browserDeadline() throws {
        let clock = ManualClock()
        let service = try DNSName("_openclaw-gw._tcp.openclaw.internal.")
        // The PTR answer lists two instances, and the clock passes the deadline while it is sent.
        let server = try LoopbackDNSServer { query in
            clock.advance(by: .seconds(30))
            let records = try ["one", "two"].map { name in
                DNSResourceRecord(name: service, ttl: 60, data: .ptr(try DNSName("\(name).\(service)")))
            }
            return [try Self.reply(to: query, answers: records)]
        }
        let browser = WideAreaBrowser(client: UnicastDNSClient(servers: [server.address], clock: clock))
        var found: [WideAreaService] = []
        let result = try browser.browse(domain: "openclaw.internal", deadline: clock.now + .seconds(5)) {
            found.append($0)
            return true
        }
        #expect(result.listed.map(\.description) == ["one.\(service)", "two.\(service)"])
        #expect(found.isEmpty, "instances were resolved after the deadline")
        #expect(server.queries == 1, "only the PTR question was asked")
    }

    /// An answer to `query` with its ID and question.
    static func reply(to query: DNSMessage, answers: [DNSResourceRecord]) throws -> [UInt8] {
        var header = DNSHeader(id: query.header.id)
        header.isResponse = true
        return try DNSMessage(header: header, questions: query.questions, answers: answers).pack()
    }
}

/// A UDP DNS server on 127.0.0.1 (an ephemeral port) that hands each query to `respond` on a
/// thread of its own and sends back the datagrams it returns. Closed in `deinit`.
final class LoopbackDNSServer: Sendable {
    let address: DNSServerAddress
    private let fd: Int32
    private let handled = Counter()
    private let thread: BackgroundThread?

    private final class Counter: Sendable {
        let value = Mutex(0)
    }

    /// Queries handled so far.
    var queries: Int { handled.value.withLock { $0 } }

    init(respond: @escaping @Sendable (DNSMessage) throws -> [[UInt8]]) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError(call: "socket", errno: errno) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, let address = DNSServerAddress.parse("127.0.0.1:\(UInt16(bigEndian: local.sin_port))") else {
            close(fd)
            throw SystemError(call: "bind", errno: errno)
        }
        self.fd = fd
        self.address = address
        let handled = handled
        thread = BackgroundThread.start { [fd] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            var peer = sockaddr_storage()
            while true {
                var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let count = withUnsafeMutablePointer(to: &peer) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(fd, &buffer, buffer.count, 0, $0, &peerLength)
                    }
                }
                // The socket was shut down (deinit): stop.
                guard count > 0 else { return }
                guard let query = try? DNSMessage.unpack(Array(buffer[..<count])) else { continue }
                let replies = (try? respond(query)) ?? []
                handled.value.withLock { $0 += 1 }
                for reply in replies {
                    _ = withUnsafePointer(to: &peer) { pointer in
                        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(fd, reply, reply.count, 0, $0, peerLength)
                        }
                    }
                }
            }
        }
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        thread?.join()
        close(fd)
    }
}
