import ClawpairCLIKit

/// `clawpair identity`: this machine's Ed25519 device identity.
enum IdentityCommand {
    static let spec = CommandSpec(
        name: "identity",
        abstract: "Create and manage this machine's Ed25519 device identity",
        discussion: [
            "A device identity is an Ed25519 key pair. Gateways know a device by its deviceId, the lowercase hex "
                + "SHA-256 of the raw 32-byte public key, and check a signature over the connect challenge with it. "
                + "clawpair keeps its own identity in OpenClaw's TS file form, so OpenClaw tools can read it, and "
                + "imports and exports both OpenClaw device.json forms.",
            "Keys are handled by libsodium only; the private key is held in locked, guarded memory and wiped after use.",
        ],
        subcommands: [
            Subcommand("new") { IdentityNewCommand.spec },
            Subcommand("show") { IdentityShowCommand.spec },
            Subcommand("import") { IdentityImportCommand.spec },
            Subcommand("export") { IdentityExportCommand.spec },
            Subcommand("sign-connect") { IdentitySignConnectCommand.spec },
            Subcommand("verify") { IdentityVerifyCommand.spec },
        ]
    )
}
