import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity export`: the identity (or token cache) in an OpenClaw or PEM form.
struct IdentityExportCommand: ParsableCommand {
    static let formats = IdentityFileForm.allCases.map(\.rawValue) + ["device-auth"]

    static let spec = CommandSpec(
        name: "export",
        abstract: "Export the identity as an OpenClaw device.json (TS or Swift form) or PEM, or the token cache",
        discussion: [
            "openclaw writes OpenClaw's TS device.json (what the Node CLI and gateway read), openclaw-swift the "
                + "Swift apps' form, pem the PKCS#8 private key (with --public, the SPKI public key instead), and "
                + "device-auth the store's device token cache as OpenClaw's device-auth.json.",
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

    let format: String
    let publicOnly: Bool
    let output: String?
    let force: Bool
    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        guard let format = arguments.value("format") else {
            throw UsageError("give the export format with --format", hint: "one of: \(Self.formats.joined(separator: ", "))")
        }
        guard Self.formats.contains(format) else {
            throw UsageError("unknown format '\(TerminalText.sanitize(format, maxScalars: 40))'",
                             hint: "one of: \(Self.formats.joined(separator: ", "))")
        }
        self.format = format
        publicOnly = arguments.flag("public")
        if publicOnly && format != "pem" { throw UsageError("--public works only with --format pem") }
        output = arguments.value("output")
        force = arguments.flag("force")
        if force && output == nil { throw UsageError("--force needs --output FILE") }
        if format == "device-auth" && arguments.value("identity") != nil {
            throw UsageError("--format device-auth exports the store's token cache; --identity does not apply")
        }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        if format == "device-auth" {
            let store = try IdentityCLI.store(context)
            let cache = try DeviceTokenCache.load(path: store.tokenCachePath)
            if let output {
                try cache.write(to: output, replacing: force)
                note(context, "Wrote the device token cache to \(output) (mode 600)")
            } else {
                warnIfTerminal(context)
                var bytes = cache.encoded()
                defer { SecretWipe.wipe(&bytes) }
                try FileIO.writeAll(fd: 1, bytes, name: "standard output")
            }
            return .success
        }
        let (loaded, _) = try IdentityCLI.load(arguments, context)
        let identity = loaded.identity
        if publicOnly {
            if let output {
                try identity.publicKey.writePEM(to: output, replacing: force)
                note(context, "Wrote the public key of \(identity.deviceId) to \(output)")
            } else {
                context.stdout.write(identity.publicKey.pem)
            }
            return .success
        }
        let form = IdentityFileForm(rawValue: format) ?? .openclaw
        if let output {
            try IdentityFile.write(identity, form: form, to: output, replacing: force)
            note(context, "Wrote identity \(identity.deviceId) to \(output) (\(form.displayName), mode 600)")
        } else {
            warnIfTerminal(context)
            var failure: (any Error)?
            try IdentityFile.withEncoded(identity, form: form) { bytes in
                do { try FileIO.writeAll(fd: 1, bytes, name: "standard output") } catch { failure = error }
            }
            if let failure { throw failure }
        }
        return .success
    }

    private func warnIfTerminal(_ context: CommandContext) {
        if context.stdoutIsTTY {
            context.warn("this output holds a secret; redirect it to a file (or use --output FILE) rather than a terminal")
        }
    }

    private func note(_ context: CommandContext, _ line: String) {
        if !context.globals.quiet { context.note(TerminalText.sanitize(line, maxScalars: 4096)) }
    }
}
