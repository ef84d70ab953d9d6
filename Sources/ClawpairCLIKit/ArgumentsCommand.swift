import ClawpairCore

/// A command whose only state is its parsed arguments: `init(parsing:context:)` runs
/// ``validate(_:)`` and keeps them (through the memberwise `init(arguments:)` of a struct with one
/// `let arguments: ParsedArguments`).
public protocol ArgumentsCommand: ParsableCommand {
    /// Keeps `arguments`.
    init(arguments: ParsedArguments)
    /// Checks what the spec cannot (a value's form) before anything runs; throw ``UsageError``.
    /// Nothing by default.
    static func validate(_ arguments: ParsedArguments) throws
}

extension ArgumentsCommand {
    public static func validate(_ arguments: ParsedArguments) throws {}

    public init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        try Self.validate(arguments)
        self.init(arguments: arguments)
    }
}



/// An argument that takes one of a few words (`completions bash|zsh|fish`).
public enum ArgumentChoice {
    /// `value` when it is one of `choices`; else `unknown WHAT 'VALUE'` (sanitized, at most 32
    /// characters), with the hint `use A, B or C`.
    @discardableResult
    public static func check(_ value: String, in choices: [String], what: String) throws(UsageError) -> String {
        guard choices.contains(value) else { throw unknown(value, choices: choices, what: what) }
        return value
    }

    /// The case of `T` whose raw value is `value`; else the usage error of ``check(_:in:what:)``
    /// with every case as a choice.
    public static func parse<T: RawRepresentable & CaseIterable>(_ value: String, what: String) throws(UsageError) -> T
        where T.RawValue == String {
        guard let choice = T(rawValue: value) else { throw unknown(value, choices: T.allCases.map(\.rawValue), what: what) }
        return choice
    }

    private static func unknown(_ value: String, choices: [String], what: String) -> UsageError {
        let words = choices.count > 1 ? choices.dropLast().joined(separator: ", ") + " or " + choices[choices.count - 1]
            : choices.joined()
        return UsageError("unknown \(what) '\(TerminalText.sanitize(value, maxScalars: 32))'", hint: "use \(words)")
    }
}
