/// Single fields of records for people (devices, nodes, gateways), for the libraries that render
/// their own records and for ClawpairCLIKit's `RecordText`: every string is sanitized (what a
/// peer sends is untrusted), absent values show as `-`.
public enum FieldText {
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

    /// `12m ago` from an epoch-ms time; `just now` when it is after `now`, `-` when absent or not positive.
    public static func age(_ value: Int64?, now: Int64) -> String {
        guard let ms = value, ms > 0 else { return "-" }
        let delta = now - ms
        // Under a second is "just now", not "0ms ago" (an age is read at a glance, issue #24 §16).
        return delta < 1000 ? "just now" : DurationText.describe(milliseconds: delta) + " ago"
    }

    /// The first 12 characters of an id and an ellipsis (ids of at most 14 characters whole).
    public static func shortId(_ value: String?) -> String {
        guard let id = value, !id.isEmpty else { return "-" }
        let clean = TerminalText.sanitize(id, maxScalars: 80)
        return clean.count > 14 ? String(clean.prefix(12)) + "…" : clean
    }

    /// `label` padded with spaces to `width` display columns, and at least one space after it:
    /// the label column of a two-column "label  value" block.
    public static func label(_ label: String, width: Int) -> String {
        label + String(repeating: " ", count: max(1, width - TerminalText.displayWidth(label)))
    }
}
