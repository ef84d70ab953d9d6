/// The two-column "label  value" layout of human output.
enum TextColumns {
    /// `label` padded with spaces to `width` characters, and at least one space after it.
    static func label(_ label: String, width: Int) -> String {
        label + String(repeating: " ", count: max(1, width - label.count))
    }
}
