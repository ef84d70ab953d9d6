import ClawpairCore

extension ParsedArguments {
    /// The command again, as one shell line: the command path, the options in the order the
    /// command declares them (without those in `omitting`), `adding` (option name, value) after
    /// them, then the global flags given and the positionals. Used for hints such as "accept the
    /// certificate: clawpair devices list --url … --trust FP"; options whose value must not be
    /// echoed (a literal token) belong in `omitting`; `replacing` gives an option a new value in
    /// its place (`["url": "wss://…"]`). Each word is quoted as ``ShellQuote`` quotes it.
    public func commandLine(omitting: Set<String> = [], replacing: [String: String] = [:], adding: [(String, String)] = []) -> String {
        var words = commandPath
        for option in spec.options where !omitting.contains(option.long) {
            switch option.arity {
            case .flag, .counted:
                for _ in 0..<(flags[option.long] ?? 0) { words.append("--\(option.long)") }
            case .value, .repeated:
                for value in values(option.long) { words += ["--\(option.long)", replacing[option.long] ?? value] }
            }
        }
        for (name, value) in adding { words += ["--\(name)", value] }
        if globals.json { words.append("--json") }
        if globals.quiet { words.append("-q") }
        if globals.noColor { words.append("--no-color") }
        words += Array(repeating: "-v", count: globals.verbosity)
        if positionals.contains(where: { $0.hasPrefix("-") }) { words.append("--") }
        words += positionals
        return words.map(ShellQuote.quote).joined(separator: " ")
    }
}
