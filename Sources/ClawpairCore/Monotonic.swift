#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time (CLOCK_MONOTONIC) for deadlines and timeouts, with the arithmetic of
/// `Monotonic.Instant`.
///
/// Not `ContinuousClock` itself: that type lives in the Swift concurrency runtime, and using it
/// links `_Concurrency` and libdispatch into the executable, whose load-time constructors and
/// relocated data cost every command about half a millisecond of start-up. Nothing here is
/// asynchronous, so a plain clock_gettime(2) reading does the job.
public enum Monotonic {
    /// A reading of the monotonic clock.
    public struct Instant: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Nanoseconds since an arbitrary, fixed start (boot).
        public var nanoseconds: Int64

        public init(nanoseconds: Int64) {
            self.nanoseconds = nanoseconds
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

        /// Saturating at the ends of the clock: a huge duration never wraps into the past.
        public static func + (lhs: Instant, rhs: Duration) -> Instant {
            Instant(nanoseconds: Monotonic.saturatingAdd(lhs.nanoseconds, Monotonic.nanoseconds(rhs)))
        }

        /// Saturating at the ends of the clock.
        public static func - (lhs: Instant, rhs: Duration) -> Instant {
            Instant(nanoseconds: Monotonic.saturatingSubtract(lhs.nanoseconds, Monotonic.nanoseconds(rhs)))
        }

        /// Saturating at ±2^63 ns.
        public static func - (lhs: Instant, rhs: Instant) -> Duration {
            .nanoseconds(Monotonic.saturatingSubtract(lhs.nanoseconds, rhs.nanoseconds))
        }

        public static func += (lhs: inout Instant, rhs: Duration) { lhs = lhs + rhs }

        /// The span from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration { other - self }

        /// This instant moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { self + duration }

        public var description: String { "\(Double(nanoseconds) / 1e9) s" }

        /// The current reading (as `ContinuousClock.Instant.now`).
        public static var now: Instant { Monotonic.now }
    }

    /// The current reading.
    public static var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Instant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// A poll(2) timeout for waiting from `now` until `deadline`: whole milliseconds, one more than
    /// the truncated span so poll never returns before the deadline; 0 once it has passed.
    public static func pollTimeout(until deadline: Instant, from now: Instant) -> Int32 {
        guard deadline > now else { return 0 }
        let parts = now.duration(to: deadline).components
        return Int32(clamping: parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// `a + b` in nanoseconds, clamped to `Int64`'s range (deadline arithmetic on durations a
    /// peer chose).
    public static func saturatingAdd(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? Int64.min : Int64.max) : sum
    }

    /// `a - b` in nanoseconds, clamped to `Int64`'s range.
    public static func saturatingSubtract(_ a: Int64, _ b: Int64) -> Int64 {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? Int64.max : Int64.min) : difference
    }

    /// `duration` in whole nanoseconds, saturating at ±Int64.max.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        return scaled &+ attoseconds / 1_000_000_000
    }
}
