#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Reads a secret the safe ways first: a file, standard input, the environment; a literal
/// value on the command line works but warns, because argv is visible to other users. The
/// option names and the variable are the caller's; messages name them.
///
/// ```swift
/// let token = SecretInput(what: "token", fileOption: "token-file", valueOption: "token",
///                         environmentVariable: "MY_TOKEN")
/// if let secret = try token.read(arguments, context) { … }
/// ```
public struct SecretInput: Sendable {
    /// The largest secret file read; tokens are tens of bytes.
    public static let maxBytes = 64 * 1024

    /// What the secret is called in messages, e.g. `bootstrap token`.
    public let what: String
    /// `--x-file FILE`.
    public let fileOption: String
    /// `--x VALUE|-`.
    public let valueOption: String
    /// The environment variable, e.g. `CLAWPAIR_BOOTSTRAP_TOKEN`.
    public let environmentVariable: String
    /// Whether `read` falls back to the variable; false when the caller applies its own rules
    /// to the environment (the operator session's credential order).
    public var readsEnvironment = true

    /// A secret read from `--fileOption FILE`, `--valueOption VALUE` (`-`: standard input) or
    /// `environmentVariable` (when `readsEnvironment`).
    public init(what: String, fileOption: String, valueOption: String, environmentVariable: String,
                readsEnvironment: Bool = true) {
        self.what = what
        self.fileOption = fileOption
        self.valueOption = valueOption
        self.environmentVariable = environmentVariable
        self.readsEnvironment = readsEnvironment
    }

    /// The secret, or nil when none of the sources was given. Trailing newlines from files
    /// and pipes are removed; an empty secret is an error.
    public func read(_ arguments: ParsedArguments, _ context: CommandContext) throws -> String? {
        let file = arguments.value(fileOption)
        let value = arguments.value(valueOption)
        if file != nil && value != nil {
            throw UsageError("give the \(what) once: --\(fileOption) or --\(valueOption), not both")
        }
        let text: String
        if let file {
            let bytes = try FileIO.read(path: file, limit: Self.maxBytes)
            warnIfShared(file, context)
            text = try decode(bytes, source: file)
        } else if value == "-" {
            if context.stdinIsTTY { context.note("Reading the \(what) from standard input (end with Ctrl-D)…") }
            text = try decode(try context.readStandardInput(Self.maxBytes), source: "standard input")
        } else if let value {
            context.warn("a \(what) on the command line is visible to other users (ps, shell history); "
                         + "prefer --\(fileOption) FILE, --\(valueOption) - (stdin) or \(environmentVariable)")
            text = value
        } else if readsEnvironment, let env = context.environment[environmentVariable] {
            text = env
        } else {
            return nil
        }
        let trimmed = text.trimmingTrailingNewlines
        guard !trimmed.isEmpty else {
            throw GeneralError("the \(what) is empty", hint: "check the file or variable that should hold it", status: .failure)
        }
        return trimmed
    }

    /// A secret file others can read is a leaked secret: say so (key files are refused outright;
    /// a token file may be shared on purpose, e.g. with a service account's group).
    private func warnIfShared(_ file: String, _ context: CommandContext) {
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        context.warn("\(file) holds the \(what) and is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8))); "
                     + "run: chmod 600 \(file)")
    }

    private func decode(_ bytes: [UInt8], source: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw GeneralError("\(source) does not hold UTF-8 text", hint: "give the file that holds just the \(what)")
        }
        return text
    }
}

extension String {
    /// Without trailing `\n`/`\r\n` (what `echo` and editors add).
    public var trimmingTrailingNewlines: String {
        var result = Substring(self)
        while let last = result.last, last == "\n" || last == "\r\n" || last == "\r" { result = result.dropLast() }
        return String(result)
    }
}

extension SecretInput {
    /// The secret (see ``read(_:_:)``), or when none is given a usage error `no WHAT given`
    /// whose hint lists the file option, `-` for standard input and the environment variable.
    public func require(_ arguments: ParsedArguments, _ context: CommandContext) throws -> String {
        guard let secret = try read(arguments, context) else {
            throw UsageError("no \(what) given",
                             hint: "use --\(fileOption) FILE, --\(valueOption) - (standard input) or \(environmentVariable)")
        }
        return secret
    }
}

extension SecretInput {
    /// Whether the command line names this secret (`--fileOption` or `--valueOption`), before
    /// anything is read; the environment does not count.
    public func isGiven(_ arguments: ParsedArguments) -> Bool {
        arguments.value(fileOption) != nil || arguments.value(valueOption) != nil
    }
}
