import ClawpairIdentity
import ClawpairTestSupport
import Foundation
import Testing

/// Debian's python3 with python3-cryptography (OpenSSL underneath): the independent implementation.
enum PythonCryptography {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let available: Bool = (try? run("import cryptography", stdin: "")) != nil

    /// Runs `script` with Debian's python3; throws with its stderr on failure.
    static func run(_ script: String, stdin: String) throws -> String {
        let result = try ClawpairBinary.runProgram(Harness.python3, ["-c", script], stdin: stdin, timeoutSeconds: 120)
        guard result.status == 0 else { throw Failure(description: "python3 failed: \(result.stderr)") }
        return result.stdout
    }
}

/// An independent Ed25519 implementation verifies our signatures and parses our PEM keys; we
/// verify its signatures and read its PEM keys; over random payloads.
@Suite(.enabled(if: PythonCryptography.available || Harness.isCI,
                "needs /usr/bin/python3 with python3-cryptography (scripts/install-deps); with CI=true this never skips"))
struct CrossCheckTests {
    /// Random payload text: connect-shaped and arbitrary Unicode (including `|`, empty, long).
    static func randomPayloads(_ count: Int) -> [String] {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ019|,.- _\u{e9}\u{4e2d}\u{1F600}\n\t\"\\")
        return (0..<count).map { i in
            if i == 0 { return "" }
            if i % 3 == 0 {
                return "v2|\(UUID().uuidString.lowercased())|cli|cli|operator|operator.read|"
                    + "\(Int64.random(in: 0...(Int64(1) << 42), using: &rng))||\(UUID().uuidString)"
            }
            let length = Int.random(in: 1...(i % 7 == 0 ? 3000 : 200), using: &rng)
            return String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
        }
    }

    static let verifyScript = #"""
        import base64, json, sys
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        def unb64url(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        out = []
        for case in json.load(sys.stdin):
            priv = serialization.load_pem_private_key(case["privateKeyPem"].encode(), password=None)
            raw = priv.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            pub = serialization.load_pem_public_key(case["publicKeyPem"].encode())
            same = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw) == raw
            key = Ed25519PublicKey.from_public_bytes(unb64url(case["publicKey"]))
            ok = []
            for payload, sig in zip(case["payloads"], case["signatures"]):
                try:
                    key.verify(unb64url(sig), payload.encode("utf-8")); ok.append(True)
                except Exception:
                    ok.append(False)
            mine = [base64.urlsafe_b64encode(priv.sign(p.encode("utf-8"))).decode().rstrip("=") for p in case["payloads"]]
            out.append({"rawPublicKey": base64.urlsafe_b64encode(raw).decode().rstrip("="), "pemMatches": same,
                        "verified": ok, "opensslSignatures": mine})
        json.dump(out, sys.stdout)
        """#

    @Test func pythonVerifiesOurSignaturesAndReadsOurPEM() throws {
        var cases: [[String: Any]] = []
        var identities: [DeviceIdentity] = []
        for _ in 0..<4 {
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            identities.append(identity)
            let payloads = Self.randomPayloads(60)
            let signatures = try payloads.map { try identity.sign($0).base64URL }
            let pem = try IdentityFile.withEncoded(identity, form: .pem) { String(decoding: $0, as: UTF8.self) }
            cases.append(["privateKeyPem": pem, "publicKeyPem": identity.publicKey.pem, "publicKey": identity.publicKey.base64URL,
                          "payloads": payloads, "signatures": signatures])
        }
        let input = String(decoding: try JSONSerialization.data(withJSONObject: cases), as: UTF8.self)
        let output = try PythonCryptography.run(Self.verifyScript, stdin: input)
        let results = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(results.count == cases.count)
        for (i, result) in results.enumerated() {
            #expect(result["rawPublicKey"] as? String == identities[i].publicKey.base64URL, "case \(i): PKCS#8 PEM read by OpenSSL")
            #expect(result["pemMatches"] as? Bool == true, "case \(i): SPKI PEM read by OpenSSL")
            let verified = try #require(result["verified"] as? [Bool])
            #expect(verified.count == 60)
            #expect(verified.allSatisfy { $0 }, "case \(i): OpenSSL rejected \(verified.filter { !$0 }.count) signatures")
            // Ed25519 is deterministic: OpenSSL signing with our key gives our bytes.
            #expect(result["opensslSignatures"] as? [String] == cases[i]["signatures"] as? [String], "case \(i)")
        }
    }

    static let signScript = #"""
        import base64, json, sys
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        def b64url(b): return base64.urlsafe_b64encode(b).decode().rstrip("=")
        out = []
        for payloads in json.load(sys.stdin):
            key = Ed25519PrivateKey.generate()
            pub = key.public_key()
            out.append({
                "publicKey": b64url(pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)),
                "publicKeyPem": pub.public_bytes(serialization.Encoding.PEM,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo).decode(),
                "privateKeyPem": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()).decode(),
                "signatures": [b64url(key.sign(p.encode("utf-8"))) for p in payloads],
                "signaturesStd": [base64.b64encode(key.sign(p.encode("utf-8"))).decode() for p in payloads]})
        json.dump(out, sys.stdout)
        """#

    @Test func weVerifyPythonSignaturesAndReadItsPEM() throws {
        let batches = (0..<4).map { _ in Self.randomPayloads(60) }
        let input = String(decoding: try JSONSerialization.data(withJSONObject: batches), as: UTF8.self)
        let output = try PythonCryptography.run(Self.signScript, stdin: input)
        let results = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        #expect(results.count == batches.count)
        for (i, result) in results.enumerated() {
            let key = try DevicePublicKey(parsing: try #require(result["publicKey"] as? String))
            #expect(try DevicePublicKey(parsing: try #require(result["publicKeyPem"] as? String)) == key, "batch \(i)")
            let pem = try #require(result["privateKeyPem"] as? String)
            let imported = try IdentityFile.decode(Array(pem.utf8), defaultCreatedAtMs: 0)
            #expect(imported.identity.publicKey == key, "batch \(i): PKCS#8 from OpenSSL")
            let signatures = try #require(result["signatures"] as? [String])
            let standard = try #require(result["signaturesStd"] as? [String])
            for (j, payload) in batches[i].enumerated() {
                let signature = try DeviceSignature(parsing: signatures[j])
                #expect(key.isValidSignature(signature, for: payload), "batch \(i) payload \(j)")
                #expect(key.isValidSignature(try DeviceSignature(parsing: standard[j]), for: payload), "batch \(i) payload \(j) (std)")
                #expect(!key.isValidSignature(signature, for: payload + "x"), "batch \(i) payload \(j) tampered")
                #expect(try imported.identity.sign(payload) == signature, "batch \(i) payload \(j): same bytes as OpenSSL")
            }
        }
    }
}
