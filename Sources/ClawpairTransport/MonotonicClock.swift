#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// A point on a monotonic clock, in nanoseconds since an arbitrary origin.
///
/// Deadlines, timers and phase timings in this module and the probe are all expressed in
/// these, taken from an injected ``MonotonicClock``: the state machines never read a clock
/// themselves, so tests move time by passing later instants instead of sleeping.
public struct MonotonicInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: Int64

    /// The instant `nanoseconds` after the origin.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The instant `milliseconds` after the origin (handy in tests), saturating at the ends of
    /// the clock.
    public static func milliseconds(_ milliseconds: Int64) -> MonotonicInstant {
        let (product, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        return MonotonicInstant(nanoseconds: overflow ? (milliseconds < 0 ? .min : .max) : product)
    }

    /// This instant moved by `duration` (which may be negative), saturating at the ends of the
    /// clock: a duration from the network, however large, never wraps a deadline into the past.
    public func advanced(by duration: Duration) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: Monotonic.saturatingAdd(nanoseconds, duration.nanoseconds))
    }

    /// The duration from `other` to this instant (saturating at ±2^63 ns, about 292 years).
    public func duration(since other: MonotonicInstant) -> Duration {
        .nanoseconds(Monotonic.saturatingSubtract(nanoseconds, other.nanoseconds))
    }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public var description: String { "\(Double(nanoseconds) / 1e6) ms" }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating at ±2^63).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return product &+ attoseconds / 1_000_000_000
    }

    /// The duration in milliseconds, as a fraction (for reports).
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
}

/// A source of monotonic time.
public protocol MonotonicClock: Sendable {
    /// The current instant.
    func now() -> MonotonicInstant
}

/// The system's `CLOCK_MONOTONIC`.
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}
    public func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }
}
