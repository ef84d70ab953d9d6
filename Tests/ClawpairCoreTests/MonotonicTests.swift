import ClawpairCore
import Testing

/// The poll(2) timeout every poll loop derives from its deadline.
@Suite struct MonotonicPollTimeoutTests {
    static let now = Monotonic.Instant(nanoseconds: 5_000_000_000)

    @Test("never returns before the deadline: the truncated milliseconds plus one")
    func roundsUp() {
        #expect(Monotonic.pollTimeout(until: Self.now + .nanoseconds(1), from: Self.now) == 1)
        #expect(Monotonic.pollTimeout(until: Self.now + .microseconds(1_500), from: Self.now) == 2)
        #expect(Monotonic.pollTimeout(until: Self.now + .milliseconds(250), from: Self.now) == 251)
        #expect(Monotonic.pollTimeout(until: Self.now + .seconds(3), from: Self.now) == 3_001)
    }

    @Test("0 at or after the deadline; clamped for a far one")
    func bounds() {
        #expect(Monotonic.pollTimeout(until: Self.now, from: Self.now) == 0)
        #expect(Monotonic.pollTimeout(until: Self.now - .seconds(1), from: Self.now) == 0)
        #expect(Monotonic.pollTimeout(until: Self.now + .seconds(10_000_000), from: Self.now) == Int32.max)
    }
}
