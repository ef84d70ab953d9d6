import ClawpairCLIKit
import Testing

/// One rule for every time option: units, and a bare number is milliseconds.
@Suite struct DurationOptionTests {
    @Test("units and bare milliseconds, the same on every option", arguments: [
        ("500ms", 500), ("3s", 3000), ("5m", 300_000), ("1m30s", 90_000), ("2000", 2000), ("1", 1),
    ] as [(String, Int64)])
    func accepted(text: String, ms: Int64) throws {
        #expect(try DurationOption.milliseconds(text, option: "timeout", default: 7, allowZero: false) == ms)
        #expect(try DurationOption.milliseconds(text, option: "wait", default: 7, allowZero: true) == ms)
    }

    @Test("the default when not given; zero only where allowed; the maximum; garbage is a usage error naming the option")
    func limits() throws {
        #expect(try DurationOption.milliseconds(nil, option: "timeout", default: 7, allowZero: false) == 7)
        #expect(try DurationOption.milliseconds("0", option: "wait", default: 7, allowZero: true) == 0)
        #expect(throws: UsageError.self) { try DurationOption.milliseconds("0", option: "timeout", default: 7, allowZero: false) }
        #expect(try DurationOption.milliseconds("10m", option: "timeout", default: 7, allowZero: false) == 600_000)
        #expect(try DurationOption.milliseconds("1h", option: "timeout", default: 7, allowZero: false, maximum: 3_600_000) == 3_600_000)
        do {
            _ = try DurationOption.milliseconds("11m", option: "timeout", default: 7, allowZero: false)
            Issue.record("11m is over the maximum")
        } catch {
            #expect(error == UsageError("invalid --timeout: 11m",
                                        hint: "give a duration with a unit (e.g. 500ms, 3s, 5m) or milliseconds, at most 10m"))
        }
        for bad in ["3 s", "-5", "5x", "", "s"] {
            #expect(throws: UsageError.self, "\(bad)") { try DurationOption.milliseconds(bad, option: "stagger", default: 7, allowZero: true) }
        }
    }

    @Test("a bare number where it used to mean seconds warns; with a unit it does not")
    func bareSeconds() {
        #expect(DurationOption.bareSecondsWarning("10", option: "expires-in")
                == "--expires-in 10 is read as 10 seconds, as before; a bare number means milliseconds on every other option, "
                + "so write the unit: --expires-in 10s")
        #expect(DurationOption.bareSecondsWarning("10s", option: "expires-in") == nil)
        #expect(DurationOption.bareSecondsWarning(nil, option: "expires-in") == nil)
    }
}
