import ClawpairCore

/// A mistake on the command line. Always ends the process with exit status 2.
public struct UsageError: CommandLineError, Equatable {
    public let message: String
    public let hint: String?
    public var exitStatus: ExitStatus { .usage }

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}

/// Options every command accepts, anywhere on the command line.
public struct GlobalOptions: Sendable, Equatable {
    public var json = false
    public var noColor = false
    public var quiet = false
    public var verbosity = 0
    public var help = false
    public var version = false
    public init() {}

    /// Their declarations, documented once under GLOBAL OPTIONS.
    public static let specs: [OptionSpec] = [
        .flag("json", help: "Print machine-readable JSON on stdout instead of text."),
        .flag("no-color", help: "Do not colour output (also when NO_COLOR is set or output is not a terminal)."),
        .flag("quiet", short: "q", help: "Print only results and errors."),
        OptionSpec(long: "verbose", short: "v", arity: .counted, help: "Say more about what is happening (repeat for more)."),
        .flag("help", short: "h", help: "Show help for the command and exit."),
        .flag("version", help: "Print the version and exit."),
    ]
}

/// The result of matching argv against the command tree.
public struct ParsedArguments: Sendable {
    /// Command names from the root, e.g. `["clawpair", "setup-code", "decode"]`.
    public let commandPath: [String]
    /// The spec of the command that was selected.
    public let spec: CommandSpec
    public let globals: GlobalOptions
    /// Values of options that take them, by long name, in command-line order.
    public let values: [String: [String]]
    /// Flags that were given (with their counts), by long name.
    public let flags: [String: Int]
    public let positionals: [String]

    /// Whether the flag `--long` was given.
    public func flag(_ long: String) -> Bool { (flags[long] ?? 0) > 0 }
    /// The value of `--long`, if given.
    public func value(_ long: String) -> String? { values[long]?.last }
    /// Every value of a repeated `--long`, in order.
    public func values(_ long: String) -> [String] { values[long] ?? [] }
    /// The full command name, e.g. `clawpair setup-code decode`.
    public var commandName: String { commandPath.joined(separator: " ") }
}

