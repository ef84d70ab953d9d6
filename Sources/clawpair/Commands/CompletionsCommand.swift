import ClawpairCLIKit
import ClawpairGateway

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
        shell = try ArgumentChoice.parse(arguments.positionals[0], what: "shell")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        context.stdout.write(CompletionGenerator.script(for: shell, root: RootCommand.spec))
        return .success
    }
}

/// `clawpair list-names gateways` (hidden): the paired gateways' names, one per line, for the
/// completion scripts (``CompletionKind/program(_:)``). Prints nothing when there are none.
struct ListNamesCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "list-names",
        abstract: "Print names for shell completion",
        arguments: [ArgumentSpec("kind", help: "What to list: gateways.", completion: .values(["gateways"]))],
        hidden: true,
        runner: ListNamesCommand.runner
    )

    /// The completion of a paired gateway's name.
    static let gatewayNames = CompletionKind.program(["list-names", "gateways"])

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        try ArgumentChoice.check(arguments.positionals[0], in: ["gateways"], what: "kind")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        for name in try GatewaysCommand.registry(context).snapshot().completionNames { context.print(name) }
        return .success
    }
}
