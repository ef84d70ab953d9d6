internal import CSodium

// libsodium behind `DevicePublicKey`: SHA-256 and Ed25519 verification.

extension DevicePublicKey {
    /// `crypto_hash_sha256` (it cannot fail).
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        _ = SodiumLibrary.ready
        var digest = [UInt8](repeating: 0, count: crypto_hash_sha256_bytes())
        let status = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        precondition(status == 0, "crypto_hash_sha256 cannot fail")
        return digest
    }

    /// `crypto_sign_verify_detached`: 0 means valid. libsodium also refuses small-order and
    /// non-canonical keys and signatures.
    static func verify(signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard SodiumLibrary.ready, signature.count == crypto_sign_bytes(), publicKey.count == crypto_sign_publickeybytes() else {
            return false
        }
        let one: UInt8 = 0  // a valid pointer even for an empty message
        return withUnsafePointer(to: one) { fallback in
            let m = message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? fallback
            return crypto_sign_verify_detached(signature, m, UInt64(message.count), publicKey) == 0
        }
    }
}
