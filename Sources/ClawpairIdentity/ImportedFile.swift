// Telling the OpenClaw files apart for `identity import`: a `device.json` in either form, a bare
// PKCS#8 PEM key, a `device-auth.json` token cache (a JSON object with `tokens`), or OpenClaw's
// SQLite state store (`state/openclaw.sqlite`, told apart by the SQLite file header).

import ClawpairCore

/// A file the identity store can import.
public enum ImportedFile {
    /// An identity (`device.json` in either form, or a PKCS#8 PEM key).
    case identity(LoadedIdentity)
    /// A device token cache (`device-auth.json`).
    case tokenCache(DeviceTokenCache)
    /// OpenClaw's SQLite state store: an identity and its device tokens (read-only).
    case stateStore(OpenClawStateStore)

    /// Reads `path` and decodes whichever kind it is. A state store is read through SQLite,
    /// read-only; other files with the key-file checks (no symlink, regular file, no group/other
    /// access). A file others can read that is no identity file at all (say `/etc/passwd`) is
    /// reported as such, not with advice to chmod it.
    public static func load(path: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> ImportedFile {
        if OpenClawStateStore.isDatabaseFile(path: path) {
            return .stateStore(try OpenClawStateStore.read(path: path, defaultCreatedAtMs: defaultCreatedAtMs))
        }
        let secure: SecureBytes
        do {
            (secure, _) = try SecretFile.read(path: path, limit: DeviceTokenCache.maxBytes)
        } catch {
            if case .unsafePermissions = error, !looksLikeIdentityFile(path: path) {
                throw .malformed(path: path, .unknownForm)
            }
            throw error
        }
        return try decode(secure, name: path, defaultCreatedAtMs: defaultCreatedAtMs)
    }

    /// Whether the (already readable by others) file at `path` decodes as an identity or token
    /// cache: what decides between "chmod it" and "this is not an identity file".
    static func looksLikeIdentityFile(path: String) -> Bool {
        guard var bytes = try? FileIO.read(path: path, limit: DeviceTokenCache.maxBytes) else { return false }
        defer { SecretWipe.wipe(&bytes) }
        return (try? decode(consuming: &bytes, name: path, defaultCreatedAtMs: 0)) != nil
    }

    /// Reads standard input (or another descriptor) to its end straight into guarded memory and
    /// decodes it; `name` is used in messages.
    public static func read(fd: Int32, name: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> ImportedFile {
        let secure = try SecretFile.readAll(fd: fd, name: name, limit: DeviceTokenCache.maxBytes)
        return try decode(secure, name: name, defaultCreatedAtMs: defaultCreatedAtMs)
    }

    /// Decodes bytes read from a stream (standard input); wipes `bytes` when done.
    public static func decode(consuming bytes: inout [UInt8], name: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> ImportedFile {
        defer { SecretWipe.wipe(&bytes) }
        guard bytes.count <= DeviceTokenCache.maxBytes else {
            throw .malformed(path: name, .tooLarge(limit: DeviceTokenCache.maxBytes))
        }
        let secure = try SecureBytes(capacity: bytes.count)
        bytes.withUnsafeBytes { secure.append($0) }
        return try decode(secure, name: name, defaultCreatedAtMs: defaultCreatedAtMs)
    }

    static func decode(_ secure: SecureBytes, name: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> ImportedFile {
        let isTokenCache = secure.withUnsafeBytes { bytes in
            (try? KeyFileJSON.parse(bytes))?.value("tokens") != nil
        }
        if isTokenCache {
            var copy = secure.copyBytes()
            defer { SecretWipe.wipe(&copy) }
            do throws(IdentityFormatError) {
                return .tokenCache(try DeviceTokenCache.decode(copy))
            } catch {
                throw .malformed(path: name, error)
            }
        }
        guard secure.count <= IdentityFile.maxBytes else { throw .malformed(path: name, .tooLarge(limit: IdentityFile.maxBytes)) }
        do {
            return .identity(try IdentityFile.decode(secure, defaultCreatedAtMs: defaultCreatedAtMs))
        } catch {
            if case let .invalid(_, formatError) = error { throw .malformed(path: name, formatError) }
            throw error
        }
    }
}

@available(*, unavailable)
extension ImportedFile: Sendable {}
