import ClawpairCore
import Testing

/// The bounded runner that discovery's tailnet check and the advertiser's tailnet hint share:
/// output on exit 0, nil otherwise, and never more than its size bound.
@Suite struct BoundedCommandTests {
    static let later = Monotonic.now + .seconds(300)

    @Test("the output of a program that exits 0; nil when it fails, cannot start, or a stop came first")
    func outputAndFailures() {
        #expect(BoundedCommand.output(of: ["printf", "a b"], until: Self.later, maxBytes: 64) == Array("a b".utf8))
        #expect(BoundedCommand.output(of: ["false"], until: Self.later, maxBytes: 64) == nil)
        #expect(BoundedCommand.output(of: ["/nonexistent/program"], until: Self.later, maxBytes: 64) == nil)
        #expect(BoundedCommand.output(of: [], until: Self.later, maxBytes: 64) == nil)
        let stopped = StopSignal()
        stopped.stop()
        #expect(BoundedCommand.output(of: ["printf", "x"], until: Self.later, maxBytes: 64, stop: stopped) == nil)
    }

    @Test("more output than the bound is no answer: the program is killed, not read to its end")
    func sizeBound() {
        #expect(BoundedCommand.output(of: ["head", "-c", "64", "/dev/zero"], until: Self.later, maxBytes: 64)?.count == 64)
        // `yes` never ends by itself: only the bound ends it.
        #expect(BoundedCommand.output(of: ["yes"], until: Self.later, maxBytes: 1 << 16) == nil)
    }

    @Test("a stop raised while the program runs ends it at once")
    func stopWhileRunning() {
        let stop = StopSignal()
        BackgroundThread.detached { stop.stop() }
        // `sleep` outlives the test's hang bound; only the stop ends the wait.
        #expect(BoundedCommand.output(of: ["sleep", "600"], until: Self.later, maxBytes: 64, stop: stop) == nil)
    }
}
