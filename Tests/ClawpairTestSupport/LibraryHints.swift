import ClawpairCore

/// Library errors speak to programs that have no command line (issue #11): their hints name no
/// option and no clawpair command; the executable adds those (ErrorPresentation).
public enum LibraryHints {
    /// clawpair's commands (RootCommand's subcommands).
    static let commands = ["discover", "advertise", "setup-code", "qr", "identity", "zone", "probe", "devices", "nodes",
                           "pair", "gateways", "completions", "generate-docs", "help"]

    /// The parts of `hint` that belong to the command line: an option (`--name`) or a
    /// `clawpair` command. Empty when the hint is fit for a library.
    public static func commandLineWords(in hint: String?) -> [String] {
        guard let hint else { return [] }
        var found: [String] = []
        for word in hint.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "'" || $0 == "`" }) where word.hasPrefix("--") {
            found.append(String(word))
        }
        for command in commands where hint.contains("clawpair \(command)") { found.append("clawpair \(command)") }
        return found
    }

    /// Every error of `errors` whose hint names the command line, with what it names.
    public static func offenders(_ errors: [any ClawpairError]) -> [String] {
        errors.compactMap { error in
            let words = commandLineWords(in: error.hint)
            return words.isEmpty ? nil : "\(error.message): \(error.hint ?? "") names \(words)"
        }
    }
}
