import ClawpairCore

/// Tables and fields of records (devices, nodes, gateways) for people: every string is
/// sanitized (what a peer sends is untrusted), absent values show as `-`.
public enum RecordText {
    /// A sanitized single-line field, `-` when absent or empty.
    public static func field(_ value: String?, max: Int = 40) -> String { FieldText.field(value, max: max) }

    /// Strings joined with commas, `-` when none.
    public static func list(_ items: [String]?, max: Int = 60) -> String { FieldText.list(items, max: max) }

    /// `12m ago` from an epoch-ms time.
    public static func age(_ value: Int64?, now: Int64) -> String { FieldText.age(value, now: now) }

    /// `12m ago` from an epoch-ms JSON field.
    public static func age(_ value: JSONValue?, now: Int64) -> String {
        age(value?.int64Value, now: now)
    }

    /// The first 12 characters of a device id and an ellipsis.
    public static func shortId(_ value: String?) -> String { FieldText.shortId(value) }

    /// Left-aligned columns separated by two spaces; the header in bold.
    public static func table(_ header: [String], _ rows: [[String]], style: TextStyle) -> [String] {
        // Display columns, not characters: an emoji or CJK name takes two (TerminalText.displayWidth).
        var widths = header.map(TerminalText.displayWidth)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], TerminalText.displayWidth(cell))
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                text += index < cells.count - 1 && index < widths.count ? TerminalText.padded(cell, to: widths[index] + 2) : cell
            }
            return text
        }
        return ["  " + style.bold(line(header))] + rows.map { "  " + line($0) }
    }
}

/// The two-column "label  value" layout of human output.
public enum TextColumns {
    /// `label` padded with spaces to `width` display columns, and at least one space after it.
    public static func label(_ label: String, width: Int) -> String { FieldText.label(label, width: width) }
}

extension TextColumns {
    /// `rows` in the two-column layout, one line each ending in a newline: the label padded to
    /// `width` display columns (see ``label(_:width:)``), passed through `styleLabel` (e.g.
    /// `style.bold`), then the value as it is (a library's rows are already sanitized or painted).
    public static func lines(_ rows: [(label: String, value: String)], width: Int,
                             styleLabel: (String) -> String = { $0 }) -> String {
        rows.map { styleLabel(label($0.label, width: width)) + $0.value + "\n" }.joined()
    }
}
