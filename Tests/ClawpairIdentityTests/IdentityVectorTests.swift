import ClawpairIdentity
import Foundation
import Testing

/// `vectors.json` → `identity`: keys, deviceId, every encoding and both file forms.
@Suite struct IdentityVectorTests {
    @Test func derPrefixesMatchSpec() throws {
        let group = try Vectors.identity()
        let vector = try #require(group.vectors.first)
        let key = try DevicePublicKey(rawBytes: hexBytes(vector.publicKeyHex))
        #expect(hexString(key.spkiDER).hasPrefix(group.derPrefixes.spkiEd25519Hex))
        #expect(vector.pkcs8DerHex.hasPrefix(group.derPrefixes.pkcs8Ed25519Hex))
    }

    @Test func seedDerivesEverything() throws {
        for v in try Vectors.identity().vectors {
            let identity = try DeviceIdentity(seed: hexBytes(v.seedHex), createdAtMs: v.tsDeviceJson.createdAtMs)
            #expect(hexString(identity.publicKey.rawBytes) == v.publicKeyHex, "\(v.name)")
            #expect(identity.publicKey.base64URL == v.publicKeyBase64Url, "\(v.name)")
            #expect(identity.publicKey.base64Standard == v.publicKeyBase64Std, "\(v.name)")
            #expect(identity.deviceId == v.deviceId, "\(v.name)")
            #expect(identity.publicKey.deviceId == v.deviceId, "\(v.name)")
            #expect(hexString(identity.publicKey.spkiDER) == v.spkiDerHex, "\(v.name)")
            #expect(identity.publicKey.pem == v.publicKeyPem, "\(v.name)")
        }
    }

    @Test func tsFileTextIsByteExact() throws {
        for v in try Vectors.identity().vectors {
            let identity = try DeviceIdentity(seed: hexBytes(v.seedHex), createdAtMs: v.tsDeviceJson.createdAtMs)
            let text = try IdentityFile.withEncoded(identity, form: .openclaw) { String(decoding: $0, as: UTF8.self) }
            #expect(text == v.tsDeviceJsonFileText, "\(v.name)")
            let pem = try IdentityFile.withEncoded(identity, form: .pem) { String(decoding: $0, as: UTF8.self) }
            #expect(pem == v.privateKeyPem, "\(v.name)")
        }
    }

    @Test func swiftFileMatchesVectorObject() throws {
        for v in try Vectors.identity().vectors {
            let identity = try DeviceIdentity(seed: hexBytes(v.seedHex), createdAtMs: v.swiftDeviceJson.createdAtMs)
            let text = try IdentityFile.withEncoded(identity, form: .openclawSwift) { Data($0) }
            let object = try #require(try JSONSerialization.jsonObject(with: text) as? [String: Any])
            #expect(object["deviceId"] as? String == v.swiftDeviceJson.deviceId, "\(v.name)")
            #expect(object["publicKey"] as? String == v.swiftDeviceJson.publicKey, "\(v.name)")
            #expect(object["privateKey"] as? String == v.swiftDeviceJson.privateKey, "\(v.name)")
            #expect(object["privateKey"] as? String == v.seedBase64Std, "\(v.name)")
            #expect((object["createdAtMs"] as? NSNumber)?.int64Value == v.swiftDeviceJson.createdAtMs, "\(v.name)")
        }
    }

    @Test func bothFileFormsDecode() throws {
        for v in try Vectors.identity().vectors {
            let ts = try IdentityFile.decode(Array(v.tsDeviceJsonFileText.utf8), defaultCreatedAtMs: 0)
            #expect(ts.form == .openclaw)
            #expect(ts.identity.deviceId == v.deviceId, "\(v.name)")
            #expect(ts.identity.createdAtMs == v.tsDeviceJson.createdAtMs)
            #expect(ts.deviceIdMatches)

            let swiftText = """
                {"deviceId":"\(v.swiftDeviceJson.deviceId)","publicKey":"\(v.swiftDeviceJson.publicKey)",\
                "privateKey":"\(v.swiftDeviceJson.privateKey)","createdAtMs":\(v.swiftDeviceJson.createdAtMs)}
                """
            let swift = try IdentityFile.decode(Array(swiftText.utf8), defaultCreatedAtMs: 0)
            #expect(swift.form == .openclawSwift)
            #expect(swift.identity.publicKey == ts.identity.publicKey, "\(v.name)")
            #expect(swift.identity.createdAtMs == v.swiftDeviceJson.createdAtMs)

            let pem = try IdentityFile.decode(Array(v.privateKeyPem.utf8), defaultCreatedAtMs: 42)
            #expect(pem.form == .pem)
            #expect(pem.identity.deviceId == v.deviceId)
            #expect(pem.identity.createdAtMs == 42)
        }
    }

    @Test func everyPublicKeyInputFormParsesToTheSameKey() throws {
        let group = try Vectors.identity()
        let expected = try #require(group.vectors.first).publicKeyHex
        for form in group.publicKeyInputForms.forms {
            let key = try DevicePublicKey(parsing: form)
            #expect(hexString(key.rawBytes) == expected, "form \(form.debugDescription)")
        }
        // Lenient with syntax: surrounding whitespace and CRLF PEM.
        let pem = try #require(group.publicKeyInputForms.forms.last)
        #expect(try DevicePublicKey(parsing: "  " + pem.replacingOccurrences(of: "\n", with: "\r\n") + "\n\n").rawBytes
                == hexBytes(expected))
        #expect(try DevicePublicKey(parsing: "\n" + group.publicKeyInputForms.forms[0] + "\n").rawBytes == hexBytes(expected))
    }

    /// Upstream's `base64UrlDecode` (Node's lenient base64) ignores surplus `=`, so standard base64
    /// with extra padding names the same key (`normalizeDevicePublicKeyBase64Url`, `src/infra/device-identity.ts`).
    @Test func extraPaddingIsAccepted() throws {
        let key = try DeviceIdentity.generate(createdAtMs: 0).publicKey
        for text in [key.base64Standard + "=", key.base64Standard + "===", key.base64URL + "==", key.base64URL + "="] {
            #expect(try DevicePublicKey(parsing: text) == key, "\(text)")
        }
        #expect(throws: IdentityFormatError.self) { try DevicePublicKey(parsing: "====") }
        #expect(throws: IdentityFormatError.self) { try DevicePublicKey(parsing: String(key.base64URL.dropLast()) + "==") }
    }

    @Test func exportRoundTripsThroughEveryForm() throws {
        for _ in 0..<20 {
            let identity = try DeviceIdentity.generate(createdAtMs: 1_700_000_000_123)
            for form in IdentityFileForm.allCases {
                var bytes = try IdentityFile.withEncoded(identity, form: form) { Array($0) }
                let back = try IdentityFile.decode(consuming: &bytes, name: "test", defaultCreatedAtMs: 0)
                #expect(bytes.isEmpty, "the consumed copy is wiped")
                #expect(back.identity.publicKey == identity.publicKey, "\(form)")
                #expect(back.form == form)
                if form != .pem { #expect(back.identity.createdAtMs == identity.createdAtMs, "\(form)") }
                let message = Array("round trip \(form)".utf8)
                #expect(try back.identity.sign(message) == identity.sign(message), "deterministic Ed25519, same key")
            }
        }
    }
}
