import ClawpairCore

extension ParsedArguments {
    /// The integer value of `--option` when given and within `range`; otherwise a usage error
    /// `--option 'TEXT' is not WHAT` (the text sanitized and cut to 32 characters), e.g.
    /// `integer("port", in: 1...65_535, isNot: "a port (1-65535)")`. Nil when not given.
    public func integer(_ option: String, in range: ClosedRange<Int>, isNot what: String) throws(UsageError) -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(option) '\(TerminalText.sanitize(text, maxScalars: 32))' is not \(what)")
        }
        return number
    }

    /// The case of `Choice` named by `--option` (`fallback` when not given); another name is a
    /// usage error `unknown NOUN 'TEXT'` with the hint `use a, b or c` listing every case.
    public func choice<Choice: RawRepresentable & CaseIterable>(_ option: String, noun: String, default fallback: Choice)
        throws(UsageError) -> Choice where Choice.RawValue == String {
        try choice(option, noun: noun, normalizing: { $0 }) ?? fallback
    }
}
