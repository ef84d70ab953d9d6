import ClawpairAdvertise
import Testing

/// `TXTPair(entry:)`: `KEY=VALUE` split at the first `=`.
@Suite struct TXTPairEntryTests {
    @Test func splitsAtTheFirstEquals() {
        #expect(TXTPair(entry: "role=gateway") == TXTPair("role", "gateway"))
        #expect(TXTPair(entry: "a=b=c") == TXTPair("a", "b=c"))
        #expect(TXTPair(entry: "empty=") == TXTPair("empty", ""))
        #expect(TXTPair(entry: "displayName=Café 🦞") == TXTPair("displayName", "Café 🦞"))
    }

    @Test func needsAKeyAndAnEquals() {
        for bad in ["", "novalue", "=value", "="] {
            #expect(TXTPair(entry: bad) == nil, "\(bad)")
        }
    }
}
