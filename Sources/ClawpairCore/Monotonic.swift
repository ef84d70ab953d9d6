#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Monotonic time (CLOCK_MONOTONIC) for deadlines and timeouts, with the arithmetic of
/// `Monotonic.Instant`. Code that keeps time takes a ``MonotonicClock`` (default
/// ``SystemMonotonicClock``) so tests move time with a ``ManualClock`` instead of sleeping.
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

        /// The instant `nanoseconds` after the clock's origin.
        public init(nanoseconds: Int64) {
            self.nanoseconds = nanoseconds
        }

        /// Earlier instants first.
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

        /// Moves the instant `rhs` later.
        public static func += (lhs: inout Instant, rhs: Duration) { lhs = lhs + rhs }

        /// The span from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration { other - self }

        /// This instant moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { self + duration }

        /// A readable form, for messages and logs.
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
    static func nanoseconds(_ duration: Duration) -> Int64 { duration.nanoseconds }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating at ±2^63).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled &+ attoseconds / 1_000_000_000
    }

    /// The duration in milliseconds, as a fraction (for reports).
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
}

/// A source of monotonic time, and waiting for it: what the event loop, the probe race, the
/// gateway client, discovery and the pairing flow read deadlines from. The state machines
/// never read a clock themselves; tests inject a ``ManualClock``.
public protocol MonotonicClock: Sendable {
    /// The current reading.
    var now: Monotonic.Instant { get }
    /// Returns once the clock reaches `deadline`, or earlier once `stopped()` is true (asked at
    /// least every 100 ms).
    func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool)
}

extension MonotonicClock {
    /// Waits `duration` (saturating).
    public func sleep(for duration: Duration) {
        sleep(until: now + duration, unless: { false })
    }
}

/// The system's `CLOCK_MONOTONIC`; sleeps with nanosleep(2).
public struct SystemMonotonicClock: MonotonicClock {
    /// The system clock.
    public init() {}

    /// The current reading of CLOCK_MONOTONIC.
    public var now: Monotonic.Instant { Monotonic.now }

    /// Sleeps until `deadline`, asking `stopped` at least every 100 ms and returning as soon as it says true.
    public func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
        while !stopped() {
            let now = Monotonic.now
            guard now < deadline else { return }
            let (seconds, attoseconds) = min(deadline - now, .milliseconds(100)).components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }
}

/// A clock that moves only when told to (``advance(by:)``, ``set(_:)``) or when something sleeps
/// on it (a sleep jumps to its deadline at once). For tests: time passes without waiting.
public final class ManualClock: MonotonicClock {
    private let reading: Mutex<Monotonic.Instant>

    /// A clock reading `start` (default: one second after the origin).
    public init(_ start: Monotonic.Instant = Monotonic.Instant(nanoseconds: 1_000_000_000)) {
        reading = Mutex(start)
    }

    /// The clock's current reading (moved only by the test).
    public var now: Monotonic.Instant { reading.withLock { $0 } }

    /// Moves the clock forward by `duration` (saturating).
    public func advance(by duration: Duration) {
        reading.withLock { $0 += duration }
    }

    /// Sets the reading (tests of the ends of the clock set it anywhere).
    public func set(_ instant: Monotonic.Instant) {
        reading.withLock { $0 = instant }
    }

    /// Jumps to `deadline` unless it has passed or `stopped()` is already true.
    public func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
        guard !stopped() else { return }
        reading.withLock { $0 = max($0, deadline) }
    }
}
