import ClawpairIdentity
import Foundation
import Testing

/// `vectors.json` → `signatures`: payload text, deterministic signatures, token selection and
/// the worked connect example.
@Suite struct SignatureVectorTests {
    static func identity() throws -> DeviceIdentity {
        let v = try #require(try Vectors.identity().vectors.first)
        return try DeviceIdentity(seed: hexBytes(v.seedHex), createdAtMs: v.tsDeviceJson.createdAtMs)
    }

    @Test func payloadsFromFields() throws {
        let identity = try Self.identity()
        let group = try Vectors.signatures()
        var previousFields: SignatureGroup.Fields?
        for v in group.vectors {
            // "v2 operator, same inputs" reuses the fields of the vector before it.
            guard let fields = v.fields ?? previousFields else {
                Issue.record("\(v.name): no fields")
                continue
            }
            previousFields = fields
            let version: ConnectPayloadVersion = v.payload.hasPrefix("v3|") ? .v3 : .v2
            let payload = ConnectPayload(version: version, deviceId: fields.deviceId ?? identity.deviceId,
                                         clientId: fields.clientId, clientMode: fields.clientMode, role: fields.role,
                                         scopes: fields.scopes, signedAtMs: fields.signedAtMs, token: fields.token,
                                         nonce: fields.nonce, platform: fields.platform, deviceFamily: fields.deviceFamily)
            #expect(payload.text == v.payload, "\(v.name)")
            let parsed = try #require(ConnectPayload(parsing: v.payload), "\(v.name)")
            #expect(parsed.text == v.payload, "\(v.name): parse → text is a fixed point")
            #expect(parsed.scopes == fields.scopes, "\(v.name)")
        }
    }

    @Test func signaturesAreDeterministicAndVerify() throws {
        let identity = try Self.identity()
        for v in try Vectors.signatures().vectors {
            let signature = try identity.sign(v.payload)
            #expect(signature.base64URL == v.signatureBase64Url, "\(v.name)")
            if let std = v.signatureBase64Std { #expect(signature.base64Standard == std, "\(v.name)") }
            for text in [v.signatureBase64Url, v.signatureBase64Std].compactMap({ $0 }) {
                let parsed = try DeviceSignature(parsing: text)
                #expect(identity.publicKey.isValidSignature(parsed, for: v.payload), "\(v.name): \(text)")
                #expect(!identity.publicKey.isValidSignature(parsed, for: v.payload + " "), "\(v.name)")
            }
        }
    }

    @Test func tokenSelectionOrder() throws {
        for (i, v) in try Vectors.signatures().tokenSelection.enumerated() {
            let auth = ConnectAuth(token: v.auth.token, deviceToken: v.auth.deviceToken,
                                   bootstrapToken: v.auth.bootstrapToken, password: v.auth.password)
            #expect(auth.signedToken == v.signedToken, "tokenSelection[\(i)]")
        }
    }

    @Test func connectExampleDeviceObject() throws {
        let identity = try Self.identity()
        let example = try Vectors.signatures().connectExample
        let params = example.request.params
        let auth = ConnectAuth(token: params.auth.token, deviceToken: params.auth.deviceToken,
                               bootstrapToken: params.auth.bootstrapToken, password: params.auth.password)
        let payload = ConnectPayload(version: .v3, deviceId: identity.deviceId, clientId: params.client.id,
                                     clientMode: params.client.mode, role: params.role, scopes: params.scopes,
                                     signedAtMs: example.challenge.payload.ts, token: auth.signedToken,
                                     nonce: example.challenge.payload.nonce, platform: params.client.platform,
                                     deviceFamily: params.client.deviceFamily)
        let signed = try identity.signConnect(payload)
        let device = signed.deviceJSON
        #expect(device["id"]?.stringValue == params.device.id)
        #expect(device["publicKey"]?.stringValue == params.device.publicKey)
        #expect(device["signature"]?.stringValue == params.device.signature)
        #expect(device["signedAt"]?.int64Value == params.device.signedAt)
        #expect(device["nonce"]?.stringValue == params.device.nonce)
        #expect(device.compact().hasPrefix(#"{"id":"#))
    }

    @Test func metadataNormalization() {
        #expect(ConnectPayload.normalizeMetadata("  iOS 18.4.0 \n") == "ios 18.4.0")
        #expect(ConnectPayload.normalizeMetadata(nil) == "")
        // ASCII only: non-ASCII letters keep their case; JS trim removes NBSP and U+3000, not U+0085.
        #expect(ConnectPayload.normalizeMetadata("\u{00A0}ÄPPLE Ω\u{3000}") == "Äpple Ω")
        #expect(ConnectPayload.normalizeMetadata("\u{0085}X") == "\u{0085}x")
        #expect(ConnectPayload.normalizeScopes([" operator.read", "operator.read", "", "operator.write "])
                == ["operator.read", "operator.write"])
    }

    @Test func payloadParsingRefusesOtherShapes() {
        #expect(ConnectPayload(parsing: "v1|a|b|c|d||1|t") == nil)
        #expect(ConnectPayload(parsing: "v2|a|b|c|d||1|t|n|extra") == nil)
        #expect(ConnectPayload(parsing: "v2|a|b|c|d||01|t|n") == nil)
        #expect(ConnectPayload(parsing: "hello") == nil)
    }
}
