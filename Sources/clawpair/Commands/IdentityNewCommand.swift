import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity new`: creates an identity.
struct IdentityNewCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "new",
        abstract: "Create a new device identity (Ed25519 key pair)",
        discussion: [
            "Generates a key pair with libsodium and writes it in OpenClaw's TS device.json form, mode 0600, to the "
                + "clawpair store ($CLAWPAIR_HOME, else $XDG_CONFIG_HOME/clawpair, else ~/.config/clawpair) or to --identity FILE. The file is written atomically (a temporary "
                + "file in the same directory, fsync, rename, fsync of the directory) and an existing identity is "
                + "never replaced without --force: a new identity is a new device to every gateway and must be paired "
                + "again.",
            "The deviceId and public key are printed on standard output when it is a terminal, else on standard "
                + "error (as age-keygen does), followed by the next command to run.",
        ],
        options: [
            .flag("force", help: "Replace an existing identity (the old one is lost unless exported)."),
            IdentityCLI.identityOption,
        ],
        examples: [
            Example("clawpair identity new", "Create this machine's identity in ~/.config/clawpair"),
            Example("clawpair identity new --identity ./node-device.json", "Create an identity in a file of your choice"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            IdentityCLI.environmentSection, IdentityCLI.filesSection,
        ],
        runner: IdentityNewCommand.runner
    )

    let force: Bool
    let explicitPath: String?

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        force = arguments.flag("force")
        explicitPath = arguments.value("identity")
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let created = try CreatedIdentity.create(at: explicitPath, replacing: force, environment: context.environment,
                                                 nowMs: context.nowMs)
        let identity = created.identity
        if context.globals.json {
            context.printJSON(created.json)
            return .success
        }
        // -q: only the deviceId, on stdout, for scripts (DEVICE=$(clawpair identity new -q)).
        guard !context.globals.quiet else { context.print(identity.deviceId); return .success }
        let sink = context.stdoutIsTTY ? context.stdout : context.stderr
        let style = context.stdoutIsTTY ? context.style : context.errorStyle
        let show = explicitPath.map { " --identity \(ShellQuote.quote($0))" } ?? ""
        sink.write("""
            \(created.replaced ? "Replaced the" : "Created a new") device identity in \(created.path) (mode 600)
            \(IdentityCLI.row("Device ID", identity.deviceId))
            \(IdentityCLI.row("Public key", identity.publicKey.base64URL))
            \(style.dim("Next: check it with 'clawpair identity show\(show)'; a gateway sees this device as new until it is paired."))

            """)
        return .success
    }
}
