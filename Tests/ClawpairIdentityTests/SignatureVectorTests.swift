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

/// The length-prefixed v4 payload (`src/gateway/device-auth.test.ts`, "binds a trusted broker
/// profile in canonical v4 payloads" and "keeps delimiter placement and scope boundaries distinct").
@Suite struct PayloadV4Tests {
    static let upstreamVector =
        "v4|5:dev-3|14:gateway-client|7:backend|8:operator|1:2|13:operator.read|14:operator.write|13:1700000000002|7:tok-456"
        + "|9:nonce-ghi|5:linux|0:|15:profile-human-1"

    static func upstreamFields() -> ConnectPayload {
        ConnectPayload(version: .v4, deviceId: "dev-3", clientId: "gateway-client", clientMode: "backend", role: "operator",
                       scopes: ["operator.read", "operator.write"], signedAtMs: 1_700_000_000_002, token: "tok-456",
                       nonce: "nonce-ghi", platform: "Linux", trustedBrokerProfileId: "profile-human-1")
    }

    @Test func upstreamVector() throws {
        let payload = Self.upstreamFields()
        #expect(payload.isEncodable)
        #expect(payload.text == Self.upstreamVector)
        let parsed = try #require(ConnectPayload(parsing: Self.upstreamVector))
        #expect(parsed.text == Self.upstreamVector, "parse → text is a fixed point")
        #expect(parsed.scopes == ["operator.read", "operator.write"] && parsed.trustedBrokerProfileId == "profile-human-1")
        #expect(parsed.platform == "linux" && parsed.deviceFamily == "")
    }

    @Test func delimitersInsideFieldsCannotShiftOthers() throws {
        func payload(scopes: [String], token: String, nonce: String) -> ConnectPayload {
            ConnectPayload(version: .v4, deviceId: "device", clientId: "gateway-client", clientMode: "backend", role: "operator",
                           scopes: scopes, signedAtMs: 1_700_000_000_002, token: token, nonce: nonce, platform: "linux",
                           trustedBrokerProfileId: "profile-human-1")
        }
        let a = payload(scopes: ["scope"], token: "tok|nonce", nonce: "x")
        let b = payload(scopes: ["scope"], token: "tok", nonce: "nonce|x")
        #expect(a.text != b.text)
        let c = payload(scopes: ["scope,a", "scope-b"], token: "token", nonce: "nonce")
        let d = payload(scopes: ["scope", "a,scope-b"], token: "token", nonce: "nonce")
        #expect(c.text != d.text)
        for p in [a, b, c, d] {
            #expect(ConnectPayload(parsing: p.text)?.text == p.text, "\(p.text)")
        }
        #expect(ConnectPayload(parsing: a.text)?.token == "tok|nonce")
        #expect(ConnectPayload(parsing: d.text)?.scopes == ["scope", "a,scope-b"])
    }

    @Test func malformedV4TextIsNotAPayload() {
        let bad = [
            "v4", "v4|", "v4|5:dev-3", Self.upstreamVector + "|0:", Self.upstreamVector + "x",
            Self.upstreamVector.replacingOccurrences(of: "|5:dev-3", with: "|05:dev-3"),
            Self.upstreamVector.replacingOccurrences(of: "|5:dev-3", with: "|6:dev-3"),
            Self.upstreamVector.replacingOccurrences(of: "|5:dev-3", with: "|99999999999999999999:dev-3"),
            Self.upstreamVector.replacingOccurrences(of: "1:2|", with: "1:3|"),
            Self.upstreamVector.replacingOccurrences(of: "1:2|", with: "3:999|"),
            Self.upstreamVector.replacingOccurrences(of: "dev-3", with: "dév-3"),
            "v4|5:dev-3|14:gateway-client|7:backend|8:operator|1:2",
        ]
        for text in bad { #expect(ConnectPayload(parsing: text) == nil, "\(text)") }
    }

    @Test func signsAndVerifiesV4() throws {
        let identity = try SignatureVectorTests.identity()
        var payload = Self.upstreamFields()
        payload.deviceId = identity.deviceId
        let signed = try identity.signConnect(payload)
        let check = identity.publicKey.check(signatureText: signed.signature.base64URL, payload: Array(payload.text.utf8))
        #expect(check.valid && check.connect?.version == .v4 && check.payloadDeviceIdMatches == true, "\(check)")
        // The same signature does not verify as the v3 payload of the same fields.
        var v3 = payload
        v3.version = .v3
        #expect(!identity.publicKey.check(signatureText: signed.signature.base64URL, payload: Array(v3.text.utf8)).valid)
        // Non-ASCII v4 fields are refused, not guessed at.
        var accented = payload
        accented.trustedBrokerProfileId = "profil-é"
        #expect(!accented.isEncodable)
        #expect(throws: IdentityError.self) { try identity.signConnect(accented) }
    }
}
