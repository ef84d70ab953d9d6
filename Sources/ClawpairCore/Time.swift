#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock time in milliseconds since the Unix epoch, and its human forms.
public enum WallClock {
    /// The current time in ms since the epoch (CLOCK_REALTIME).
    public static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// `ms` as an RFC 3339 UTC timestamp with milliseconds, e.g. `2025-01-19T05:30:00.000Z`;
    /// nil outside the years 0…9999.
    public static func iso8601(ms: Int64) -> String? {
        guard ms >= -62_167_219_200_000, ms <= 253_402_300_799_999 else { return nil }
        var seconds = time_t(ms >= 0 ? ms / 1000 : (ms - 999) / 1000)
        let millis = Int(ms - Int64(seconds) * 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return nil }
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let ms3 = String(repeating: "0", count: 3 - String(millis).count) + String(millis)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(ms3)Z"
    }

    /// "in 9m 58s" or "2h 5m ago", relative to `now`: the one wording of a time on stdout and
    /// stderr alike. Spans of 60 days or more read in months or years ("3 months ago", "in 2 years",
    /// "56 years ago" for a timestamp near the epoch), never as thousands of days or hours.
    public static func relative(ms: Int64, now: Int64) -> String {
        let delta = Monotonic.saturatingSubtract(ms, now)  // `ms` may come from a peer
        if delta == 0 { return "now" }
        let span = roughSpan(delta.magnitude) ?? DurationText.describe(milliseconds: delta)
        return delta > 0 ? "in \(span)" : "\(span) ago"
    }

    /// "3 months", "56 years" for spans of 60 days and more; nil below that.
    static func roughSpan(_ ms: UInt64) -> String? {
        let day: UInt64 = 86_400_000
        guard ms >= 60 * day else { return nil }
        let (count, unit) = ms >= 365 * day ? (ms / (365 * day), "year") : (ms / (30 * day), "month")
        return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}
