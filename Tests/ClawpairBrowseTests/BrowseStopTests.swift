@testable import ClawpairBrowse
import ClawpairCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Stopping a browse run from another thread: the run throws the stopped outcome at once, and
/// its sources end on their own.
@Suite struct BrowseStopTests {
    /// A source that reports once, then browses until the run no longer listens.
    struct EndlessSource: GatewaySource {
        let log: Log

        func run(_ context: SourceContext, teardown: Teardown) throws {
            context.note("browsing")
            while !context.stopped {
                var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
                nanosleep(&pause, nil)
            }
            log.add("source ended")
        }
    }

    @Test("a watch with an hour to go throws OperationStopped when another thread raises its signal")
    func stopEndsWatch() throws {
        let log = Log()
        let stop = StopSignal()
        let run = BrowseRun(sources: [EndlessSource(log: log)], clock: SystemMonotonicClock(), timeout: .seconds(3600),
                            firstAnswer: false, stop: stop)
        var notes: [String] = []
        #expect(throws: OperationStopped.self) {
            try run.run { message in
                if case .note(let line) = message {
                    notes.append(line)
                    BackgroundThread.detached { stop.stop() }
                }
                return true
            }
        }
        #expect(notes == ["browsing"])
        log.waitUntil { $0.contains("source ended") }
        #expect(log.all == ["source ended"])
    }

    @Test("a signal raised before the run starts ends it before any source reports")
    func alreadyStopped() {
        let log = Log()
        let stop = StopSignal()
        stop.stop()
        let run = BrowseRun(sources: [EndlessSource(log: log)], clock: SystemMonotonicClock(), timeout: .seconds(3600),
                            firstAnswer: false, stop: stop)
        #expect(throws: OperationStopped.self) { try run.run { _ in true } }
    }
}
