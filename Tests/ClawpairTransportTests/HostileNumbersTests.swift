import ClawpairTestSupport
@testable import ClawpairTransport
import Foundation
import Glibc
import Testing

/// Durations and sizes a peer controls: deadlines saturate, the loop never traps on a far
/// deadline, and a peer that stops reading fails the stream once its queue passes the bound.
@Suite("Transport: hostile numbers and peers that do not read", .serialized)
struct HostileNumbersTests {
    /// A clock the test sets.
    final class FixedClock: MonotonicClock, @unchecked Sendable {
        var instant: MonotonicInstant
        init(_ instant: MonotonicInstant) { self.instant = instant }
        func now() -> MonotonicInstant { instant }
    }

    @Test("instants saturate at the ends of the clock")
    func instantsSaturate() {
        let now = MonotonicInstant(nanoseconds: 1_000_000_000)
        #expect(now.advanced(by: .milliseconds(Int64(1) << 62)).nanoseconds == Int64.max)
        #expect(now.advanced(by: .milliseconds(Int64(1) << 62) * 2).nanoseconds == Int64.max)
        #expect(MonotonicInstant(nanoseconds: -1).advanced(by: .seconds(-Int64.max)).nanoseconds == Int64.min)
        #expect(MonotonicInstant(nanoseconds: .min).duration(since: now) == .nanoseconds(Int64.min))
        #expect(MonotonicInstant(nanoseconds: .max).duration(since: MonotonicInstant(nanoseconds: -1)) == .nanoseconds(Int64.max))
        #expect(MonotonicInstant.milliseconds(.max).nanoseconds == Int64.max)
        #expect(MonotonicInstant.milliseconds(.min).nanoseconds == Int64.min)
    }

    @Test("timers at either end of the clock neither trap nor misfire")
    func farTimers() throws {
        let clock = FixedClock(MonotonicInstant(nanoseconds: 1 << 60))
        let loop = try EventLoop(clock: clock)
        var fired = 0
        // A deadline that wrapped far into the past (what a 2^62 ms tick made before) is due at
        // once; the poll timeout computed from it must not overflow.
        loop.schedule(at: MonotonicInstant(nanoseconds: .min)) {
            fired += 1
            loop.schedule(at: MonotonicInstant(nanoseconds: .min + 1)) { fired += 1 }
        }
        loop.schedule(at: clock.now().advanced(by: .milliseconds(Int64(1) << 62))) { Issue.record("fired a timer at the end of time") }
        try loop.run(until: clock.now().advanced(by: .seconds(1)), while: { fired < 2 })
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
