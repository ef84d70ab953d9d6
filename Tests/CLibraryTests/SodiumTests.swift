import CSodium
import Testing

/// libsodium: initialisation and Ed25519 against RFC 8032 §7.1 test 1 (empty message).
@Suite("libsodium")
struct SodiumTests {
    static let seed = hexBytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    static let publicKey = hexBytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    static let signature = hexBytes(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")

    @Test("sodium_init, seed keypair, detached sign and verify (RFC 8032 test 1)")
    func ed25519SeedKeypairAndSignature() throws {
        #expect(sodium_init() >= 0, "sodium_init failed")
        #expect(crypto_sign_seedbytes() == 32)
        #expect(crypto_sign_publickeybytes() == 32)
        #expect(crypto_sign_secretkeybytes() == 64)
        #expect(crypto_sign_bytes() == 64)

        var publicKey = [UInt8](repeating: 0, count: crypto_sign_publickeybytes())
        var secretKey = [UInt8](repeating: 0, count: crypto_sign_secretkeybytes())
        #expect(crypto_sign_seed_keypair(&publicKey, &secretKey, Self.seed) == 0)
        #expect(publicKey == Self.publicKey)

        // The message is empty: one byte of storage so the pointer is valid, length 0.
        let message: [UInt8] = [0]
        var signature = [UInt8](repeating: 0, count: crypto_sign_bytes())
        var signatureLength: UInt64 = 0
        #expect(crypto_sign_detached(&signature, &signatureLength, message, 0, secretKey) == 0)
        #expect(signatureLength == 64)
        #expect(signature == Self.signature)

        #expect(crypto_sign_verify_detached(signature, message, 0, publicKey) == 0)
        var tampered = signature
        tampered[0] ^= 1
        #expect(crypto_sign_verify_detached(tampered, message, 0, publicKey) != 0)
        sodium_memzero(&secretKey, secretKey.count)
        #expect(secretKey.allSatisfy { $0 == 0 })
    }
}

/// Decodes lowercase or uppercase hex; traps on malformed literals (test constants only).
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count % 2 == 0, "odd-length hex literal")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

/// Lowercase hex of `bytes`.
func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}
