import ClawpairCore

extension TextStyle {
    /// `text` in the colour of `role` (bold, green, red, yellow, dim); unchanged when colour is
    /// off. Pass it as a library's `paint` closure: `report.textLines(…, paint: style.paint)`.
    public func paint(_ role: TextRole, _ text: String) -> String {
        switch role {
        case .bold: bold(text)
        case .good: green(text)
        case .bad: red(text)
        case .warning: yellow(text)
        case .dim: dim(text)
        }
    }
}
