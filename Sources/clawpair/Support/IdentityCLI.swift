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

    /// The store for this process's environment.
    static func store(_ context: CommandContext) throws -> IdentityStore {
        try IdentityStore.locate(environment: context.environment)
    }

    /// The identity to use: `--identity FILE`, else the store's. A file whose stored deviceId is
    /// not its key's is used with a warning when named explicitly (OpenClaw rewrites such files).
    static func load(_ arguments: ParsedArguments, _ context: CommandContext) throws -> (LoadedIdentity, String) {
        if let path = arguments.value("identity") {
            let loaded = try IdentityFile.load(path: path, defaultCreatedAtMs: 0)
            if let stored = loaded.storedDeviceId, !loaded.deviceIdMatches {
                context.warn("\(path) says deviceId \(stored), but its key's deviceId is \(loaded.identity.deviceId); "
                             + "using the key's (gateways derive it from the key)")
            }
            return (loaded, path)
        }
        let store = try store(context)
        return (try store.loadIdentity(), store.identityPath)
    }

    /// A human name of a file form.
    static func describe(_ form: IdentityFileForm) -> String {
        switch form {
        case .openclaw: return "OpenClaw TS form"
        case .openclawSwift: return "OpenClaw Swift form"
        case .pem: return "PKCS#8 PEM"
        }
    }

    /// `600` or `644`.
    static func octal(_ mode: UInt32) -> String { String(mode & 0o7777, radix: 8) }

    /// Lines in the two-column layout of `show`.
    static func row(_ label: String, _ value: String, width: Int = 13) -> String {
        TextColumns.label(label, width: width) + value
    }
}

/// Quoting for shell commands printed as advice.
enum IdentityShellQuote {
    /// `text` as one shell word: unchanged when it is plain, else single-quoted.
    static func quote(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                || ($0.value >= 0x61 && $0.value <= 0x7A) || "/._-+:@%=,".unicodeScalars.contains($0)
        }
        if plain { return text }
        return "'" + text.identityEscapingSingleQuotes() + "'"
    }
}

extension String {
    fileprivate func identityEscapingSingleQuotes() -> String {
        var out = ""
        for c in self { out += c == "'" ? "'\\''" : String(c) }
        return out
    }
}
