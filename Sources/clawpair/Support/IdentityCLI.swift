import ClawpairCLIKit
import ClawpairCore
import ClawpairIdentity

/// What the `clawpair identity` commands share: the `--identity` option, loading the identity
/// with the right messages, and the store's documentation.
enum IdentityCLI {
    /// `--identity FILE`.
    static let identityOption = OptionSpec.value(
        "identity", "FILE",
        help: "Use the identity in FILE (an OpenClaw device.json in either form, or a PKCS#8 PEM key) instead of the "
            + "one in the clawpair store.",
        completion: .file)

    /// The ENVIRONMENT section of every identity man page.
    static let environmentSection = DocSection("ENVIRONMENT", [
        "CLAWPAIR_HOME is the clawpair store directory. Without it the store is $XDG_CONFIG_HOME/clawpair when "
            + "XDG_CONFIG_HOME is an absolute path, else ~/.config/clawpair. The identity is identity/device.json "
            + "there (OpenClaw's TS form, mode 0600, in 0700 directories) and the device token cache is "
            + "identity/device-auth.json.",
        "clawpair never writes into OpenClaw's own state directory (~/.openclaw or $OPENCLAW_STATE_DIR) unless "
            + "a path there is named explicitly with --identity or --output.",
    ])

    /// The FILES section.
    static let filesSection = DocSection("FILES", [
        """
          ~/.config/clawpair/identity/device.json       the identity (OpenClaw TS form)
          ~/.config/clawpair/identity/device-auth.json  device tokens by role
          ~/.openclaw/identity/device.json              OpenClaw's identity (import source)
        """,
        "Key files must not be readable or writable by group or others; such a file is refused with the chmod "
            + "command that fixes it, as ssh does. A damaged file is an error and is never replaced silently.",
    ])

    /// The identity to use: `--identity FILE`, else the store's (warning about a file whose
    /// stored deviceId is not its key's).
    static func identity(_ arguments: ParsedArguments, _ context: CommandContext) throws -> DeviceIdentity {
        let found = try IdentityFile.loadNamedOrStored(path: arguments.value("identity"), environment: context.environment)
        if let warning = found.warning { context.warn(warning) }
        return found.loaded.identity
    }

    /// Lines in the two-column layout of `show`.
    static func row(_ label: String, _ value: String, width: Int = 13) -> String {
        TextColumns.label(label, width: width) + value
    }
}
