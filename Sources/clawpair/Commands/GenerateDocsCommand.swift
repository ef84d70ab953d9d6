import ClawpairCLIKit
import ClawpairCore

/// `clawpair generate-docs DIR` (hidden): writes Man/ and Completions/ from the command declarations.
struct GenerateDocsCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "generate-docs",
        abstract: "Write the man pages and completion scripts generated from the command declarations",
        arguments: [ArgumentSpec("directory", help: "Where Man/ and Completions/ are written.", completion: .directory)],
        hidden: true,
        runner: GenerateDocsCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        try DocsWriter.write(root: RootCommand.spec, version: ClawpairVersion.current, to: arguments.positionals[0])
        return .success
    }
}
