import ClawpairCore
import ClawpairTestSupport
@testable import ClawpairTransport
import Foundation
import Glibc
import Testing

/// Durations and sizes a peer controls: deadlines saturate, the loop never traps on a far
/// deadline, and a peer that stops reading fails the stream once its queue passes the bound.
@Suite("Transport: hostile numbers and peers that do not read", .serialized)
struct HostileNumbersTests {
    @Test("timers at either end of the clock neither trap nor misfire")
    func farTimers() throws {
        let clock = ManualClock(Monotonic.Instant(nanoseconds: 1 << 60))
        let loop = try EventLoop(clock: clock)
        var fired = 0
        // A deadline that wrapped far into the past (what a 2^62 ms tick made before) is due at
        // once; the poll timeout computed from it must not overflow.
        loop.schedule(at: Monotonic.Instant(nanoseconds: .min)) {
            fired += 1
            loop.schedule(at: Monotonic.Instant(nanoseconds: .min + 1)) { fired += 1 }
        }
        loop.schedule(at: clock.now.advanced(by: .milliseconds(Int64(1) << 62))) { Issue.record("fired a timer at the end of time") }
        try loop.run(until: clock.now.advanced(by: .seconds(1)), while: { fired < 2 })
        #expect(fired == 2)
    }

    @Test("a peer that never reads: the stream fails with peerNotReading once the queue passes its bound")
    func peerNotReading() throws {
        let listener = try LoopbackListener(ip: "127.0.0.1")
        let loop = try EventLoop()
        var stream: StreamConnection?
        var failure: StreamError?
        let dialer = TCPDialer(loop: loop, host: "127.0.0.1", port: listener.port)
        dialer.start { result in
            guard case .success(let connected) = result else { return }
            let connection = StreamConnection(loop: loop, socket: connected.socket, remoteAddress: connected.address,
                                              maxQueuedBytes: 256 * 1024)
            connection.onEvent = { if case .failed(let error) = $0 { failure = error } }
            stream = connection
        }
        try runLoop(loop) { stream != nil }
        // The listener never accepts nor reads: the kernel buffers fill, then our queue does.
        let chunk = [UInt8](repeating: 0x42, count: 64 * 1024)
        var sent = 0
        while failure == nil && sent < 256 << 20 {
            stream?.send(chunk)
            sent += chunk.count
        }
        guard case .peerNotReading(let queued, let limit)? = failure else {
            Issue.record("no failure after \(sent) bytes: \(String(describing: failure))")
            return
        }
        #expect(limit == 256 * 1024 && queued > limit)
        #expect(stream?.isFinished == true)
        #expect(failure?.message.contains("the peer stopped reading") == true)
    }
}
