import ClawpairCore
import Testing

@Suite struct TerminalTextTests {
    @Test func escapesControlAndEscapeSequences() {
        #expect(TerminalText.sanitize("a\u{1B}[31mred\u{07}") == "a\\x1b[31mred\\x07")
        #expect(TerminalText.sanitize("tab\there\r\n") == "tab\\there\\r\\n")
        #expect(TerminalText.sanitize("c1\u{9B}2J") == "c1\\x9b2J")
        #expect(TerminalText.sanitize("del\u{7F}") == "del\\x7f")
    }

    @Test func escapesBidiAndInvisible() {
        #expect(TerminalText.sanitize("abc\u{202E}fed") == "abc\\u{202e}fed")
        #expect(TerminalText.sanitize("\u{2066}x\u{2069}") == "\\u{2066}x\\u{2069}")
        #expect(TerminalText.sanitize("zero\u{200B}width\u{FEFF}") == "zero\\u{200b}width\\u{feff}")
    }

    @Test func keepsOrdinaryUnicode() {
        #expect(TerminalText.sanitize("Studio · Büro 🦞") == "Studio · Büro 🦞")
        #expect(TerminalText.sanitize("line1\nline2", allowNewlines: true) == "line1\nline2")
    }

    @Test func capsLength() {
        #expect(TerminalText.sanitize(String(repeating: "a", count: 10), maxScalars: 4) == "aaaa…")
    }

    @Test func invalidUTF8BytesShowAsHex() {
        #expect(TerminalText.sanitize(bytes: [0x61, 0xFF, 0xC3, 0xA9, 0xE2, 0x82]) == "a\\xffé\\xe2\\x82")
        // Overlong encoding of "/" and an encoded surrogate are invalid.
        #expect(TerminalText.sanitize(bytes: [0xC0, 0xAF]) == "\\xc0\\xaf")
        #expect(TerminalText.sanitize(bytes: [0xED, 0xA0, 0x80]) == "\\xed\\xa0\\x80")
    }

    @Test func neverLetsAnUnsafeScalarThrough() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let out = TerminalText.sanitize(bytes: bytes)
            #expect(!out.unicodeScalars.contains { TerminalText.isUnsafe($0) }, "\(bytes)")
        }
    }
}

@Suite struct RedactionTests {
    @Test func redactsToLength() {
        #expect(Redaction.redact("abc") == "<redacted, 3 chars>")
        #expect(Redaction.redact("a") == "<redacted, 1 char>")
        #expect(Redaction.show("abc", reveal: true) == "abc")
        #expect(!Redaction.show("secret-token", reveal: false).contains("secret"))
    }
}

@Suite struct DurationTextTests {
    @Test func parses() {
        #expect(DurationText.milliseconds("10m") == 600_000)
        #expect(DurationText.milliseconds("90") == 90_000)
        #expect(DurationText.milliseconds("1h30m") == 5_400_000)
        #expect(DurationText.milliseconds("500ms") == 500)
        #expect(DurationText.milliseconds("2D") == 172_800_000)
    }

    @Test func rejects() {
        for text in ["", "m", "10x", "-5m", "1.5h", "99999999999999999999", "3650000d", String(repeating: "1", count: 40)] {
            #expect(DurationText.milliseconds(text) == nil, "\(text)")
        }
    }

    @Test func describes() {
        #expect(DurationText.describe(milliseconds: 598_000) == "9m 58s")
        #expect(DurationText.describe(milliseconds: -7_500_000) == "2h 5m")
        #expect(DurationText.describe(milliseconds: 450) == "450ms")
        #expect(WallClock.relative(ms: 1_000, now: 61_000) == "1m ago")
        #expect(WallClock.relative(ms: 61_000, now: 1_000) == "in 1m")
        // Long spans in months and years, never "20788d 19h ago" (#15 §3).
        let day: Int64 = 86_400_000
        #expect(WallClock.relative(ms: 0, now: 59 * day) == "59d ago")
        #expect(WallClock.relative(ms: 0, now: 61 * day) == "2 months ago")
        #expect(WallClock.relative(ms: 5, now: 1_796_083_200_000) == "56 years ago")
        #expect(WallClock.relative(ms: 400 * day, now: 0) == "in 1 year")
        #expect(WallClock.relative(ms: Int64.min, now: Int64.max).hasSuffix("years ago"))
    }
}

@Suite struct WallClockTests {
    @Test func formatsRFC3339() {
        #expect(WallClock.iso8601(ms: 1_737_264_600_000) == "2025-01-19T05:30:00.000Z")
        #expect(WallClock.iso8601(ms: 0) == "1970-01-01T00:00:00.000Z")
        #expect(WallClock.iso8601(ms: -1) == "1969-12-31T23:59:59.999Z")
        #expect(WallClock.iso8601(ms: Int64.max) == nil)
    }

    @Test func nowIsPlausible() {
        #expect(WallClock.nowMs() > 1_700_000_000_000)
    }
}
