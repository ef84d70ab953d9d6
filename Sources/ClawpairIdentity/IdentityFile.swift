#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

// Identity files (identity-and-handshake.md §2): reading both OpenClaw `device.json` forms and a
// bare PKCS#8 PEM key, writing the TS form (the toolkit's own store) or any export form.
//
// Reading: `O_NOFOLLOW` (a symlink is refused), `O_NONBLOCK` (a FIFO never blocks the open), a
// regular file, no group/other permission bits (refused with the chmod fix, as ssh does), at most
// `maxBytes`, read straight into guarded memory. Decoding checks, each with its own message:
// JSON object → form → version → each field's type → PEM label → DER length → DER prefix →
// base64 → key length → public key belongs to the seed. An unreadable or corrupt file is always
// an error; nothing is ever regenerated in its place.
//
// Writing: the bytes are built in guarded memory, then handed to `AtomicFile` (temporary file
// with O_CREAT|O_EXCL|O_NOFOLLOW and mode 0600 in the same directory, fsync, rename or
// link-no-replace, fsync of the directory), and the ordinary-memory copy is wiped.

/// The on-disk shapes of an identity.
public enum IdentityFileForm: String, Sendable, CaseIterable {
    /// TS `device.json`: `{version: 1, deviceId, publicKeyPem, privateKeyPem, createdAtMs}`,
    /// 2-space JSON and a final LF. The toolkit's own store uses it.
    case openclaw
    /// Swift `device.json`: `{deviceId, publicKey, privateKey, createdAtMs}` with padded standard base64.
    case openclawSwift = "openclaw-swift"
    /// A bare PKCS#8 `BEGIN PRIVATE KEY` PEM block (what `openssl genpkey -algorithm ed25519` writes).
    case pem
}

/// An identity read from a file, with what the file said about itself.
public struct LoadedIdentity: Sendable {
    /// The key pair.
    public let identity: DeviceIdentity
    /// The form the file had.
    public let form: IdentityFileForm
    /// The deviceId written in the file (nil for PEM).
    public let storedDeviceId: String?
    /// Whether `createdAtMs` came from the file (false for PEM, which has none).
    public let hasCreatedAt: Bool

    /// Whether the stored deviceId is the key's (always true when none is stored).
    public var deviceIdMatches: Bool { storedDeviceId.map { $0 == identity.deviceId } ?? true }
}

/// What a file's metadata says about its safety (owner and mode).
public struct KeyFileStatus: Sendable, Equatable {
    /// Permission bits (`st_mode & 07777`).
    public let mode: UInt32
    /// Owner uid.
    public let ownerUID: UInt32
    /// Whether the owner is the effective user.
    public let ownedByUser: Bool
    /// Whether no group/other bits are set.
    public var isPrivate: Bool { mode & 0o077 == 0 }
}

/// Decoding, encoding, reading and writing identity files.
public enum IdentityFile {
    /// The largest identity file read (real ones are about 400 bytes).
    public static let maxBytes = 16 * 1024

    // MARK: Decoding

    /// Decodes identity-file bytes in any accepted form. `defaultCreatedAtMs` is used when the
    /// file has no creation time (PEM). The caller should wipe `bytes` afterwards.
    public static func decode(_ bytes: [UInt8], defaultCreatedAtMs: Int64) throws(IdentityError) -> LoadedIdentity {
        guard bytes.count <= maxBytes else { throw .invalid(what: "identity file", .tooLarge(limit: maxBytes)) }
        let secure = try SecureBytes(capacity: bytes.count)
        bytes.withUnsafeBytes { secure.append($0) }
        return try decode(secure, defaultCreatedAtMs: defaultCreatedAtMs)
    }

