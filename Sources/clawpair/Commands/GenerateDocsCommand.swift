import ClawpairCLIKit
import ClawpairCore

/// `clawpair generate-docs DIR` (hidden): writes Man/ and Completions/ from the command declarations.
struct GenerateDocsCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "generate-docs",
        abstract: "Write the man pages and completion scripts generated from the command declarations",
        options: [.value("man-sources", "DIR", help: "Where the man pages' long sections are read from (default: DIRECTORY/Man/sections).",
                         completion: .directory)],
        arguments: [ArgumentSpec("directory", help: "Where Man/ and Completions/ are written.", completion: .directory)],
        hidden: true,
        runner: GenerateDocsCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        let directory = arguments.positionals[0]
        try DocsWriter.write(root: RootCommand.spec, version: ClawpairVersion.current, to: directory,
                             manSources: arguments.value("man-sources") ?? directory + "/Man/sections")
        return .success
    }
}
