internal import CSodium

// libsodium behind `DeviceIdentity`: key generation, seed expansion and signing.

extension DeviceIdentity {
    /// `crypto_sign_keypair` straight into guarded memory (the seed is randombytes_buf output).
    static func makeRandomSecretKey() throws(IdentityError) -> SecureBytes {
        let secretKey = try SecureBytes(capacity: crypto_sign_secretkeybytes())
        var publicKey = [UInt8](repeating: 0, count: crypto_sign_publickeybytes())
        let status = secretKey.withUnsafeMutableBytes { sk in
            crypto_sign_keypair(&publicKey, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else { throw .crypto("crypto_sign_keypair") }
        secretKey.count = crypto_sign_secretkeybytes()
        return secretKey
    }

    /// `crypto_sign_seed_keypair` from a 32-byte seed in guarded memory.
    static func makeSecretKey(seed: SecureBytes) throws(IdentityError) -> SecureBytes {
        guard seed.count == crypto_sign_seedbytes() else {
            throw .invalid(what: "seed", .length(field: "seed", expected: crypto_sign_seedbytes(), actual: seed.count))
        }
        let secretKey = try SecureBytes(capacity: crypto_sign_secretkeybytes())
        var publicKey = [UInt8](repeating: 0, count: crypto_sign_publickeybytes())
        let status = secretKey.withUnsafeMutableBytes { sk in
            seed.withUnsafeBytes { s in
                crypto_sign_seed_keypair(&publicKey, sk.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                         s.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw .crypto("crypto_sign_seed_keypair") }
        secretKey.count = crypto_sign_secretkeybytes()
        return secretKey
    }

    /// `crypto_sign_detached` with the stored secret key.
    func signDetached(_ message: UnsafeRawBufferPointer) throws(IdentityError) -> [UInt8] {
        var length: UInt64 = 0
        var status: Int32 = -1
        let one: UInt8 = 0  // a valid pointer even for an empty message
        let signature = [UInt8](unsafeUninitializedCapacity: crypto_sign_bytes()) { out, count in
            withUnsafePointer(to: one) { fallback in
                let m = message.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? fallback
                status = secretKey.withUnsafeBytes { sk in
                    crypto_sign_detached(out.baseAddress!, &length, m, UInt64(message.count),
                                         sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            count = crypto_sign_bytes()
        }
        guard status == 0, length == UInt64(crypto_sign_bytes()) else { throw .crypto("crypto_sign_detached") }
        return signature
    }
}
