import ClawpairIdentity
import Testing

/// `DevicePublicKey.check`: what `clawpair identity verify` reports.
@Suite struct SignatureCheckTests {
    @Test func validInvalidUndecodableAndForeignDevice() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let key = identity.publicKey
        let payload = ConnectPayload(deviceId: identity.deviceId, clientId: "cli", clientMode: "cli", role: "operator",
                                     scopes: [], signedAtMs: 5, token: "", nonce: "n1")
        let signature = try identity.signConnect(payload, selfCheck: true).signature.base64URL

        let good = key.check(signatureText: signature, payload: Array(payload.text.utf8))
        #expect(good.valid && good.deviceId == identity.deviceId && good.connect == payload)
        #expect(good.payloadDeviceIdMatches == true && good.reason == nil)

        let plain = try identity.sign("hello").base64URL
        let other = key.check(signatureText: plain, payload: Array("hello".utf8))
        #expect(other.valid && other.connect == nil && other.payloadDeviceIdMatches == nil)

        let wrong = key.check(signatureText: plain, payload: Array("hellO".utf8))
        #expect(!wrong.valid && wrong.reason == "the signature is not valid for this payload and public key")

        let garbage = key.check(signatureText: "!!", payload: Array("hello".utf8))
        #expect(!garbage.valid && garbage.reason?.hasPrefix("the signature cannot be decoded: ") == true)

        // A connect payload naming another device, signed by this key: refused like a gateway does.
        var foreign = payload
        foreign.deviceId = String(repeating: "0", count: 64)
        let signedForeign = try identity.sign(foreign.text).base64URL
        let mismatch = key.check(signatureText: signedForeign, payload: Array(foreign.text.utf8))
        #expect(!mismatch.valid && mismatch.payloadDeviceIdMatches == false)
        #expect(mismatch.reason?.hasSuffix("(gateways refuse this: DEVICE_AUTH_DEVICE_ID_MISMATCH)") == true)
    }
}
