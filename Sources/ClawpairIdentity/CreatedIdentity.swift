// `clawpair identity new` as one call: a fresh key pair written where the identity belongs, and
// what was created as JSON (clawpair-identity-new(1)).
import ClawpairCore

/// A freshly generated identity and the file it was written to.
///
/// ```swift
/// let created = try CreatedIdentity.create(at: nil, replacing: false, environment: environment, nowMs: nowMs)
/// print(created.identity.deviceId)
/// ```
public struct CreatedIdentity: Sendable {
    /// The new identity.
    public let identity: DeviceIdentity
    /// The file it was written to (OpenClaw's TS form, mode 0600).
    public let path: String
    /// Whether a file at `path` was replaced.
    public let replaced: Bool

    /// Generates an identity created at `nowMs` and writes it atomically in OpenClaw's TS form
    /// (0600) to `path`, or when `path` is nil to the store's identity file (the store located
    /// from `environment`, refused inside OpenClaw's state directory, its private directories
    /// created). An existing file is replaced only when `replacing` is true, else
    /// ``IdentityError/alreadyExists(path:)`` is thrown before a key is generated.
    public static func create(at path: String?, replacing: Bool, environment: [String: String],
                              nowMs: Int64) throws(IdentityError) -> CreatedIdentity {
        let target: String
        if let path {
            target = path
        } else {
            let store = try IdentityStore.locate(environment: environment)
            try store.checkOutsideOpenClaw(environment: environment)
            try store.preparePrivateDirectories()
            target = store.identityPath
        }
        let existed = IdentityFile.status(path: target) != nil
        if existed && !replacing { throw .alreadyExists(path: target) }
        let identity = try DeviceIdentity.generate(createdAtMs: nowMs)
        try IdentityFile.write(identity, form: .openclaw, to: target, replacing: replacing)
        return CreatedIdentity(identity: identity, path: target, replaced: existed)
    }

    /// The JSON object of clawpair-identity-new(1): `path`, `deviceId`, `publicKey` (base64url),
    /// `publicKeyPem`, `createdAtMs`, `createdAt` (RFC 3339 UTC) and `replaced`.
    public var json: JSONValue {
        .object([
            ("path", .string(path)), ("deviceId", .string(identity.deviceId)),
            ("publicKey", .string(identity.publicKey.base64URL)), ("publicKeyPem", .string(identity.publicKey.pem)),
            ("createdAtMs", .int(identity.createdAtMs)),
            ("createdAt", WallClock.iso8601(ms: identity.createdAtMs).map(JSONValue.string) ?? .null),
            ("replaced", .bool(replaced)),
        ])
    }
}
