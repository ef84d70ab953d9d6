import ClawpairCore
import Testing

/// Terminal columns, not characters: what aligns a table that holds emoji or CJK names.
@Suite struct DisplayWidthTests {
    @Test("display widths", arguments: [
        ("abc", 3), ("", 0), ("🦞", 2), ("Peter's 🦞 phone", 16), ("日本", 4), ("ｆｕｌｌ", 8), ("é", 1), ("e\u{301}", 1),
        ("👨‍👩‍👧", 2), ("🇩🇪", 2), ("❤️", 2), ("a\u{200B}b", 2), ("…", 1), ("✓", 1),
    ] as [(String, Int)])
    func widths(text: String, columns: Int) {
        #expect(TerminalText.displayWidth(text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("padding counts columns")
    func padding() {
        #expect(TerminalText.padded("🦞", to: 4) == "🦞  ")
        #expect(TerminalText.padded("abcdef", to: 4) == "abcdef")
    }
}
