// An Ed25519 device public key and its encodings (identity-and-handshake.md §1).

/// A raw 32-byte Ed25519 public key, the device's identity on the wire.
///
/// The deviceId is the lowercase hex SHA-256 of these 32 bytes: never of PEM or DER text.
/// Equality is constant-time.
public struct DevicePublicKey: Sendable, Hashable, CustomStringConvertible {
    /// Ed25519 public keys are 32 bytes.
    public static let byteCount = 32

    /// The 32 key bytes.
    public let rawBytes: [UInt8]

    /// Wraps exactly 32 raw bytes.
    public init(rawBytes: some Collection<UInt8>) throws(IdentityFormatError) {
        guard rawBytes.count == Self.byteCount else {
            throw .length(field: "public key", expected: Self.byteCount, actual: rawBytes.count)
        }
        self.rawBytes = Array(rawBytes)
    }

    /// Parses any form the gateway accepts: base64url without padding (the wire form), padded
    /// standard base64 (Swift `device.json`), or an SPKI PEM block (TS `device.json`).
    /// Surrounding whitespace and any number of trailing `=` are ignored.
    public init(parsing text: String) throws(IdentityFormatError) {
        let trimmed = Self.trimASCIIWhitespace(text)
        if trimmed.hasPrefix("-----BEGIN") {
            var der = [UInt8](repeating: 0, count: 256)
            var utf8 = trimmed
            // withUTF8 and withUnsafeMutableBytes rethrow untyped errors: carry a Result out.
            let n = try utf8.withUTF8 { buffer in
                der.withUnsafeMutableBytes { out in
                    Result { () throws(IdentityFormatError) -> Int in
                        try PEM.decode(UnsafeRawBufferPointer(buffer), label: .publicKey, into: out)
                    }
                }
            }.get()
            try self.init(spkiDER: der[0..<n])
            return
        }
        // Trailing `=` are dropped whatever their number, as upstream's `base64UrlDecode` (Node's
        // lenient base64) does: `normalizeDevicePublicKeyBase64Url` in `src/infra/device-identity.ts`.
        var unpadded = Substring(trimmed)
        while unpadded.last == "=" { unpadded = unpadded.dropLast() }
        guard let bytes = KeyText.decodeLenient(String(unpadded), maxBytes: 64) else { throw .base64(field: "public key") }
        try self.init(rawBytes: bytes)
    }

    /// Reads an SPKI DER structure: exactly 44 bytes with the Ed25519 prefix.
    public init(spkiDER der: some Collection<UInt8>) throws(IdentityFormatError) {
        let bytes = Array(der)
        let offset = try bytes.withUnsafeBytes { raw in
            Result { () throws(IdentityFormatError) -> Int in
                try Ed25519DER.keyOffset(raw, prefix: Ed25519DER.spkiPrefix, what: "public key (SPKI)")
            }
        }.get()
        try self.init(rawBytes: bytes[offset...])
    }

    /// Unpadded base64url (43 characters): `device.publicKey` on the wire.
    public var base64URL: String { rawBytes.withUnsafeBytes { KeyText.encode($0, variant: .urlUnpadded) } }

    /// Padded standard base64 (44 characters): Swift `device.json` `publicKey`.
    public var base64Standard: String { rawBytes.withUnsafeBytes { KeyText.encode($0, variant: .standard) } }

    /// The 44-byte SPKI DER.
    public var spkiDER: [UInt8] { Ed25519DER.spkiPrefix + rawBytes }

    /// `-----BEGIN PUBLIC KEY-----` PEM with LF line ends and a trailing LF (TS `publicKeyPem`).
    public var pem: String { spkiDER.withUnsafeBytes { PEM.encode($0, label: .publicKey) } }

    /// The deviceId: lowercase hex SHA-256 of the raw key (64 characters).
    public var deviceId: String {
        let digest = Self.sha256(rawBytes)
        return digest.withUnsafeBytes { KeyText.hex($0) }
    }

    /// The wire form.
    public var description: String { base64URL }

    /// Constant-time comparison of the key bytes.
    public static func == (lhs: DevicePublicKey, rhs: DevicePublicKey) -> Bool {
        lhs.rawBytes.withUnsafeBytes { a in rhs.rawBytes.withUnsafeBytes { b in SecretWipe.constantTimeEqual(a, b) } }
    }

    /// Hashes the key bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawBytes) }

    /// Whether `signature` is a valid Ed25519 signature by this key over `message`.
    public func isValidSignature(_ signature: DeviceSignature, for message: some Collection<UInt8>) -> Bool {
        let bytes = Array(message)
        return bytes.withUnsafeBytes { Self.verify(signature: signature.rawBytes, message: $0, publicKey: rawBytes) }
    }

    /// Whether `signature` is valid over the UTF-8 bytes of `payload`.
    public func isValidSignature(_ signature: DeviceSignature, for payload: String) -> Bool {
        isValidSignature(signature, for: Array(payload.utf8))
    }

    static func trimASCIIWhitespace(_ text: String) -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var scalars = Substring(text).unicodeScalars[...]
        while let first = scalars.first, isSpace(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, isSpace(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}

/// A 64-byte Ed25519 signature.
public struct DeviceSignature: Sendable, Equatable, CustomStringConvertible {
    /// Ed25519 signatures are 64 bytes.
    public static let byteCount = 64

    /// The 64 signature bytes.
    public let rawBytes: [UInt8]

    /// Wraps exactly 64 raw bytes.
    public init(rawBytes: some Collection<UInt8>) throws(IdentityFormatError) {
        guard rawBytes.count == Self.byteCount else {
            throw .length(field: "signature", expected: Self.byteCount, actual: rawBytes.count)
        }
        self.rawBytes = Array(rawBytes)
    }

    /// Wraps bytes libsodium just wrote (64 by construction).
    init(unchecked rawBytes: [UInt8]) {
        precondition(rawBytes.count == Self.byteCount)
        self.rawBytes = rawBytes
    }

    /// Parses base64url (the wire form, 86 characters) or standard base64 (88, padded), as
    /// gateways accept both. Surrounding whitespace is ignored.
    public init(parsing text: String) throws(IdentityFormatError) {
        guard let bytes = KeyText.decodeLenient(DevicePublicKey.trimASCIIWhitespace(text), maxBytes: 96) else {
            throw .base64(field: "signature")
        }
        try self.init(rawBytes: bytes)
    }

    /// Unpadded base64url (86 characters): `device.signature` on the wire.
    public var base64URL: String { rawBytes.withUnsafeBytes { KeyText.encode($0, variant: .urlUnpadded) } }

    /// Padded standard base64 (88 characters).
    public var base64Standard: String { rawBytes.withUnsafeBytes { KeyText.encode($0, variant: .standard) } }

    /// The wire form.
    public var description: String { base64URL }
}