    /// Decodes identity-file bytes held in guarded memory.
    static func decode(_ secure: SecureBytes, defaultCreatedAtMs: Int64) throws(IdentityError) -> LoadedIdentity {
        try secure.withUnsafeBytes { (bytes) throws(IdentityError) -> LoadedIdentity in
            var first = 0
            while first < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[first]) { first += 1 }
            if first < bytes.count && bytes[first] == UInt8(ascii: "-") {
                let seed = try seedFromPKCS8PEM(bytes, field: "private key")
                let identity = try DeviceIdentity(secretKey: try DeviceIdentity.makeSecretKey(seed: seed),
                                                  createdAtMs: defaultCreatedAtMs)
                return LoadedIdentity(identity: identity, form: .pem, storedDeviceId: nil, hasCreatedAt: false)
            }
            let json: KeyFileJSON
            do throws(IdentityFormatError) { json = try KeyFileJSON.parse(bytes) } catch { throw .invalid(what: "identity file", error) }
            if json.value("publicKeyPem") != nil { return try decodeTS(bytes, json, defaultCreatedAtMs) }
            if json.value("publicKey") != nil || json.value("privateKey") != nil {
                return try decodeSwift(bytes, json)
            }
            throw .invalid(what: "identity file", .unknownForm)
        }
    }

    private static func fail(_ error: IdentityFormatError) -> IdentityError { .invalid(what: "identity file", error) }

    private static func requireString(_ bytes: UnsafeRawBufferPointer, _ json: KeyFileJSON,
                                      _ field: String) throws(IdentityError) -> Range<Int> {
        guard let value = json.value(field) else { throw fail(.missingField(field)) }
        guard case let .string(range) = value else { throw fail(.wrongType(field: field, expected: "a string")) }
        return range
    }

    private static func publicString(_ bytes: UnsafeRawBufferPointer, _ json: KeyFileJSON,
                                     _ field: String) throws(IdentityError) -> String {
        _ = try requireString(bytes, json, field)
        do {
            return try KeyFileJSON.publicString(bytes, json, field) ?? ""
        } catch { throw fail(error) }
    }

    private static func createdAt(_ json: KeyFileJSON, required: Bool, default fallback: Int64) throws(IdentityError) -> (Int64, Bool) {
        guard let value = json.value("createdAtMs") else {
            if required { throw fail(.missingField("createdAtMs")) }
            return (fallback, false)
        }
        guard case let .integer(ms) = value else {
            if case .number = value { throw fail(.invalidTimestamp(field: "createdAtMs")) }
            throw fail(.wrongType(field: "createdAtMs", expected: "a number"))
        }
        guard ms >= 0 else { throw fail(.invalidTimestamp(field: "createdAtMs")) }
        return (ms, true)
    }

    /// The JSON-escaped string `range` unescaped into guarded memory.
    private static func secretString(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>,
                                     field: String) throws(IdentityError) -> SecureBytes {
        let out = try SecureBytes(capacity: range.count)
        let n = try out.withUnsafeMutableBytes { (buffer) throws(IdentityError) -> Int in
            do throws(IdentityFormatError) { return try KeyFileJSON.unescapeASCII(bytes, range, field: field, into: buffer) } catch { throw fail(error) }
        }
        out.count = n
        return out
    }

    /// The 32-byte seed inside PKCS#8 PEM text, in guarded memory.
    private static func seedFromPKCS8PEM(_ text: UnsafeRawBufferPointer, field: String) throws(IdentityError) -> SecureBytes {
        let der = try SecureBytes(capacity: text.count)
        let n = try der.withUnsafeMutableBytes { (buffer) throws(IdentityError) -> Int in
            do throws(IdentityFormatError) { return try PEM.decode(text, label: .privateKey, into: buffer) } catch { throw fail(error) }
        }
        der.count = n
        let offset = try der.withUnsafeBytes { (raw) throws(IdentityError) -> Int in
            do throws(IdentityFormatError) {
                return try Ed25519DER.keyOffset(raw, prefix: Ed25519DER.pkcs8Prefix, what: "private key (PKCS#8)")
            } catch { throw fail(error) }
        }
        let seed = try SecureBytes(capacity: DeviceIdentity.seedByteCount)
        der.withUnsafeBytes { seed.append(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + 32])) }
        return seed
    }

    private static func checkPair(_ identity: DeviceIdentity, _ stored: DevicePublicKey) throws(IdentityError) {
        guard identity.publicKey == stored else { throw fail(.publicKeyMismatch) }
    }

    private static func decodeTS(_ bytes: UnsafeRawBufferPointer, _ json: KeyFileJSON,
                                 _ fallback: Int64) throws(IdentityError) -> LoadedIdentity {
        guard let version = json.value("version") else { throw fail(.missingField("version")) }
        guard case let .integer(number) = version else { throw fail(.wrongType(field: "version", expected: "a number")) }
        guard number == 1 else { throw fail(.unsupportedVersion(number)) }
        let deviceId = try publicString(bytes, json, "deviceId")
        let publicPem = try publicString(bytes, json, "publicKeyPem")
        let privateRange = try requireString(bytes, json, "privateKeyPem")
        let (created, hasCreated) = try createdAt(json, required: false, default: fallback)
        let pemText = try secretString(bytes, privateRange, field: "privateKeyPem")
        let seed = try pemText.withUnsafeBytes { (raw) throws(IdentityError) -> SecureBytes in
            try seedFromPKCS8PEM(raw, field: "privateKeyPem")
        }
        let stored: DevicePublicKey
        do { stored = try DevicePublicKey(parsing: publicPem) } catch { throw fail(error) }
        let identity = try DeviceIdentity(secretKey: try DeviceIdentity.makeSecretKey(seed: seed), createdAtMs: created)
        try checkPair(identity, stored)
        return LoadedIdentity(identity: identity, form: .openclaw, storedDeviceId: deviceId, hasCreatedAt: hasCreated)
    }

    private static func decodeSwift(_ bytes: UnsafeRawBufferPointer, _ json: KeyFileJSON) throws(IdentityError) -> LoadedIdentity {
        let deviceId = try publicString(bytes, json, "deviceId")
        let publicText = try publicString(bytes, json, "publicKey")
        let privateRange = try requireString(bytes, json, "privateKey")
        let (created, _) = try createdAt(json, required: true, default: 0)
        let base64 = try secretString(bytes, privateRange, field: "privateKey")
        let seed = try SecureBytes(capacity: 48)
        let n = base64.withUnsafeBytes { text in
            seed.withUnsafeMutableBytes { out in
                KeyText.lenientOrder.lazy.compactMap { KeyText.decode(text, variant: $0, ignore: nil, into: out) }.first
            }
        }
        guard let n else { throw fail(.base64(field: "privateKey")) }
        guard n == DeviceIdentity.seedByteCount else {
            throw fail(.length(field: "privateKey", expected: DeviceIdentity.seedByteCount, actual: n))
        }
        seed.count = n
        let stored: DevicePublicKey
        do { stored = try DevicePublicKey(parsing: publicText) } catch { throw fail(error) }
        let identity = try DeviceIdentity(secretKey: try DeviceIdentity.makeSecretKey(seed: seed), createdAtMs: created)
        try checkPair(identity, stored)
        return LoadedIdentity(identity: identity, form: .openclawSwift, storedDeviceId: deviceId, hasCreatedAt: true)
    }

    // MARK: Encoding

    /// The file text of `identity` in `form`, built in guarded memory.
    static func encode(_ identity: DeviceIdentity, form: IdentityFileForm) throws(IdentityError) -> SecureBytes {
        let out = try SecureBytes(capacity: 2048)
        switch form {
        case .openclaw:
            out.append("{\n  \"version\": 1,\n  \"deviceId\": \"\(identity.deviceId)\",\n  \"publicKeyPem\": \"")
            out.append(identity.publicKey.pem.replacingNewlinesWithEscapes())
            out.append("\",\n  \"privateKeyPem\": \"")
            try appendPKCS8PEM(identity, newline: "\\n", to: out)
            out.append("\",\n  \"createdAtMs\": \(identity.createdAtMs)\n}\n")
        case .openclawSwift:
            out.append("{\n  \"deviceId\": \"\(identity.deviceId)\",\n  \"publicKey\": \"\(identity.publicKey.base64Standard)\",\n  \"privateKey\": \"")
            identity.withSeed { KeyText.encode($0, variant: .standard, appendingTo: out) }
            out.append("\",\n  \"createdAtMs\": \(identity.createdAtMs)\n}\n")
        case .pem:
            try appendPKCS8PEM(identity, newline: "\n", to: out)
        }
        return out
    }

    private static func appendPKCS8PEM(_ identity: DeviceIdentity, newline: String, to out: SecureBytes) throws(IdentityError) {
        let der = try SecureBytes(capacity: Ed25519DER.pkcs8Length)
        Ed25519DER.pkcs8Prefix.withUnsafeBytes { der.append($0) }
        identity.withSeed { der.append($0) }
        try der.withUnsafeBytes { (raw) throws(IdentityError) in
            try PEM.encode(raw, label: .privateKey, newline: newline, appendingTo: out)
        }
    }

    // MARK: Files

    /// Reads and decodes the identity file at `path` (any form), refusing symlinks, non-regular
    /// files and files others may access. A missing file is ``IdentityError/noIdentity(path:)``.
    public static func load(path: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> LoadedIdentity {
        let (secure, _) = try SecretFile.read(path: path, limit: maxBytes)
        do {
            return try decode(secure, defaultCreatedAtMs: defaultCreatedAtMs)
        } catch {
            if case let .invalid(_, formatError) = error { throw .malformed(path: path, formatError) }
            throw error
        }
    }

    /// Decodes identity-file bytes read from standard input or another stream (already in memory);
    /// wipes `bytes` when done.
    public static func decode(consuming bytes: inout [UInt8], name: String, defaultCreatedAtMs: Int64) throws(IdentityError) -> LoadedIdentity {
        defer { SecretWipe.wipe(&bytes) }
        do {
            return try decode(bytes, defaultCreatedAtMs: defaultCreatedAtMs)
        } catch {
            if case let .invalid(_, formatError) = error { throw .malformed(path: name, formatError) }
            throw error
        }
    }

    /// Writes `identity` to `path` in `form` with mode 0600, atomically; an existing file is
    /// replaced only when `replacing` is true. The directory must exist.
    public static func write(_ identity: DeviceIdentity, form: IdentityFileForm, to path: String,
                             replacing: Bool) throws(IdentityError) {
        let secure = try encode(identity, form: form)
        var bytes = secure.copyBytes()
        defer { SecretWipe.wipe(&bytes) }
        do {
            try AtomicFile.write(bytes, to: path, mode: 0o600, replacing: replacing)
        } catch {
            if case let .exists(existing) = error { throw .alreadyExists(path: existing) }
            throw .file(error)
        }
    }

    /// Calls `body` with the file text of `identity` in `form` (it holds the private key), then
    /// wipes it. For printing an export; prefer ``write(_:form:to:replacing:)`` for files.
    public static func withEncoded<R>(_ identity: DeviceIdentity, form: IdentityFileForm,
                                      _ body: (UnsafeRawBufferPointer) -> R) throws(IdentityError) -> R {
        let secure = try encode(identity, form: form)
        return secure.withUnsafeBytes { body($0) }
    }

    /// The permission facts of `path` (without following a final symlink), or nil when it
    /// cannot be examined.
    public static func status(path: String) -> KeyFileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return KeyFileStatus(mode: UInt32(info.st_mode) & 0o7777, ownerUID: info.st_uid, ownedByUser: info.st_uid == geteuid())
    }
}

extension String {
    /// LF as the two characters `\n`, for embedding PEM in a JSON string (PEM has no other
    /// character JSON must escape).
    func replacingNewlinesWithEscapes() -> String {
        var out = ""
        for scalar in unicodeScalars {
            if scalar == "\n" { out += "\\n" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
