import ClawpairCLIKit

/// `clawpair setup-code`: the group of setup-code commands.
enum SetupCodeCommand {
    static let spec = CommandSpec(
        name: "setup-code",
        abstract: "Encode and decode OpenClaw setup codes",
        discussion: [
            "A setup code is base64url of a small JSON payload: the gateway's WebSocket URL(s), a one-time "
                + "bootstrap token, its expiry and optionally the TLS certificate pin. It is a bearer credential: "
                + "treat it like a password. clawpair reads every generation OpenClaw has used and writes the newest.",
        ],
        subcommands: [
            Subcommand("encode") { SetupCodeEncodeCommand.spec },
            Subcommand("decode") { SetupCodeDecodeCommand.spec },
        ]
    )
}
