// What a program shows about an identity (clawpair-identity-show(1)): the identity to use (a
// named file or the store's), and its summary as JSON and as labelled lines.
import ClawpairCore

extension IdentityFile {
    /// The identity to use: the file at `path` when one is named, else the store's (located from
    /// `environment`, see ``IdentityStore/locate(environment:)``), with the path it was read from.
    /// A named file whose stored deviceId is not its key's is used (OpenClaw rewrites such files),
    /// with `warning` saying so; the store's identity never needs one.
    public static func loadNamedOrStored(path: String?, environment: [String: String])
        throws(IdentityError) -> (loaded: LoadedIdentity, path: String, warning: String?) {
        guard let path else {
            let store = try IdentityStore.locate(environment: environment)
            return (try store.loadIdentity(), store.identityPath, nil)
        }
        let loaded = try load(path: path, defaultCreatedAtMs: 0)
        var warning: String?
        if let stored = loaded.storedDeviceId, !loaded.deviceIdMatches {
            warning = "\(path) says deviceId \(stored), but its key's deviceId is \(loaded.identity.deviceId); "
                + "using the key's (gateways derive it from the key)"
        }
        return (loaded, path, warning)
    }
}

extension IdentityFileForm {
    /// The form's name for people: `OpenClaw TS form`, `OpenClaw Swift form`, `PKCS#8 PEM`.
    public var displayName: String {
        switch self {
        case .openclaw: return "OpenClaw TS form"
        case .openclawSwift: return "OpenClaw Swift form"
        case .pem: return "PKCS#8 PEM"
        }
    }
}

extension KeyFileStatus {
    /// The permission bits in octal, e.g. `600`.
    public var modeText: String { String(mode & 0o7777, radix: 8) }
    /// Private to its owner, and the owner is this user.
    public var isSafe: Bool { isPrivate && ownedByUser }
}

/// An identity, where it lives, how safe its file is and which device tokens the store holds
/// for it (roles and scopes only: never the tokens).
public struct IdentitySummary {
    /// The file it was read from.
    public let path: String
    /// The identity and its file form.
    public let loaded: LoadedIdentity
    /// The file's permissions (nil when it cannot be examined).
    public let status: KeyFileStatus?
    /// The store's token cache entries for it.
    public let tokens: [DeviceTokenCache.Entry]

    /// The summary of `loaded`, read from `path`; `status` defaults to the file's.
    public init(path: String, loaded: LoadedIdentity, status: KeyFileStatus?? = nil, tokens: [DeviceTokenCache.Entry] = []) {
        self.path = path
        self.loaded = loaded
        self.status = status ?? IdentityFile.status(path: path)
        self.tokens = tokens
    }

    /// When the identity was created (epoch ms); nil when its file does not say (a bare PEM key).
    public var createdAtMs: Int64? { loaded.hasCreatedAt ? loaded.identity.createdAtMs : nil }

    /// The JSON object of clawpair-identity-show(1).
    public var json: JSONValue {
        let identity = loaded.identity
        var permissions: JSONValue = .null
        if let status {
            permissions = .object([("mode", .string(status.modeText)), ("ownedByUser", .bool(status.ownedByUser)),
                                   ("ok", .bool(status.isSafe))])
        }
        return .object([
            ("path", .string(path)), ("form", .string(loaded.form.rawValue)), ("deviceId", .string(identity.deviceId)),
            ("publicKey", .string(identity.publicKey.base64URL)),
            ("publicKeyBase64", .string(identity.publicKey.base64Standard)),
            ("publicKeyPem", .string(identity.publicKey.pem)),
            ("createdAtMs", createdAtMs.map(JSONValue.int) ?? .null),
            ("createdAt", createdAtMs.flatMap(WallClock.iso8601(ms:)).map(JSONValue.string) ?? .null),
            ("permissions", permissions),
            ("tokens", .array(tokens.map { entry in
                .object([("role", .string(entry.role)), ("scopes", .array(entry.scopes.map(JSONValue.string))),
                         ("updatedAtMs", .int(entry.updatedAtMs))])
            })),
        ])
    }

    /// Labelled lines for people (`Identity`, `Permissions`, `Device ID`, `Public key`, `Created`,
    /// `Tokens`), ages relative to `nowMs`. Values are unsanitized: a caller printing them to a
    /// terminal sanitizes them.
    public func rows(nowMs: Int64) -> [(label: String, value: String)] {
        let identity = loaded.identity
        var rows: [(label: String, value: String)] = [("Identity", "\(path) (\(loaded.form.displayName))")]
        if let status {
            let owner = status.ownedByUser ? ", owned by you" : ", owned by uid \(status.ownerUID)"
            rows.append(("Permissions", "mode \(status.modeText)" + owner + (status.isSafe ? ": ok" : ": check this")))
        }
        rows.append(("Device ID", identity.deviceId))
        rows.append(("Public key", identity.publicKey.base64URL))
        if let created = createdAtMs, let iso = WallClock.iso8601(ms: created) {
            rows.append(("Created", "\(iso) (\(WallClock.relative(ms: created, now: nowMs)))"))
        } else {
            rows.append(("Created", "unknown (a PEM key has no creation time)"))
        }
        if !tokens.isEmpty {
            let roles = tokens.map { "\($0.role) (\($0.scopes.count) scope\($0.scopes.count == 1 ? "" : "s"))" }
            rows.append(("Tokens", roles.joined(separator: ", ")))
        }
        return rows
    }
}
