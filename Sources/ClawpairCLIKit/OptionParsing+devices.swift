import ClawpairCore

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
