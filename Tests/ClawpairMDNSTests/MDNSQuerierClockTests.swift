import ClawpairCore
import ClawpairMDNS
import ClawpairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The native querier keeps time with the clock it is given (real sockets in a lab namespace, as
/// in MDNSQuerierLabTests). The ManualClock reads far beyond the system clock, so a deadline that
/// has passed on it lies centuries ahead on the system clock: a querier reading the system clock
/// would wait for it, and the time limit catches that hang.
@Suite("native mDNS querier on an injected clock", .serialized, .networkLab, .timeLimit(.minutes(1)))
struct MDNSQuerierClockTests {
    @Test("a deadline passed on the injected clock ends the run at once, before the first query is due")
    func deadlineOnInjectedClock() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            let (events, now, deadline) = try await a.inNamespace { () throws -> (Int, Monotonic.Instant, Monotonic.Instant) in
                let clock = ManualClock(Monotonic.Instant(nanoseconds: Int64.max / 2))
                let querier = try MDNSQuerier(serviceType: "_openclaw-gw._tcp.local.", clock: clock)
                let deadline = clock.now
                clock.advance(by: .milliseconds(10))
                var events = 0
                try querier.run(until: deadline) { _ in
                    events += 1
                    return true
                }
                return (events, clock.now, deadline)
            }
            #expect(events == 0)
            #expect(now > deadline, "the querier does not move the clock")
        }
    }

    @Test("a stop raised from another thread wakes a run with an hour to go from its wait on the sockets")
    func stopWakesTheWait() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            try await lab.link(a, b)
            let stopped = try await a.inNamespace { () throws -> Bool in
                let clock = ReadingClock()
                let querier = try MDNSQuerier(serviceType: "_openclaw-gw._tcp.local.", clock: clock)
                let stop = StopSignal()
                // Raised once the run goes to wait on its sockets (its first query is out): the run reads
                // the clock at its turn's start, then for the poll's timeout. Only the time limit catches
                // a run that never wakes.
                BackgroundThread.detached {
                    clock.readings.wait { $0 >= 2 }
                    stop.stop()
                }
                try querier.run(until: Monotonic.now + .seconds(3600), stop: stop) { _ in true }
                return stop.isStopped
            }
            #expect(stopped, "the run returned because of the stop")
        }
    }
}

/// The system clock, counting its readings (for a test to know how far a run got).
final class ReadingClock: MonotonicClock {
    let readings = Watched(0)
    var now: Monotonic.Instant {
        readings.update { $0 += 1 }
        return Monotonic.now
    }
    func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
        SystemMonotonicClock().sleep(until: deadline, unless: stopped)
    }
}
