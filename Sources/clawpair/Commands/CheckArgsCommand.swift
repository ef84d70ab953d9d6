import ClawpairCLIKit
import ClawpairCore

/// `clawpair check-args -- ARGS...` (hidden): matches ARGS against the command tree with the
/// CLI's own parser, as `clawpair ARGS...` would, and runs nothing. Tests use it to keep the
/// command lines in README.md and docs/ true of the build.
struct CheckArgsCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "check-args",
        abstract: "Parse a command line as clawpair would and run nothing",
        discussion: [
            "Prints the command path the arguments select, or fails with the usage error (exit status 2) "
                + "that running them would give. Give the arguments after --.",
        ],
        arguments: [ArgumentSpec("argument", help: "The command line, without the program name.", optional: true, repeated: true)],
        hidden: true,
        runner: CheckArgsCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        // `clawpair help COMMAND...` is `clawpair COMMAND... --help`, as CommandLineTool reads it.
        var words = arguments.positionals
        if words.first == "help" { words = Array(words.dropFirst()) + ["--help"] }
        let parsed = try ArgumentParser.parse(words, root: RootCommand.spec)
        context.print(parsed.commandPath.joined(separator: " "))
        return .success
    }
}
