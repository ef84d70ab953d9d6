import ClawpairCore
import Testing

/// FieldText: the single fields of record rendering, sanitized, `-` when absent.
@Suite struct FieldTextTests {
    @Test("field and list: sanitized and capped, '-' when absent or empty")
    func fieldAndList() {
        #expect(FieldText.field(nil) == "-")
        #expect(FieldText.field("") == "-")
        #expect(FieldText.field("kitchen\u{1B}[31m") == "kitchen\\x1b[31m")
        #expect(FieldText.field("abcdef", max: 3) == "abc…")
        #expect(FieldText.list(nil) == "-")
        #expect(FieldText.list([]) == "-")
        #expect(FieldText.list(["system.run", "camera.snap"]) == "system.run,camera.snap")
        #expect(FieldText.list(["abc", "def"], max: 5) == "abc,d…")
    }

    @Test("age: '-' without a positive time, 'just now' for a time after now, else how long ago")
    func age() {
        #expect(FieldText.age(nil, now: 10_000) == "-")
        #expect(FieldText.age(0, now: 10_000) == "-")
        #expect(FieldText.age(20_000, now: 10_000) == "just now")
        #expect(FieldText.age(10_000, now: 10_000) == "just now" && FieldText.age(10_000, now: 10_999) == "just now")
        #expect(FieldText.age(10_000, now: 11_000) == "1s ago")
        #expect(FieldText.age(1_000, now: 1_000 + 12 * 60_000) == DurationText.describe(milliseconds: 12 * 60_000) + " ago")
    }

    @Test("shortId: ids over 14 characters cut to 12 and an ellipsis; label pads to the width, at least one space")
    func shortIdAndLabel() {
        #expect(FieldText.shortId(nil) == "-")
        #expect(FieldText.shortId("0123456789abcd") == "0123456789abcd")
        #expect(FieldText.shortId("0123456789abcdef") == "0123456789ab…")
        #expect(FieldText.label("id", width: 10) == "id        ")
        #expect(FieldText.label("a-long-label", width: 10) == "a-long-label ")
        #expect(FieldText.label("名前", width: 6) == "名前  ", "display columns, not characters")
    }
}
