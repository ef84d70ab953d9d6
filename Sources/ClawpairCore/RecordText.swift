/// Fields of records (devices, nodes, gateways) for people: every string is sanitized (what a
/// peer sends is untrusted), absent values show as `-`. ClawpairCLIKit adds aligned tables;
/// the libraries render their records' human lines with these.
public enum RecordText {
    /// A sanitized single-line field, `-` when absent or empty.
    public static func field(_ value: String?, max: Int = 40) -> String {
        guard let text = value, !text.isEmpty else { return "-" }
        return TerminalText.sanitize(text, maxScalars: max)
    }

    /// Strings joined with commas, `-` when none.
    public static func list(_ items: [String]?, max: Int = 60) -> String {
        guard let items, !items.isEmpty else { return "-" }
        return TerminalText.sanitize(items.joined(separator: ","), maxScalars: max)
    }

    /// `12m ago` from an epoch-ms time.
    public static func age(_ value: Int64?, now: Int64) -> String {
        guard let ms = value, ms > 0 else { return "-" }
        let delta = now - ms
        return delta < 0 ? "just now" : DurationText.describe(milliseconds: delta) + " ago"
    }

    /// `12m ago` from an epoch-ms JSON field.
    public static func age(_ value: JSONValue?, now: Int64) -> String {
        age(value?.int64Value, now: now)
    }

    /// The first 12 characters of a device id and an ellipsis.
    public static func shortId(_ value: String?) -> String {
        guard let id = value, !id.isEmpty else { return "-" }
        let clean = TerminalText.sanitize(id, maxScalars: 80)
        return clean.count > 14 ? String(clean.prefix(12)) + "…" : clean
    }
}
