import ClawpairCore

/// The one rule of every time option (`--timeout`, `--wait`, `--stagger`, `--expires-in`, …):
/// a duration with a unit (`500ms`, `3s`, `5m`, `1h`, `2d`, or several: `1m30s`), and a bare
/// number is milliseconds. Documented once, in clawpair(1) DURATIONS (``section``).
public enum DurationOption {
    /// The largest duration an option accepts unless it names another: 10 minutes.
    public static let defaultMaximumMs: Int64 = 600_000

    /// clawpair(1)'s DURATIONS: the rule, and the one old spelling whose meaning differs.
    public static let section = DocSection("DURATIONS", [
        "Every time option takes a number with a unit: ms, s, m, h or d, also several in a row (500ms, 3s, 5m, 1m30s). "
            + "A bare number is milliseconds (--timeout 2000 is 2s). Two options differ: a bare number for setup-code "
            + "encode --expires-in is still read as seconds, as it always was, and warns (write --expires-in 90s); "
            + "nodes list/status --last-connected, whose spans are hours or days, takes a unit only (24h).",
    ])

    /// The value of `--option` in milliseconds (`value` when not given), by the rule above; at
    /// most `maximum`, and 0 only with `allowZero`. A bad value is a usage error naming the option.
    public static func milliseconds(_ text: String?, option: String, default value: Int64, allowZero: Bool,
                                    maximum: Int64 = defaultMaximumMs) throws(UsageError) -> Int64 {
        guard let text else { return value }
        let ms = isBareNumber(text) ? Int64(text) : DurationText.milliseconds(text)
        guard let ms, ms <= maximum, allowZero ? ms >= 0 : ms > 0 else {
            throw UsageError("invalid --\(option): \(TerminalText.sanitize(text, maxScalars: 32))",
                             hint: "give a duration with a unit (e.g. 500ms, 3s, 5m) or milliseconds, at most "
                                + String(DurationText.describe(milliseconds: maximum).filter { $0 != " " }))
        }
        return ms
    }

    /// Whether `text` is digits only: the spelling whose unit the rule supplies.
    public static func isBareNumber(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The warning for an option that still reads a bare number as seconds (`--expires-in 10`),
    /// or nil when `text` has a unit.
    public static func bareSecondsWarning(_ text: String?, option: String) -> String? {
        guard let text, isBareNumber(text) else { return nil }
        return "--\(option) \(text) is read as \(text) seconds, as before; a bare number means milliseconds on every other "
            + "option, so write the unit: --\(option) \(text)s"
    }
}

extension DurationOption {
    /// The value of `--option` as a span with a unit (`24h`, `30m`, `7d`; no maximum) in
    /// milliseconds, nil when not given: for spans of hours or days, where a bare number (read
    /// as milliseconds elsewhere) is surely a mistake. A bare number, zero or a bad value is a
    /// usage error naming the option.
    public static func spanWithUnit(_ text: String?, option: String) throws(UsageError) -> Int64? {
        guard let text else { return nil }
        guard !isBareNumber(text), let ms = DurationText.milliseconds(text), ms > 0 else {
            throw UsageError("invalid --\(option): \(text)", hint: "give a duration with a unit, e.g. 24h, 30m or 7d")
        }
        return ms
    }
}
