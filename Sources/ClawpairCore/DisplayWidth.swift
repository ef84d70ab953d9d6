extension TerminalText {
    /// The columns `text` takes on a terminal: 2 for each wide character (emoji shown as emoji,
    /// East Asian wide and fullwidth characters), 0 for zero-width ones (joiners, variation
    /// selectors, format characters), 1 otherwise; a grapheme cluster (a flag, a family emoji, a
    /// letter with accents) counts once, as the widest of its parts. For aligning table columns:
    /// `Character.count` counts 🦞 as one column where terminals draw two.
    public static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` followed by spaces up to `columns` display columns (unchanged when already as wide).
    public static func padded(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - displayWidth(text)))
    }

    static func width(of character: Character) -> Int {
        var widest = 0
        for scalar in character.unicodeScalars {
            let value = scalar.value
            if scalar.properties.isEmojiPresentation || (value == 0xFE0F && character.unicodeScalars.count > 1) || isWide(value) {
                return 2
            }
            if !isZeroWidth(scalar) { widest = 1 }
        }
        return widest
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks (UAX #11), the common ranges.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return true
        default: return scalar.value == 0xFE0E || scalar.value == 0xFE0F
        }
    }
}
