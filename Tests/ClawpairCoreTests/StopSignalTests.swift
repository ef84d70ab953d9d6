import ClawpairCore
import ClawpairTestSupport
import Synchronization
import Testing

/// The stop signal: raised once, handlers run once, sleeps end at the raise, and the async
/// bridge turns Task cancellation into the raise.
@Suite struct StopSignalTests {
    @Test("raising runs every handler once; raising again does nothing")
    func handlersRunOnce() {
        let stop = StopSignal()
        let count = Atomic<Int>(0)
        stop.onStop { count.add(1, ordering: .relaxed) }
        stop.onStop { count.add(10, ordering: .relaxed) }
        #expect(!stop.isStopped)
        stop.stop()
        stop.stop()
        #expect(stop.isStopped)
        #expect(count.load(ordering: .relaxed) == 11)
    }

    @Test("a handler added after the raise runs at once; a removed one never runs")
    func lateAndRemovedHandlers() {
        let stop = StopSignal()
        let count = Atomic<Int>(0)
        let removed = stop.onStop { count.add(100, ordering: .relaxed) }
        stop.removeHandler(removed)
        stop.stop()
        #expect(count.load(ordering: .relaxed) == 0)
        let late = stop.onStop { count.add(1, ordering: .relaxed) }
        #expect(late == nil)
        #expect(count.load(ordering: .relaxed) == 1)
    }

    @Test("a joined signal is raised by either parent")
    func joined() {
        let first = StopSignal(), second = StopSignal()
        let both = first.joined(with: second)
        #expect(!both.isStopped)
        second.stop()
        #expect(both.isStopped)
        #expect(!first.isStopped)
        #expect(first.joined(with: nil) === first)
    }

    @Test("a sleep on an injected clock reaches its deadline when nothing raises the signal")
    func sleepReachesDeadline() {
        let clock = ManualClock()
        let deadline = clock.now + .seconds(5)
        #expect(StopSignal().sleep(until: deadline, clock: clock) == false)
        #expect(clock.now == deadline)
    }

    @Test("a sleep on the system clock with no deadline ends when another thread raises the signal")
    func sleepEndsAtRaise() {
        let stop = StopSignal()
        let raiser = BackgroundThread { stop.stop() }
        #expect(stop.sleep(until: Monotonic.Instant(nanoseconds: .max), clock: SystemMonotonicClock()))
        raiser.join()
    }

    @Test("check throws the stopped outcome, with code cancelled")
    func check() throws {
        let stop = StopSignal()
        try stop.check()
        stop.stop()
        #expect(throws: OperationStopped.self) { try stop.check() }
        #expect(OperationStopped().code == "cancelled")
    }

    @Test("LoopThread.run: cancelling the task raises the body's signal and the body's outcome is returned")
    func loopThreadCancellation() async {
        let started = StopSignal()
        let task = Task {
            try await LoopThread.run { (stop: StopSignal) throws(OperationStopped) -> Int in
                started.stop()
                // Waits for the stop without a deadline: only the cancellation ends it.
                stop.wait()
                try stop.check()
                return 1
            }
        }
        // Never block a cooperative-pool thread here: the task above needs one to start.
        #expect(await started.raised())
        task.cancel()
        let result = await task.result
        #expect(throws: OperationStopped.self) { try result.get() }
    }

    @Test("LoopThread.run returns the body's value on its thread")
    func loopThreadValue() async throws {
        let value = try await LoopThread.run { (_: StopSignal) throws(OperationStopped) -> Int in 42 }
        #expect(value == 42)
    }

    @Test("LoopThread.stream: dropping the stream raises the producer's signal, which then returns")
    func streamTermination() async throws {
        let producerEnded = StopSignal()
        /// Reads three values; the stream goes away when this returns.
        func firstThree() async throws -> [Int] {
            let stream = LoopThread.stream { (yield: @escaping @Sendable (Int) -> Void, stop: StopSignal) throws in
                for value in 0..<3 { yield(value) }
                // Then waits with no deadline: only the stream going away ends this.
                stop.wait()
                producerEnded.stop()
                throw OperationStopped()
            }
            var seen: [Int] = []
            for try await value in stream {
                seen.append(value)
                if seen.count == 3 { break }
            }
            return seen
        }
        #expect(try await firstThree() == [0, 1, 2])
        #expect(await producerEnded.raised())
    }

    @Test("LoopThread.stream: cancelling the consuming task ends the stream and the producer")
    func streamCancellation() async throws {
        let producerEnded = StopSignal()
        let stream = LoopThread.stream { (yield: @escaping @Sendable (Int) -> Void, stop: StopSignal) throws in
            yield(1)
            stop.wait()
            producerEnded.stop()
        }
        let consumer = Task {
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        while true {
            // Cancel once the consumer has had its value or not; either way the stream must end.
            await Task.yield()
            consumer.cancel()
            break
        }
        _ = try await consumer.value
        #expect(await producerEnded.raised())
    }
}
