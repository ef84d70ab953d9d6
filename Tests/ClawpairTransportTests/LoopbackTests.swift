import ClawpairCore
import ClawpairTestSupport
@testable import ClawpairTransport
import Foundation
import Glibc
import Synchronization
import Testing

/// Sockets, the event loop, Happy Eyeballs and TLS against real loopback peers. Nothing leaves
/// the machine: every address is 127.0.0.1 or ::1.
@Suite("Transport on loopback", .serialized)
struct LoopbackTests {
    @Test func timersFireInOrderAndMailboxesCrossThreads() throws {
        let loop = try EventLoop()
        var fired: [Int] = []
        let now = loop.clock.now
        loop.schedule(at: now.advanced(by: .milliseconds(20))) { fired.append(2) }
        loop.schedule(at: now.advanced(by: .milliseconds(5))) { fired.append(1) }
        let cancelled = loop.schedule(at: now.advanced(by: .milliseconds(10))) { fired.append(99) }
        loop.cancel(cancelled)
        var received: [String] = []
        let mailbox = loop.makeMailbox { (text: String) in received.append(text) }
        Thread.detachNewThread { mailbox.deliver("from another thread") }
        try runLoop(loop) { fired.count == 2 && received.count == 1 }
        #expect(fired == [1, 2])
        #expect(received == ["from another thread"])
        #expect(loop.clock.now >= now.advanced(by: .milliseconds(20)))
    }

    @Test func runStopsAtTheDeadline() throws {
        let loop = try EventLoop()
        let start = loop.clock.now
        try loop.run(until: start.advanced(by: .milliseconds(30)), while: { true })
        #expect(loop.clock.now >= start.advanced(by: .milliseconds(30)))
    }

    @Test func dialsAnIPLiteral() throws {
        let listener = try LoopbackListener(ip: "127.0.0.1")
        let loop = try EventLoop()
        var outcome: Result<TCPConnectResult, TransportError>?
        let resolver = CountingResolver()
        let dialer = TCPDialer(loop: loop, host: "127.0.0.1", port: listener.port, resolver: resolver)
        dialer.start { outcome = $0 }
        #expect(outcome == nil, "the completion never runs inside start")
        try runLoop(loop) { outcome != nil }
        let result = try #require(try outcome?.get())
        #expect(result.address == SocketAddress(ip: "127.0.0.1", port: listener.port))
        #expect(result.socket.fileDescriptor >= 0)
        #expect(result.resolutionDuration == .zero, "an IP literal is not resolved")
        #expect(resolver.calls.withLock { $0 } == 0)
    }

    @Test func refusedPortFails() throws {
        let port = try LoopbackListener(ip: "127.0.0.1").port  // closed again at once
        let loop = try EventLoop()
        var outcome: Result<TCPConnectResult, TransportError>?
        let dialer = TCPDialer(loop: loop, host: "127.0.0.1", port: port)
        dialer.start { outcome = $0 }
        try runLoop(loop) { outcome != nil }
        guard case .failure(let error)? = outcome else { Issue.record("connected to a closed port"); return }
        #expect(error.isRefused, "\(error)")
    }

    @Test func fallsBackToIPv4WhenIPv6IsRefused() throws {
        let listener = try LoopbackListener(ip: "127.0.0.1")
        let loop = try EventLoop()
        var outcome: Result<TCPConnectResult, TransportError>?
        let dialer = TCPDialer(loop: loop, host: "gw.test", port: listener.port,
                               resolver: ScriptedResolver(ipv6: ["::1"], ipv4: ["127.0.0.1"]))
        dialer.start { outcome = $0 }
        try runLoop(loop) { outcome != nil }
        let result = try #require(try outcome?.get())
        #expect(result.address.family == .ipv4)
        // That the refusal starts the next attempt at once, not after the 250 ms attempt delay,
        // is HappyEyeballsTests' (on instants, not a clock): here, that real sockets get there.
    }

    @Test func hangingFirstAttemptIsOvertakenAfterTheAttemptDelay() throws {
        // [::1]:P listens with a full backlog, so a SYN to it is dropped and connect hangs;
        // 127.0.0.1:P accepts.
        let v6 = try LoopbackListener(ip: "::1", backlog: 0)
        let filler = blockingConnect(ip: "::1", port: v6.port)
        defer { close(filler) }
        let v4 = try LoopbackListener(ip: "127.0.0.1", port: v6.port)
        let loop = try EventLoop()
        var outcome: Result<TCPConnectResult, TransportError>?
        let dialer = TCPDialer(loop: loop, host: "gw.test", port: v6.port,
                               resolver: ScriptedResolver(ipv6: ["::1"], ipv4: ["127.0.0.1"]))
        dialer.start { outcome = $0 }
        try runLoop(loop) { outcome != nil }
        let result = try #require(try outcome?.get())
        #expect(result.address == SocketAddress(ip: "127.0.0.1", port: v4.port))
        // Measured from the instant the 250 ms attempt timer was armed from, and timers never fire
        // early: not a speed claim.
        #expect(result.connectDuration >= .milliseconds(250))
    }

