import ClawpairCLIKit
import ClawpairCore

/// `clawpair completions SHELL`: prints a completion script.
struct CompletionsCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "completions",
        abstract: "Print the shell completion script for bash, zsh or fish",
        discussion: [
            "The scripts are also installed by 'make install' into the standard bash-completion, zsh and fish "
                + "directories; this command is for shells set up by hand.",
        ],
        arguments: [ArgumentSpec("shell", help: "The shell: bash, zsh or fish.",
                                 completion: .values(CompletionGenerator.Shell.allCases.map(\.rawValue)))],
        examples: [
            Example("source <(clawpair completions bash)", "Enable completion in the current bash session"),
            Example("clawpair completions fish > ~/.config/fish/completions/clawpair.fish", "Install for fish"),
        ],
        runner: CompletionsCommand.runner
    )

    let shell: CompletionGenerator.Shell

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        let name = arguments.positionals[0]
        guard let shell = CompletionGenerator.Shell(rawValue: name) else {
            throw UsageError("unknown shell '\(TerminalText.sanitize(name, maxScalars: 32))'", hint: "use bash, zsh or fish")
        }
        self.shell = shell
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        context.stdout.write(CompletionGenerator.script(for: shell, root: RootCommand.spec))
        return .success
    }
}
