import ClawpairCore

// A device identity: an Ed25519 key pair (libsodium), its deviceId and creation time.
//
// The secret key lives only in guarded, locked memory (`SecureBytes`), made read-only once set
// (`FrozenSecureBytes`, which is what makes the identity `Sendable`) and wiped when the last
// reference to the identity is released. Nothing in the public API hands out the seed except
// the explicit exports, which pass it to a closure and wipe it afterwards.

/// This machine's Ed25519 device identity (identity-and-handshake.md §1).
///
/// Immutable and `Sendable`: the secret key sits in libsodium's guarded memory, read-only from
/// construction on, and is wiped when the last reference goes away.
public final class DeviceIdentity: Sendable {
    /// The seed is 32 bytes (RFC 8032 private key).
    public static let seedByteCount = 32

    /// The public key.
    public let publicKey: DevicePublicKey
    /// Lowercase hex SHA-256 of the raw public key.
    public let deviceId: String
    /// When the identity was created, in ms since the epoch.
    public let createdAtMs: Int64
    /// libsodium's 64-byte secret key: seed ‖ public key.
    let secretKey: FrozenSecureBytes

    /// Builds from a libsodium secret key already in guarded memory (seed ‖ public key), which
    /// it freezes and keeps.
    init(secretKey: SecureBytes, createdAtMs: Int64) throws(IdentityError) {
        let frozen = try FrozenSecureBytes(freezing: secretKey)
        self.secretKey = frozen
        let pk = frozen.withUnsafeBytes { Array($0[32..<64]) }
        do {
            self.publicKey = try DevicePublicKey(rawBytes: pk)
        } catch {
            throw .crypto("secret key layout")
        }
        self.deviceId = publicKey.deviceId
        self.createdAtMs = createdAtMs
    }

    /// A new identity from libsodium's CSPRNG.
    public static func generate(createdAtMs: Int64) throws(IdentityError) -> DeviceIdentity {
        try DeviceIdentity(secretKey: try makeRandomSecretKey(), createdAtMs: createdAtMs)
    }

    /// The identity whose 32-byte seed is `seed`. The caller keeps its copy of the seed and
    /// should wipe it (``SecretWipe/wipe(_:)``).
    public convenience init(seed: [UInt8], createdAtMs: Int64) throws(IdentityError) {
        guard seed.count == Self.seedByteCount else {
            throw .invalid(what: "seed", .length(field: "seed", expected: Self.seedByteCount, actual: seed.count))
        }
        let secure = try SecureBytes(capacity: Self.seedByteCount)
        seed.withUnsafeBytes { secure.append($0) }
        try self.init(secretKey: try Self.makeSecretKey(seed: secure), createdAtMs: createdAtMs)
    }

    /// Signs `message`. With `selfCheck` (the default) the signature is verified against the
    /// public key before it is returned, so a fault during signing can never leak a bad
    /// signature; batch signing may skip that after the key pair was checked once at load.
    public func sign(_ message: some Collection<UInt8>, selfCheck: Bool = true) throws(IdentityError) -> DeviceSignature {
        let bytes = Array(message)
        return try bytes.withUnsafeBytes { raw in
            Result { () throws(IdentityError) -> DeviceSignature in try sign(raw, selfCheck: selfCheck) }
        }.get()
    }

    /// Signs the UTF-8 bytes of `payload` (connect payloads are signed as text, §6).
    public func sign(_ payload: String, selfCheck: Bool = true) throws(IdentityError) -> DeviceSignature {
        var payload = payload
        return try payload.withUTF8 { utf8 in
            Result { () throws(IdentityError) -> DeviceSignature in try sign(UnsafeRawBufferPointer(utf8), selfCheck: selfCheck) }
        }.get()
    }

    func sign(_ message: UnsafeRawBufferPointer, selfCheck: Bool) throws(IdentityError) -> DeviceSignature {
        let signature = DeviceSignature(unchecked: try signDetached(message))
        if selfCheck && !DevicePublicKey.verify(signature: signature.rawBytes, message: message, publicKey: publicKey.rawBytes) {
            throw .crypto("crypto_sign_detached produced a signature that does not verify")
        }
        return signature
    }

    /// Signs a connect payload and returns the `device` object of ConnectParams. A v4 payload
    /// with a non-ASCII field is refused (``ConnectPayload/isEncodable``).
    public func signConnect(_ payload: ConnectPayload, selfCheck: Bool = true) throws(IdentityError) -> SignedConnect {
        guard payload.isEncodable else { throw .invalid(what: "v4 connect payload", .notASCII(field: "a v4 field")) }
        let signature = try sign(payload.text, selfCheck: selfCheck)
        return SignedConnect(payload: payload, deviceId: deviceId, publicKey: publicKey, signature: signature)
    }

    /// The seed (in guarded memory), for exports.
    func withSeed<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try secretKey.withUnsafeBytes { (all) throws(E) -> R in
            try body(UnsafeRawBufferPointer(rebasing: all[0..<Self.seedByteCount]))
        }
    }
}

/// A signed connect: the `device` object of ConnectParams and the payload it signs.
public struct SignedConnect: Sendable, Equatable {
    /// What was signed.
    public let payload: ConnectPayload
    /// `device.id`.
    public let deviceId: String
    /// `device.publicKey` (sent as base64url).
    public let publicKey: DevicePublicKey
    /// `device.signature` (sent as base64url).
    public let signature: DeviceSignature

    /// The ConnectParams `device` object, members in the order the apps send them:
    /// `{id, publicKey, signature, signedAt, nonce}`, key and signature as base64url.
    public var deviceJSON: JSONValue {
        .object([("id", .string(deviceId)), ("publicKey", .string(publicKey.base64URL)),
                 ("signature", .string(signature.base64URL)), ("signedAt", .int(payload.signedAtMs)),
                 ("nonce", .string(payload.nonce))])
    }
}