/// Tokenize → match → validate, against a tree of ``CommandSpec``s.
public enum ArgumentParser {
    /// Matches `arguments` (argv without the program name) against `root`.
    public static func parse(_ arguments: [String], root: CommandSpec) throws(UsageError) -> ParsedArguments {
        var path = [root.name]
        var specs = [root]
        var globals = GlobalOptions()
        var values: [String: [String]] = [:]
        var flags: [String: Int] = [:]
        var positionals: [String] = []
        var onlyPositionals = false
        var index = 0

        func current() -> CommandSpec { specs[specs.count - 1] }
        func lookup(long name: String) -> OptionSpec? {
            current().options.first { $0.long == name } ?? GlobalOptions.specs.first { $0.long == name }
        }
        func lookup(short char: Character) -> OptionSpec? {
            current().options.first { $0.short == char } ?? GlobalOptions.specs.first { $0.short == char }
        }
        func record(_ option: OptionSpec, value: String?) throws(UsageError) {
            switch option.long {
            case "json": globals.json = true; return
            case "no-color": globals.noColor = true; return
            case "quiet": globals.quiet = true; return
            case "verbose": globals.verbosity += 1; return
            case "help": globals.help = true; return
            case "version": globals.version = true; return
            default: break
            }
            switch option.arity {
            case .flag, .counted:
                flags[option.long, default: 0] += 1
            case .value:
                if values[option.long] != nil {
                    throw UsageError("option --\(option.long) was given more than once",
                                     hint: "give it once; see '\(path.joined(separator: " ")) --help'")
                }
                values[option.long] = [value ?? ""]
            case .repeated:
                values[option.long, default: []].append(value ?? "")
            }
        }
        func unknownOption(_ text: String) -> UsageError {
            let names = (current().visibleOptions + GlobalOptions.specs).map { "--\($0.long)" }
            let command = path.joined(separator: " ")
            if let guess = Suggest.closest(to: text.split(separator: "=").first.map(String.init) ?? text, in: names) {
                return UsageError("unknown option '\(text)' for '\(command)'",
                                  hint: "did you mean '\(guess)'? See '\(command) --help'")
            }
            return UsageError("unknown option '\(text)' for '\(command)'", hint: "see '\(command) --help'")
        }
        func takeValue(for option: OptionSpec, display: String) throws(UsageError) -> String {
            guard index + 1 < arguments.count else {
                throw UsageError("option \(display) needs a value <\(option.valueName.lowercased())>",
                                 hint: "see '\(path.joined(separator: " ")) --help'")
            }
            let next = arguments[index + 1]
            // A value that looks like a long option is almost always a forgotten value.
            if next.hasPrefix("--"), next.count > 2 {
                throw UsageError("option \(display) needs a value, but got the option '\(next)'",
                                 hint: "write \(display)=\(next) if that is really the value")
            }
            index += 1
            return next
        }

        while index < arguments.count {
            let arg = arguments[index]
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                if !onlyPositionals, positionals.isEmpty, current().hasSubcommands {
                    guard let sub = current().subcommand(named: arg) else {
                        let command = path.joined(separator: " ")
                        let names = current().visibleSubcommands.map(\.name)
                        let hint = Suggest.closest(to: arg, in: names).map { "did you mean '\($0)'? " } ?? ""
                        throw UsageError("unknown command '\(arg)' for '\(command)'",
                                         hint: "\(hint)Commands: \(names.joined(separator: ", ")); see '\(command) --help'")
                    }
                    path.append(sub.name)
                    specs.append(sub)
                } else {
                    positionals.append(arg)
                }
            } else if arg == "--" {
                onlyPositionals = true
            } else if arg.hasPrefix("--") {
                let body = arg.dropFirst(2)
                let name: String
                let inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                    inline = nil
                }
                guard let option = lookup(long: name) else { throw unknownOption(arg) }
                if option.takesValue {
                    let value: String
                    if let inline { value = inline } else { value = try takeValue(for: option, display: "--\(name)") }
                    try record(option, value: value)
                } else {
                    if inline != nil {
                        throw UsageError("option --\(name) does not take a value",
                                         hint: "write --\(name) alone")
                    }
                    try record(option, value: nil)
                }
            } else {
                // A cluster of short options: -qv, -o FILE, -oFILE.
                let chars = Array(arg.dropFirst())
                var position = 0
                while position < chars.count {
                    let char = chars[position]
                    guard let option = lookup(short: char) else { throw unknownOption("-\(char)") }
                    if option.takesValue {
                        let rest = String(chars[(position + 1)...])
                        let value = rest.isEmpty ? try takeValue(for: option, display: "-\(char)") : rest
                        try record(option, value: value)
                        break
                    }
                    try record(option, value: nil)
                    position += 1
                }
            }
            index += 1
        }

        let spec = current()
        if !globals.help && !globals.version {
            try validatePositionals(positionals, spec: spec, command: path.joined(separator: " "))
        }
        return ParsedArguments(commandPath: path, spec: spec, globals: globals, values: values,
                               flags: flags, positionals: positionals)
    }

    private static func validatePositionals(_ positionals: [String], spec: CommandSpec,
                                            command: String) throws(UsageError) {
        if spec.hasSubcommands && spec.runner == nil { return }
        let required = spec.arguments.filter { !$0.isOptional }.count
        let unlimited = spec.arguments.contains { $0.isRepeated }
        if positionals.count < required {
            let missing = spec.arguments.filter { !$0.isOptional }[positionals.count]
            throw UsageError("missing argument <\(missing.name)> for '\(command)'", hint: "see '\(command) --help'")
        }
        if !unlimited && positionals.count > spec.arguments.count {
            let extra = positionals[spec.arguments.count]
            throw UsageError("unexpected argument '\(TerminalText.sanitize(extra, maxScalars: 64))' for '\(command)'",
                             hint: "see '\(command) --help'")
        }
    }
}

/// "Did you mean …?" suggestions by edit distance.
public enum Suggest {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = max(1, min(3, word.count / 3))
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(word, candidate)
            if distance <= limit, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        if best == nil, word.count >= 3 {
            return candidates.first { $0.hasPrefix(word) || $0.trimmingPrefixDashes.hasPrefix(word.trimmingPrefixDashes) && word.trimmingPrefixDashes.count >= 3 }
        }
        return best?.0
    }

    /// Levenshtein distance over Characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var row = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            row[0] = i
            for j in 1...y.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &row)
        }
        return previous[y.count]
    }
}

extension String {
    fileprivate var trimmingPrefixDashes: Substring { self.drop { $0 == "-" } }
}
