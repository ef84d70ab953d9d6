import ClawpairCore

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
