import ClawpairCore

extension TextColumns {
    /// `rows` in the two-column layout, one line each ending in a newline: the label padded to
    /// `width` display columns (see ``label(_:width:)``), passed through `styleLabel` (e.g.
    /// `style.bold`), then the value as it is (a library's rows are already sanitized or painted).
    public static func lines(_ rows: [(label: String, value: String)], width: Int,
                             styleLabel: (String) -> String = { $0 }) -> String {
        rows.map { styleLabel(label($0.label, width: width)) + $0.value + "\n" }.joined()
    }
}
