import ClawpairCore

/// One export of the identity: an identity file, a public key or the device token
/// cache, written to a file atomically or handed out as bytes for standard output.
///
/// ```swift
/// let export = IdentityExport.identity(identity, form: .openclawSwift)
/// let sentence = try export.write(to: "node-device.json", replacing: false)
/// ```
public enum IdentityExport: Sendable {
    /// The identity in `form` (it holds the private key).
    case identity(DeviceIdentity, form: IdentityFileForm)
    /// The identity's public key as SPKI PEM: no secret.
    case publicKey(DeviceIdentity)
    /// The device token cache as OpenClaw's `device-auth.json` (it holds the tokens).
    case tokenCache(DeviceTokenCache)

    /// Whether the bytes hold a secret (everything but the public key): a caller printing them
    /// should warn when standard output is a terminal.
    public var holdsSecrets: Bool {
        if case .publicKey = self { return false }
        return true
    }

    /// Writes the export to `path` atomically (mode 0600, the public key 0644); an existing file is
    /// replaced only when `replacing` is true. Returns the sentence that says what was written,
    /// e.g. `Wrote identity <id> to <path> (OpenClaw device.json (TS), mode 600)`.
    public func write(to path: String, replacing: Bool) throws(IdentityError) -> String {
        switch self {
        case .identity(let identity, let form):
            try IdentityFile.write(identity, form: form, to: path, replacing: replacing)
            return "Wrote identity \(identity.deviceId) to \(path) (\(form.displayName), mode 600)"
        case .publicKey(let identity):
            try identity.publicKey.writePEM(to: path, replacing: replacing)
            return "Wrote the public key of \(identity.deviceId) to \(path)"
        case .tokenCache(let cache):
            try cache.write(to: path, replacing: replacing)
            return "Wrote the device token cache to \(path) (mode 600)"
        }
    }

    /// Calls `body` with the export's bytes, then wipes them (for standard output; prefer
    /// ``write(to:replacing:)`` for files). Rethrows what `body` throws.
    public func withBytes(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch self {
        case .identity(let identity, let form):
            var failure: (any Error)?
            try IdentityFile.withEncoded(identity, form: form) { bytes in
                do { try body(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
        case .publicKey(let identity):
            try Array(identity.publicKey.pem.utf8).withUnsafeBytes(body)
        case .tokenCache(let cache):
            var bytes = cache.encoded()
            defer { SecretWipe.wipe(&bytes) }
            try bytes.withUnsafeBytes(body)
        }
    }
}
