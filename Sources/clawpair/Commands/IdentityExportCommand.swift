import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity export`: the identity (or token cache) in an OpenClaw or PEM form.
struct IdentityExportCommand: ParsableCommand {
    static let formats = IdentityExport.Format.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        name: "export",
        abstract: "Export the identity as an OpenClaw device.json (TS or Swift form) or PEM, or the token cache",
        discussion: [
            "openclaw writes OpenClaw's TS device.json (what the Node CLI and gateway read), openclaw-swift the "
                + "Swift apps' form, pem the PKCS#8 private key (with --public, the SPKI public key instead), and "
                + "device-auth the store's device token cache as OpenClaw's device-auth.json (the tokens 'identity import' "
                + "brought in; tokens 'clawpair pair' receives are kept per gateway in the paired-gateways registry, "
                + "'clawpair gateways list').",
            "Everything but --public output holds secrets. With --output FILE the export is written atomically with "
                + "mode 0600 and an existing file is replaced only with --force; otherwise it goes to standard "
                + "output. Nothing is written into ~/.openclaw unless you name a file there with --output.",
        ],
        options: [
            .value("format", "FORMAT", help: "openclaw, openclaw-swift, pem or device-auth.",
                   completion: .values(IdentityExportCommand.formats)),
            .flag("public", help: "With --format pem: export only the public key (SPKI PEM)."),
            .value("output", short: "o", "FILE", help: "Write to FILE (mode 0600) instead of standard output.",
                   completion: .file),
            .flag("force", help: "Replace an existing --output file."),
            IdentityCLI.identityOption,
        ],
        examples: [
            Example("clawpair identity export --format openclaw-swift -o node-device.json",
                    "Hand the identity to an OpenClaw Swift app"),
            Example("clawpair identity export --format pem --public", "Print the public key as PEM"),
            Example("clawpair identity export --format openclaw -o ~/.openclaw/identity/device.json --force",
                    "Make the OpenClaw CLI use this identity (replaces its own)"),
        ],
        sections: [IdentityCLI.environmentSection, IdentityCLI.filesSection],
        runner: IdentityExportCommand.runner
    )

    let format: IdentityExport.Format
    let publicOnly: Bool
    let output: String?
    let force: Bool
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        guard let name = arguments.value("format") else {
            throw UsageError("give the export format with --format", hint: "one of: \(Self.formats.joined(separator: ", "))")
        }
        guard let format = IdentityExport.Format(rawValue: name) else {
            throw UsageError("unknown format '\(TerminalText.sanitize(name, maxScalars: 40))'",
                             hint: "one of: \(Self.formats.joined(separator: ", "))")
        }
        self.format = format
        publicOnly = arguments.flag("public")
        if publicOnly && format != .pem { throw UsageError("--public works only with --format pem") }
        output = arguments.value("output")
        force = arguments.flag("force")
        if force && output == nil { throw UsageError("--force needs --output FILE") }
        if format == .deviceAuth && arguments.value("identity") != nil {
            throw UsageError("--format device-auth exports the store's token cache; --identity does not apply")
        }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let store = { try IdentityStore.locate(environment: context.environment) }
        let export = try IdentityExport.make(format, publicOnly: publicOnly,
                                             identity: { try IdentityCLI.identity(arguments, context) },
                                             tokenCache: { try DeviceTokenCache.load(path: store().tokenCachePath) })
        if let output {
            context.note(TerminalText.sanitize(try export.write(to: output, replacing: force), maxScalars: 4096))
        } else {
            if export.holdsSecrets && context.stdoutIsTTY {
                context.warn("this output holds a secret; redirect it to a file (or use --output FILE) rather than a terminal")
            }
            try export.withBytes { try FileIO.writeAll(fd: 1, $0, name: "standard output") }
        }
        return .success
    }
}
