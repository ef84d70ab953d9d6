import ClawpairCore
import ClawpairTransport
import Testing

/// A loop that waits with no deadline and nothing to do returns when another thread raises its
/// stop signal (woken through its mailbox pipe).
@Suite struct EventLoopStopTests {
    @Test("run with no deadline returns once a stop signal it watches is raised from another thread")
    func stopWakesLoop() throws {
        let loop = try EventLoop()
        let stop = StopSignal()
        loop.stop(on: stop)
        let raiser = BackgroundThread { stop.stop() }
        try loop.run(until: nil) { true }
        #expect(loop.isStopped)
        raiser.join()
    }

    @Test("a signal raised before the run ends it before any round")
    func alreadyRaised() throws {
        let loop = try EventLoop(clock: ManualClock())
        let stop = StopSignal()
        stop.stop()
        loop.stop(on: stop)
        var fired = false
        loop.schedule(at: loop.clock.now) { fired = true }
        try loop.run(until: nil) { true }
        #expect(!fired)
    }
}
