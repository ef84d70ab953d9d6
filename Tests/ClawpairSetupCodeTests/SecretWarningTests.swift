import ClawpairCore
import ClawpairSetupCode
import Testing

/// What a found setup code's finder is told: it is a secret until it expires; the expired error.
@Suite struct SecretWarningTests {
    static let expiresAtMs: Int64 = 1_700_000_000_000

    func decoded(expiresAtMs: Int64?) throws -> DecodedSetup {
        if let expiresAtMs {
            let (code, _) = try SetupCode.make(urls: ["wss://gateway.example.com"], bootstrapToken: "tok",
                                               expiresAtMs: expiresAtMs, defaultScheme: .wss)
            return try SetupCode.parse(code)
        }
        return try SetupCode.parse(#"{"url":"wss://gateway.example.com","bootstrapToken":"tok"}"#)
    }

    @Test("before, at and after the expiry; without one")
    func warning() throws {
        let setup = try decoded(expiresAtMs: Self.expiresAtMs)
        let secret = "this is an OpenClaw setup code, a secret: whoever has it can pair with the gateway"
        #expect(setup.secretWarning(nowMs: Self.expiresAtMs - 540_000) == secret + " until it expires in 9m")
        #expect(setup.secretWarning(nowMs: Self.expiresAtMs) == secret + " (it expired now)")
        #expect(setup.secretWarning(nowMs: Self.expiresAtMs + 120_000) == secret + " (it expired 2m ago)")
        #expect(try decoded(expiresAtMs: nil).secretWarning(nowMs: Self.expiresAtMs) == secret)
    }

    @Test("expiryFailure is the error checkNotExpired throws, nil while valid or without expiry")
    func failure() throws {
        let setup = try decoded(expiresAtMs: Self.expiresAtMs)
        #expect(setup.expiryFailure(nowMs: Self.expiresAtMs - 1) == nil)
        let now = Self.expiresAtMs + 5
        #expect(setup.expiryFailure(nowMs: now) == .expired(expiresAtMs: Self.expiresAtMs, nowMs: now))
        #expect(throws: SetupCodeError.expired(expiresAtMs: Self.expiresAtMs, nowMs: now)) { try setup.checkNotExpired(nowMs: now) }
        #expect(try decoded(expiresAtMs: nil).expiryFailure(nowMs: .max) == nil)
    }
}
