import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity import [FILE...]`: takes over an OpenClaw identity and token cache.
struct IdentityImportCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import OpenClaw's identity and device tokens: its state store, a device.json, a PEM key or a device-auth.json",
        discussion: [
            "With no FILE, OpenClaw's state store is read: $OPENCLAW_STATE_DIR/state/openclaw.sqlite, else "
                + "~/.openclaw/state/openclaw.sqlite, where current OpenClaw keeps the device identity and device tokens "
                + "(older installs kept identity/device.json and identity/device-auth.json). The store is opened read-only "
                + "through SQLite and never changed; the identity and this device's tokens are imported.",
            "Each FILE is recognised by its contents: an OpenClaw state store (SQLite), OpenClaw's TS device.json (publicKeyPem, privateKeyPem), the "
                + "Swift apps' device.json (publicKey, privateKey in base64; node-device.json and share-device.json "
                + "have the same form), a PKCS#8 PEM private key, or a device-auth.json token cache. - reads standard "
                + "input. The identity is checked (the public key must belong to the private key) and stored in the "
                + "clawpair store in OpenClaw's TS form, mode 0600; a deviceId that does not match the key is "
                + "corrected. A token cache must belong to the imported or stored identity.",
            "Files are read with the same checks as the store's: not a symlink, a regular file, and not accessible "
                + "to group or others. The OpenClaw files are only read, never changed. An existing identity or "
                + "token cache is replaced only with --force.",
        ],
        options: [.flag("force", help: "Replace the identity or token cache already in the store.")],
        arguments: [ArgumentSpec("file", help: "A state store, identity or token-cache file, or - for standard input; "
                                 + "none reads OpenClaw's state store.", optional: true, repeated: true, completion: .file)],
        examples: [
            Example("clawpair identity import", "Use the identity and device tokens of this machine's OpenClaw (its state store)"),
            Example("clawpair identity import ~/.openclaw/identity/device.json ~/.openclaw/identity/device-auth.json",
                    "Use the same identity and device tokens as this machine's OpenClaw CLI"),
            Example("clawpair identity import node-device.json", "Import an identity exported from an OpenClaw Swift app"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            IdentityCLI.environmentSection, IdentityCLI.filesSection,
        ],
        runner: IdentityImportCommand.runner
    )

    let files: [String]
    let force: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        files = arguments.positionals.isEmpty
            ? [OpenClawStateStore.defaultPath(environment: context.environment) ?? "~/.openclaw/state/openclaw.sqlite"]
            : arguments.positionals
        force = arguments.flag("force")
        if files.filter({ $0 == "-" }).count > 1 {
            throw UsageError("standard input (-) can be given once")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        var imports = IdentityImportSet()
        for file in files {
            if file == "-" {
                if context.stdinIsTTY { context.note("Paste the file, then press Ctrl-D:") }
                // Straight from fd 0 into guarded memory: the file may hold a private key.
                imports.add(try ImportedFile.read(fd: 0, name: "standard input", defaultCreatedAtMs: context.nowMs), source: file)
            } else {
                imports.add(try ImportedFile.load(path: file, defaultCreatedAtMs: context.nowMs), source: file)
            }
        }
        guard imports.isOneDevice else {
            throw UsageError("give at most one identity file and one token cache", hint: "import them one device at a time")
        }
        let store = try IdentityStore.locate(environment: context.environment)
        let report = try store.importFiles(imports, replacing: force, environment: context.environment, warn: context.warn)
        if context.globals.json {
            context.printJSON(report.json)
        } else if !context.globals.quiet {
            for line in report.lines { context.print(TerminalText.sanitize(line, maxScalars: 4096)) }
            context.note(context.errorStyle.dim("Next: check it with 'clawpair identity show'."))
        }
        return .success
    }
}
