import ClawpairCore
import ClawpairSetupCode
import Testing

/// `DecodedSetup.canonicalCode`, `hasCredential` and `checkNotExpired`: what `clawpair qr render`
/// draws from a setup input, and when it refuses.
@Suite struct CanonicalCodeTests {
    static let expiry: Int64 = 1_737_264_600_000
    static let code = try! SetupCode.make(urls: ["wss://gateway.example.com"], bootstrapToken: "boot-1",
                                          expiresAtMs: expiry, defaultScheme: .wss).code

    @Test func everyFormOfAPayloadGivesTheBareCode() throws {
        let bare = try SetupCode.parse(Self.code)
        #expect(bare.canonicalCode == Self.code && bare.hasCredential)
        let prefixed = try SetupCode.parse(SetupCode.prefixed(Self.code))
        #expect(prefixed.form == .prefixedCode && prefixed.canonicalCode == Self.code)
        let pasted = try SetupCode.parse("Your code: \(Self.code) (valid 10 minutes)")
        #expect(pasted.canonicalCode == Self.code)
        // A gateway URL carries no payload and no credential.
        let url = try SetupCode.parse("wss://gateway.example.com")
        #expect(url.form == .rawURL && url.canonicalCode == nil && !url.hasCredential)
    }

    @Test func expiryIsCheckedAgainstNow() throws {
        let setup = try SetupCode.parse(Self.code)
        try setup.checkNotExpired(nowMs: Self.expiry - 1)
        #expect(throws: SetupCodeError.expired(expiresAtMs: Self.expiry, nowMs: Self.expiry)) {
            try setup.checkNotExpired(nowMs: Self.expiry)
        }
        try SetupCode.parse("wss://gateway.example.com").checkNotExpired(nowMs: .max)
    }
}
