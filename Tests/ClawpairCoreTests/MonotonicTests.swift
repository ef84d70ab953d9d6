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

/// Deadline arithmetic on durations a peer chose saturates at the ends of the clock.
@Suite struct MonotonicSaturationTests {
    @Test("adding a huge duration saturates instead of wrapping into the past")
    func saturates() {
        let now = Monotonic.Instant(nanoseconds: 5_000_000_000)
        #expect((now + .milliseconds(Int64(1) << 62)).nanoseconds == Int64.max)
        #expect((now + .seconds(Int64.max)).nanoseconds == Int64.max)
        #expect((Monotonic.Instant(nanoseconds: -5) - .seconds(Int64.max)).nanoseconds == Int64.min)
        #expect(Monotonic.Instant(nanoseconds: .max) - Monotonic.Instant(nanoseconds: .min) == .nanoseconds(Int64.max))
        #expect(Monotonic.Instant(nanoseconds: .min) - Monotonic.Instant(nanoseconds: 1) == .nanoseconds(Int64.min))
        #expect(Monotonic.saturatingAdd(.max, 1) == .max && Monotonic.saturatingAdd(.min, -1) == .min)
        #expect(Monotonic.saturatingSubtract(.min, 1) == .min && Monotonic.saturatingSubtract(.max, -1) == .max)
        #expect(Monotonic.saturatingAdd(2, 3) == 5 && Monotonic.saturatingSubtract(2, 3) == -1)
        #expect(Monotonic.pollTimeout(until: now + .milliseconds(Int64(1) << 62), from: now) == Int32.max)
        #expect(now.advanced(by: .milliseconds(Int64(1) << 62) * 2).nanoseconds == Int64.max)
        #expect(Monotonic.Instant(nanoseconds: -1).advanced(by: .seconds(-Int64.max)).nanoseconds == Int64.min)
        #expect(Duration.seconds(Int64.max).nanoseconds == Int64.max && Duration.seconds(Int64.min).nanoseconds == Int64.min)
    }
}

/// The test clock moves only when told to or when something sleeps on it.
@Suite struct ManualClockTests {
    @Test("advance, set, and sleeps that jump to their deadline (never backwards, not when stopped)")
    func manual() {
        let clock = ManualClock(Monotonic.Instant(nanoseconds: 1_000))
        clock.advance(by: .nanoseconds(500))
        #expect(clock.now == Monotonic.Instant(nanoseconds: 1_500))
        clock.sleep(for: .seconds(2))
        #expect(clock.now == Monotonic.Instant(nanoseconds: 2_000_001_500))
        clock.sleep(until: Monotonic.Instant(nanoseconds: 0), unless: { false })
        #expect(clock.now == Monotonic.Instant(nanoseconds: 2_000_001_500))
        clock.sleep(until: Monotonic.Instant(nanoseconds: .max), unless: { true })
        #expect(clock.now == Monotonic.Instant(nanoseconds: 2_000_001_500))
        clock.set(Monotonic.Instant(nanoseconds: .min))
        #expect(clock.now.nanoseconds == .min)
    }
}
