import ClawpairCore

extension ParsedArguments {
    /// The value of `--option` as a time in ms since the epoch (a non-negative integer) when
    /// given; otherwise a usage error `--option 'TEXT' is not a time in ms since the epoch` (the
    /// text sanitized and cut to 40 characters). Nil when not given.
    public func epochMs(_ option: String) throws(UsageError) -> Int64? {
        guard let text = value(option) else { return nil }
        guard let ms = Int64(text), ms >= 0 else {
            throw UsageError("--\(option) '\(TerminalText.sanitize(text, maxScalars: 40))' is not a time in ms since the epoch")
        }
        return ms
    }

    /// A usage error `give --first or --second, not both` when both options have a value.
    public func exclusive(_ first: String, _ second: String) throws(UsageError) {
        if value(first) != nil && value(second) != nil { throw UsageError("give --\(first) or --\(second), not both") }
    }
}

extension SecretInput {
    /// The secret (see ``read(_:_:)``), or when none is given a usage error `no WHAT given`
    /// whose hint lists the file option, `-` for standard input and the environment variable.
    public func require(_ arguments: ParsedArguments, _ context: CommandContext) throws -> String {
        guard let secret = try read(arguments, context) else {
            throw UsageError("no \(what) given",
                             hint: "use --\(fileOption) FILE, --\(valueOption) - (standard input) or \(environmentVariable)")
        }
        return secret
    }
}
