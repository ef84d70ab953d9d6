import ClawpairCore
import ClawpairSetupCode
import Testing

@Suite struct ExpiryTests {
    @Test func neitherGivenIsTheGatewayLifetime() throws {
        let expiry = try SetupCodeExpiry.parse(lifetime: nil, at: nil)
        #expect(expiry == .standard)
        #expect(expiry.expiresAtMs(nowMs: 1_000) == 1_000 + SetupCode.bootstrapTokenTTLMs)
    }

    @Test func lifetimeIsAddedToNow() throws {
        let expiry = try SetupCodeExpiry.parse(lifetime: "90s", at: nil)
        #expect(expiry == .lifetime(ms: 90_000))
        #expect(expiry.expiresAtMs(nowMs: 10) == 90_010)
        #expect(SetupCodeExpiry.lifetime(ms: 5).expiresAtMs(nowMs: Int64.max - 1) == Int64.max)
    }

    @Test func absoluteTimeIsKept() throws {
        let expiry = try SetupCodeExpiry.parse(lifetime: nil, at: "1700000000000")
        #expect(expiry == .at(ms: 1_700_000_000_000))
        #expect(expiry.expiresAtMs(nowMs: 5) == 1_700_000_000_000)
    }

    @Test func badTextIsRefusedWithTheText() {
        #expect(throws: SetupCodeExpiry.Problem.conflicting) { try SetupCodeExpiry.parse(lifetime: "10m", at: "5") }
        #expect(throws: SetupCodeExpiry.Problem.invalidLifetime("soon")) { try SetupCodeExpiry.parse(lifetime: "soon", at: nil) }
        #expect(throws: SetupCodeExpiry.Problem.invalidLifetime("0s")) { try SetupCodeExpiry.parse(lifetime: "0s", at: nil) }
        #expect(throws: SetupCodeExpiry.Problem.invalidTime("-1")) { try SetupCodeExpiry.parse(lifetime: nil, at: "-1") }
        #expect(throws: SetupCodeExpiry.Problem.invalidTime("x")) { try SetupCodeExpiry.parse(lifetime: nil, at: "x") }
    }

    @Test func pastAndPresentAreNotInTheFuture() throws {
        try SetupCodeExpiry.checkInFuture(101, nowMs: 100)
        #expect(throws: SetupCodeExpiry.Problem.notInFuture(expiresAtMs: 100)) { try SetupCodeExpiry.checkInFuture(100, nowMs: 100) }
        #expect(throws: SetupCodeExpiry.Problem.notInFuture(expiresAtMs: 5)) { try SetupCodeExpiry.checkInFuture(5, nowMs: 100) }
    }
}

@Suite struct SetupInputTests {
    @Test func aSetupCodeIsSetupInput() throws {
        let (code, _) = try SetupCode.make(urls: ["wss://gateway.example.com"], bootstrapToken: "tok",
                                           expiresAtMs: 1_700_000_000_000, defaultScheme: .wss)
        #expect(SetupCode.setupInput(in: code)?.bootstrapToken == "tok")
    }

    @Test func aBareURLOrNoiseIsNot() {
        #expect(SetupCode.setupInput(in: "wss://gateway.example.com") == nil)
        #expect(SetupCode.setupInput(in: "hello, world") == nil)
        #expect(SetupCode.setupInput(in: nil) == nil)
    }
}
