import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// `clawpair identity show`: what the identity is and whether its file is safe.
struct IdentityShowCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show the device identity: deviceId, public key, creation time, file and permissions",
        discussion: [
            "Prints the deviceId (what gateways list and approve), the public key as base64url (the wire form) and "
                + "as PEM, when the identity was created, the file it lives in and whether that file's permissions "
                + "are safe. The private key is never printed; use 'clawpair identity export' for that.",
            "A key file that group or others may access is refused, with the chmod command that fixes it.",
        ],
        options: [IdentityCLI.identityOption],
        examples: [
            Example("clawpair identity show", "Show this machine's identity"),
            Example("clawpair identity show --json | jq -r .deviceId", "Print only the deviceId"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            IdentityCLI.environmentSection, IdentityCLI.filesSection,
        ],
        runner: IdentityShowCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let (summary, warnings) = try IdentitySummary.load(path: arguments.value("identity"), environment: context.environment)
        warnings.forEach(context.warn)
        let lines = summary.rows(nowMs: context.nowMs).map { IdentityCLI.row($0.label, $0.value) } + ["Public key (PEM):"]
        context.output(json: summary.json, text: lines.map { TerminalText.sanitize($0, maxScalars: 4096) + "\n" }.joined()
                                                  + summary.loaded.identity.publicKey.pem)
        return .success
    }
}
