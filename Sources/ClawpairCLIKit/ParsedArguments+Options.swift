import ClawpairCore

// Option parsing helpers commands share: required values, ports, parsed and repeated values,
// whole numbers, choices, durations, timestamps, and options that exclude each other.

// Option patterns that recur across commands: a required value, a port, a value a parser turns
// into a type (an address, a fingerprint, KEY=VALUE), two options that exclude each other. Each
// failure is a usage error (exit 2) that names the option.

extension ParsedArguments {
    /// The value of `--option`; when it is not given, the usage error `--option is required`
    /// with the hint `e.g. --option EXAMPLE`.
    public func required(_ option: String, example: String) throws(UsageError) -> String {
        guard let text = value(option) else {
            throw UsageError("--\(option) is required", hint: "e.g. --\(option) \(example)")
        }
        return text
    }

    /// The port `--option` gives (1-65535), nil when it is not given; anything else is the usage
    /// error `--option 'TEXT' is not a port (1-65535)`.
    public func port(_ option: String) throws(UsageError) -> Int? {
        try integer(option, in: 1...65_535, isNot: "a port (1-65535)")
    }

    /// `--option` turned into a value by `parse`, nil when it is not given; a value `parse`
    /// rejects (returns nil for) is the usage error `--option 'TEXT' is not WHAT` with `hint`,
    /// TEXT sanitized for the terminal and cut to `maxScalars`.
    public func parsed<Value>(_ option: String, isNot what: String, hint: String? = nil, maxScalars: Int = 64,
                              _ parse: (String) -> Value?) throws(UsageError) -> Value? {
        try parsed(option, parse) { text in
            UsageError("--\(option) '\(TerminalText.sanitize(text, maxScalars: maxScalars))' is not \(what)", hint: hint)
        }
    }

    /// `--option` turned into a value by `parse`, nil when it is not given; a value `parse`
    /// rejects is the usage error `invalid` makes of it (for messages of another shape).
    public func parsed<Value>(_ option: String, _ parse: (String) -> Value?,
                              invalid: (String) -> UsageError) throws(UsageError) -> Value? {
        guard let text = value(option) else { return nil }
        guard let parsed = parse(text) else { throw invalid(text) }
        return parsed
    }

    /// Every value of the repeatable `--option`, each turned into a value by `parse`, in order;
    /// the first one `parse` rejects is the usage error of ``parsed(_:isNot:hint:maxScalars:_:)``.
    public func parsedValues<Value>(_ option: String, isNot what: String, hint: String? = nil, maxScalars: Int = 64,
                                    _ parse: (String) -> Value?) throws(UsageError) -> [Value] {
        var result: [Value] = []
        for text in values(option) {
            guard let parsed = parse(text) else {
                throw UsageError("--\(option) '\(TerminalText.sanitize(text, maxScalars: maxScalars))' is not \(what)",
                                 hint: hint)
            }
            result.append(parsed)
        }
        return result
    }

    /// Whether `--option` was given at all: as a flag, or with a value.
    public func given(_ option: String) -> Bool { flag(option) || !values(option).isEmpty }

    /// The usage error `--first and --second do not go together` when both options were given.
    public func exclusive(_ first: String, _ second: String) throws(UsageError) {
        if given(first) && given(second) { throw UsageError("--\(first) and --\(second) do not go together") }
    }
}

extension ParsedArguments {
    /// The whole number `--option` gives, when it is within `range`; `fallback` when the option
    /// is not given. Another value is a usage error `--option must be a whole number from A to B,
    /// not 'TEXT'` (the text sanitized and cut to 32 characters).
    public func wholeNumber(_ option: String, in range: ClosedRange<Int>, default fallback: Int) throws(UsageError) -> Int {
        guard let text = value(option) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), "
                             + "not '\(TerminalText.sanitize(text, maxScalars: 32))'")
        }
        return number
    }

    /// The case of `Choice` whose raw value is `--option`'s value after `normalize` (e.g.
    /// `{ $0.lowercased() }` for names accepted in any case); nil when the option is not given.
    /// Another name is a usage error `unknown NOUN 'TEXT'` with `hint`, by default `use a, b or c`
    /// listing every case.
    public func choice<Choice: RawRepresentable & CaseIterable>(_ option: String, noun: String,
                                                               normalizing normalize: (String) -> String,
                                                               hint: String? = nil) throws(UsageError) -> Choice?
        where Choice.RawValue == String {
        guard let text = value(option) else { return nil }
        guard let choice = Choice(rawValue: normalize(text)) else {
            let names = Choice.allCases.map(\.rawValue)
            let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            throw UsageError("unknown \(noun) '\(TerminalText.sanitize(text, maxScalars: 32))'", hint: hint ?? "use \(list)")
        }
        return choice
    }
}

extension ParsedArguments {
    /// The value of `--option`, which must be given and not empty: otherwise the usage error
    /// `--option VALUE is required` (with `hint`), e.g. `required("role", "ROLE", hint: "operator or node")`.
    public func required(_ option: String, _ valueName: String, hint: String? = nil) throws(UsageError) -> String {
        guard let text = value(option), !text.isEmpty else { throw UsageError("--\(option) \(valueName) is required", hint: hint) }
        return text
    }

    /// The duration of `--option` by ``DurationOption``'s rule (`defaultMs` milliseconds when not
    /// given; 0 only with `allowZero`; at most `maximumMs`); a bad value is a usage error naming it.
    public func duration(_ option: String, defaultMs: Int64, allowZero: Bool,
                         maximumMs: Int64 = DurationOption.defaultMaximumMs) throws(UsageError) -> Duration {
        .milliseconds(try DurationOption.milliseconds(value(option), option: option, default: defaultMs, allowZero: allowZero,
                                                      maximum: maximumMs))
    }
}

extension ParsedArguments {
    /// The value of `--option` as a time in ms since the epoch (a non-negative integer) when
    /// given; otherwise a usage error `--option 'TEXT' is not a time in ms since the epoch` (the
    /// text sanitized and cut to 40 characters; see ``parsed(_:isNot:hint:maxScalars:_:)``). Nil
    /// when not given.
    public func epochMs(_ option: String) throws(UsageError) -> Int64? {
        try parsed(option, isNot: "a time in ms since the epoch", maxScalars: 40) { Int64($0).flatMap { $0 >= 0 ? $0 : nil } }
    }

    /// A usage error `give --first or --second, not both` when both options have a value (the
    /// wording of commands that need one of the two; ``exclusive(_:_:)`` says they do not go together).
    public func notBoth(_ first: String, _ second: String) throws(UsageError) {
        if value(first) != nil && value(second) != nil { throw UsageError("give --\(first) or --\(second), not both") }
    }
}