    @Test func cancelReportsCancelled() throws {
        let v6 = try LoopbackListener(ip: "::1", backlog: 0)
        let filler = blockingConnect(ip: "::1", port: v6.port)
        defer { close(filler) }
        let loop = try EventLoop()
        var outcome: Result<TCPConnectResult, TransportError>?
        let dialer = TCPDialer(loop: loop, host: "::1", port: v6.port)
        dialer.start { outcome = $0 }
        loop.schedule(at: loop.clock.now.advanced(by: .milliseconds(30))) { dialer.cancel() }
        try runLoop(loop) { outcome != nil }
        #expect(outcome.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
    }

    @Test func systemResolverReadsHosts() throws {
        let answer = SystemResolver.lookup(host: "localhost", port: 80, family: .ipv4, limit: 4)
        #expect((try? answer.get())?.contains(SocketAddress(ip: "127.0.0.1", port: 80)!) == true)
        if case .success = SystemResolver.lookup(host: "no-such-host.invalid", port: 80, family: .ipv4, limit: 4) {
            Issue.record("resolved a .invalid name")
        }
    }

    /// Dials `port`, optionally runs TLS, sends `request` and collects the reply until the peer closes.
    func exchange(port: Int, tls: Bool, request: String) throws -> (TLSPeerCertificate?, String?, StreamError?) {
        let loop = try EventLoop()
        let context = try TLSContext()
        var certificate: TLSPeerCertificate?
        var reply: [UInt8] = []
        var failure: StreamError?
        var done = false
        var connection: StreamConnection?
        let dialer = TCPDialer(loop: loop, host: "127.0.0.1", port: port)
        dialer.start { result in
            guard case .success(let connected) = result else { failure = .transport(.cancelled); done = true; return }
            let stream = StreamConnection(loop: loop, socket: connected.socket, remoteAddress: connected.address)
            connection = stream
            stream.onEvent = { event in
                switch event {
                case .data(let bytes): reply += bytes
                case .closed: done = true
                case .failed(let error): failure = error; done = true
                }
            }
            if tls {
                do {
                    let engine = try TLSClientEngine(context: context, serverName: "127.0.0.1")
                    stream.startTLS(engine) { result in
                        switch result {
                        case .success(let engine):
                            certificate = engine.peerCertificate
                            #expect(engine.protocolVersion == "TLSv1.3")
                            stream.send(Array(request.utf8))
                        case .failure(let error):
                            failure = error
                            done = true
                        }
                    }
                } catch let error as TLSError {
                    failure = .tls(error)
                    done = true
                } catch {
                    done = true
                }
            } else {
                stream.send(Array(request.utf8))
            }
        }
        try runLoop(loop) { done }
        connection?.close()
        return (certificate, reply.isEmpty ? nil : String(decoding: reply, as: UTF8.self), failure)
    }

    @Test func tlsReportsTheFingerprintAndCarriesData() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        try await withFixtureServer(mode: "http", certificate: certificate) { port in
            let (peer, reply, failure) = try exchange(port: port, tls: true, request: "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(failure == nil)
            #expect(peer?.fingerprint == certificate.fingerprint)
            #expect(peer?.fingerprint?.count == 64)
            #expect(peer?.systemTrusted == false)
            #expect(peer?.verificationError?.contains("self-signed") == true, "\(String(describing: peer))")
            #expect(reply?.hasPrefix("HTTP/1.1 200 OK") == true, "\(reply ?? "nil")")
            // The decision table on what was observed.
            let observed = try #require(peer)
            #expect(TLSTrust.evaluate(observed, policy: TLSPinPolicy(pin: certificate.fingerprint)) == .success(.pinned))
            #expect(TLSTrust.evaluate(observed, policy: TLSPinPolicy()) == .failure(.untrustedCertificate(
                observed: certificate.fingerprint, reason: observed.verificationError)))
        }
    }

    @Test func tlsToAPlaintextServerFails() async throws {
        try await withFixtureServer(mode: "http") { port in
            let (peer, _, failure) = try exchange(port: port, tls: true, request: "")
            #expect(peer == nil)
            guard case .tls(let error)? = failure else { Issue.record("no TLS failure: \(String(describing: failure))"); return }
            switch error {
            case .handshakeFailed, .closedDuringHandshake: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func plaintextExchange() async throws {
        try await withFixtureServer(mode: "http") { port in
            let (_, reply, failure) = try exchange(port: port, tls: false, request: "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(failure == nil)
            #expect(reply?.contains("not a gateway") == true)
        }
    }
}
