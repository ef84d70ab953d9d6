#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Runs a command tree as a process: parse, handle `--help`/`--version`/`help`, run, and end
/// with the exit status of the command or of the error it threw.
public enum CommandLineTool {
    /// Parses `arguments` (argv without the program name), runs the selected command and
    /// returns the exit status. `makeContext` builds the context for the parsed globals;
    /// `present` gives a thrown error its exit status, message and hint (the executable's one
    /// mapping of library errors; by default ``PresentedError/standard(_:)``).
    public static func run(root: CommandSpec, arguments: [String], version: String,
                           makeContext: (GlobalOptions) -> CommandContext = CommandContext.process,
                           present: (any Error) -> PresentedError = PresentedError.standard) -> Int32 {
        // `clawpair help [command...]` is `clawpair [command...] --help`.
        var arguments = arguments
        if arguments.first == "help", root.subcommand(named: "help") == nil {
            arguments = Array(arguments.dropFirst()) + ["--help"]
        }
        let parsed: ParsedArguments
        do {
            parsed = try ArgumentParser.parse(arguments, root: root)
        } catch {
            var globals = GlobalOptions()
            let options = arguments.prefix { $0 != "--" }
            globals.noColor = options.contains("--no-color")
            globals.json = options.contains("--json")
            return fail(present(error), makeContext(globals))
        }
        let context = makeContext(parsed.globals)
        if parsed.globals.version {
            if parsed.globals.json {
                context.printJSON(.object([("name", .string(root.name)), ("version", .string(version))]))
            } else {
                context.print("\(root.name) \(version)")
            }
            return ExitStatus.success.rawValue
        }
        if parsed.globals.help {
            context.stdout.write(HelpFormatter.help(path: parsed.commandPath, spec: parsed.spec, style: context.style))
            return ExitStatus.success.rawValue
        }
        guard let runner = parsed.spec.runner else {
            if parsed.commandPath.count == 1 {
                context.stdout.write(HelpFormatter.help(path: parsed.commandPath, spec: parsed.spec, style: context.style))
                return ExitStatus.success.rawValue
            }
            let names = parsed.spec.visibleSubcommands.map(\.name).joined(separator: ", ")
            return fail(present(UsageError("'\(parsed.commandName)' needs a command: \(names)",
                                           hint: "see '\(parsed.commandName) --help'")), context)
        }
        do {
            return try runner(parsed, context).rawValue
        } catch {
            return fail(present(error), context)
        }
    }

    /// Reports `shown` on stderr and, under `--json`, prints its envelope on stdout
    /// (``JSONEnvelope/failure(_:)``): as a document, or as one line when the command was
    /// streaming JSON lines, and not at all when the command already printed its own document
    /// (which then carries `"ok": false` and the error itself).
    static func fail(_ shown: PresentedError, _ context: CommandContext) -> Int32 {
        if context.globals.json && !context.jsonOutput.printedDocument {
            if context.jsonOutput.printedLines {
                context.printJSONLine(JSONEnvelope.failure(shown))
            } else {
                context.printJSON(JSONEnvelope.failure(shown))
            }
        }
        context.report(shown)
        return shown.exitStatus.rawValue
    }
}

/// Writes the generated man pages and completion scripts.
public enum DocsWriter {
    /// Every generated file, as `(path relative to the output directory, contents)`:
    /// `Man/<page>.1`, `Completions/<program>.bash`, `Completions/_<program>`, `Completions/<program>.fish`.
    public static func files(root: CommandSpec, version: String) -> [(String, String)] {
        var files = ManPageGenerator.pages(root: root, version: version).map { ("Man/\($0.0)", $0.1) }
        files.append(("Completions/\(root.name).bash", CompletionGenerator.script(for: .bash, root: root)))
        files.append(("Completions/_\(root.name)", CompletionGenerator.script(for: .zsh, root: root)))
        files.append(("Completions/\(root.name).fish", CompletionGenerator.script(for: .fish, root: root)))
        return files
    }

    /// The most bytes read from one man source file.
    public static let maxManSourceBytes = 256 * 1024

    /// `root` with the sections its pages keep in man sources filled in from
    /// `<manSources>/<page>.txt` (``ManSource``, ``CommandSpec/resolvingManSources(path:_:)``).
    public static func resolved(_ root: CommandSpec, manSources: String) throws -> CommandSpec {
        try root.resolvingManSources(path: [root.name]) { page in
            let path = manSources + "/" + page + ".txt"
            guard access(path, F_OK) == 0 else { return ManSource(sections: []) }
            let bytes = try FileIO.read(path: path, limit: maxManSourceBytes)
            return try ManSource(parsing: String(decoding: bytes, as: UTF8.self), page: page)
        }
    }

    /// Writes ``files(root:version:)`` under `directory`, creating `Man/` and `Completions/`, with
    /// the sections kept in man sources read from `manSources` (``resolved(_:manSources:)``).
    public static func write(root: CommandSpec, version: String, to directory: String, manSources: String) throws {
        let root = try resolved(root, manSources: manSources)
        for sub in ["", "/Man", "/Completions"] {
            let path = directory + sub
            if mkdir(path, 0o755) != 0 && errno != EEXIST { throw SystemError(call: "mkdir", errno: errno, path: path) }
        }
        for (relative, contents) in files(root: root, version: version) {
            let path = directory + "/" + relative
            let fd = try Syscall.retrying("open", path: path) { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
            defer { close(fd) }
            var bytes = Array(contents.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = try Syscall.retrying("write", path: path) {
                    bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                }
                offset += n
            }
            bytes.removeAll()
        }
    }
}
