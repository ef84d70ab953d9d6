/// Parses human durations such as `10m`, `90s`, `1h30m`, `500ms` or `2d`.
public enum DurationText {
    /// The longest duration accepted: 10 years, far beyond any token lifetime.
    public static let maxMilliseconds: Int64 = 10 * 365 * 24 * 3_600_000

    /// Milliseconds in `text`, or nil when it is not a duration. A bare number is seconds.
    /// Units: `ms`, `s`, `m`, `h`, `d`; several may follow each other (`1h30m`).
    public static func milliseconds(_ text: String) -> Int64? {
        let chars = Array(text.lowercased())
        guard !chars.isEmpty, chars.count <= 32 else { return nil }
        if chars.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let seconds = Int64(String(chars)) else { return nil }
            let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
            return overflow || ms > maxMilliseconds ? nil : ms
        }
        var total: Int64 = 0
        var index = 0
        while index < chars.count {
            var digits = ""
            while index < chars.count, chars[index].isASCII, chars[index].isNumber {
                digits.append(chars[index]); index += 1
            }
            var unit = ""
            while index < chars.count, chars[index].isASCII, chars[index].isLetter {
                unit.append(chars[index]); index += 1
            }
            guard let amount = Int64(digits), !unit.isEmpty else { return nil }
            let scale: Int64
            switch unit {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            default: return nil
            }
            let (part, overflow) = amount.multipliedReportingOverflow(by: scale)
            guard !overflow else { return nil }
            total += part
            guard total <= maxMilliseconds else { return nil }
        }
        return total
    }

    /// A compact human form of a span, e.g. `9m 58s`, `2h 5m`, `3d 4h`, `450ms`.
    public static func describe(milliseconds ms: Int64) -> String {
        let magnitude = ms.magnitude
        if magnitude < 1000 { return "\(magnitude)ms" }
        let seconds = magnitude / 1000
        let (d, h, m, s) = (seconds / 86_400, seconds % 86_400 / 3_600, seconds % 3_600 / 60, seconds % 60)
        if d > 0 { return h > 0 ? "\(d)d \(h)h" : "\(d)d" }
        if h > 0 { return m > 0 ? "\(h)h \(m)m" : "\(h)h" }
        if m > 0 { return s > 0 ? "\(m)m \(s)s" : "\(m)m" }
        return "\(s)s"
    }
}
