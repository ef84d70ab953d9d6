import ClawpairCore

/// Aligned tables of records for people (the fields: ClawpairCore's ``RecordText``).
extension RecordText {
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
    public static func label(_ label: String, width: Int) -> String {
        label + String(repeating: " ", count: max(1, width - TerminalText.displayWidth(label)))
    }
}
