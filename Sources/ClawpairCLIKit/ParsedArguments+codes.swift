import ClawpairCore

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
