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
            DocSection("JSON OUTPUT", [
                """
                  {
                    "path": "/home/me/.config/clawpair/identity/device.json",
                    "form": "openclaw",                 openclaw, openclaw-swift or pem
                    "deviceId": "<64 hex>",
                    "publicKey": "<43 chars base64url>",
                    "publicKeyBase64": "<44 chars, padded standard base64>",
                    "publicKeyPem": "-----BEGIN PUBLIC KEY-----\\n...",
                    "createdAtMs": 1737264000000,       null for a bare PEM key
                    "createdAt": "2025-01-19T05:20:00.000Z",
                    "permissions": {"mode": "600", "ownedByUser": true, "ok": true},
                    "tokens": [{"role": "operator", "scopes": [...], "updatedAtMs": ...}]
                                                        roles in the store's token cache
                                                        (never the tokens themselves)
                  }
                """,
            ]),
            IdentityCLI.environmentSection, IdentityCLI.filesSection,
        ],
        runner: IdentityShowCommand.runner
    )

    let arguments: ParsedArguments

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let (loaded, path) = try IdentityCLI.load(arguments, context)
        let identity = loaded.identity
        let status = IdentityFile.status(path: path)
        var tokens: [DeviceTokenCache.Entry] = []
        var tokenProblem: String?
        if arguments.value("identity") == nil {
            (tokens, tokenProblem) = try IdentityCLI.store(context).tokenEntries(for: identity.deviceId)
        }
        if let tokenProblem { context.warn("token cache: \(tokenProblem)") }
        let created: Int64? = loaded.hasCreatedAt ? identity.createdAtMs : nil

        if context.globals.json {
            var permissions: JSONValue = .null
            if let status {
                permissions = .object([("mode", .string(IdentityCLI.octal(status.mode))),
                                       ("ownedByUser", .bool(status.ownedByUser)),
                                       ("ok", .bool(status.isPrivate && status.ownedByUser))])
            }
            context.printJSON(.object([
                ("path", .string(path)), ("form", .string(loaded.form.rawValue)), ("deviceId", .string(identity.deviceId)),
                ("publicKey", .string(identity.publicKey.base64URL)),
                ("publicKeyBase64", .string(identity.publicKey.base64Standard)),
                ("publicKeyPem", .string(identity.publicKey.pem)),
                ("createdAtMs", created.map(JSONValue.int) ?? .null),
                ("createdAt", created.flatMap(WallClock.iso8601(ms:)).map(JSONValue.string) ?? .null),
                ("permissions", permissions),
                ("tokens", .array(tokens.map { entry in
                    .object([("role", .string(entry.role)), ("scopes", .array(entry.scopes.map(JSONValue.string))),
                             ("updatedAtMs", .int(entry.updatedAtMs))])
                })),
            ]))
            return .success
        }

        var lines: [String] = []
        lines.append(IdentityCLI.row("Identity", "\(path) (\(IdentityCLI.describe(loaded.form)))"))
        if let status {
            var check = "mode \(IdentityCLI.octal(status.mode))"
            check += status.ownedByUser ? ", owned by you" : ", owned by uid \(status.ownerUID)"
            check += status.isPrivate && status.ownedByUser ? ": ok" : ": check this"
            lines.append(IdentityCLI.row("Permissions", check))
        }
        lines.append(IdentityCLI.row("Device ID", identity.deviceId))
        lines.append(IdentityCLI.row("Public key", identity.publicKey.base64URL))
        if let created, let iso = WallClock.iso8601(ms: created) {
            lines.append(IdentityCLI.row("Created", "\(iso) (\(WallClock.relative(ms: created, now: context.nowMs)))"))
        } else {
            lines.append(IdentityCLI.row("Created", "unknown (a PEM key has no creation time)"))
        }
        if !tokens.isEmpty {
            let roles = tokens.map { "\($0.role) (\($0.scopes.count) scope\($0.scopes.count == 1 ? "" : "s"))" }
            lines.append(IdentityCLI.row("Tokens", roles.joined(separator: ", ")))
        }
        lines.append("Public key (PEM):")
        context.stdout.write(lines.map { TerminalText.sanitize($0, maxScalars: 4096) }.joined(separator: "\n") + "\n"
                             + identity.publicKey.pem)
        return .success
    }
}
