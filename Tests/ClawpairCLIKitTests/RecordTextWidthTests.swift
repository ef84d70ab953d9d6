import ClawpairCLIKit
import ClawpairCore
import Testing

/// Tables and labels align by display columns (#15 §3: a double-width emoji misaligned tables).
@Suite struct RecordTextWidthTests {
    @Test("a table with a double-width emoji and CJK keeps every column aligned")
    func table() {
        let lines = RecordText.table(["NAME", "ROLE"], [["Peter's 🦞", "node"], ["台所", "operator"], ["plain", "-"]],
                                     style: TextStyle(enabled: false))
        #expect(lines == [
            "  NAME        ROLE",
            "  Peter's 🦞  node",
            "  台所        operator",
            "  plain       -",
        ])
    }

    @Test("labels pad to display columns")
    func label() {
        #expect(TextColumns.label("🦞", width: 5) == "🦞   ")
        #expect(TextColumns.label("Gateway", width: 5) == "Gateway ")
    }
}
