import ClawpairCore
@testable import ClawpairGateway
import ClawpairIdentity
import ClawpairSetupCode
import Testing

/// A minted setup code checked before it is shown, its expiry and wait, `openclaw qr --json`'s
/// object and the human lines; a setup status as JSON.
@Suite struct MintedSetupCodeTests {
    static let now: Int64 = 1_700_000_000_000

    static func code(url: String = "wss://gw.example.com") throws -> String {
        try SetupCode.make(urls: [url], bootstrapToken: "tok", expiresAtMs: now + 600_000, defaultScheme: .wss).0
    }

    static func result(_ members: [(String, JSONValue)]) throws -> SetupCodeResult {
        try SetupCodeResult(json: .object(members))
    }

    @Test("a code that does not decode is the gateway breaking the protocol, not something to show")
    func undecodable() throws {
        let result = try Self.result([("setupCode", "not a code")])
        let expected = try #require(throws: SetupCodeError.self) { try SetupCode.parse("not a code") }
        #expect(throws: GatewayError.protocolViolation("the gateway's setup code does not decode: \(expected.message)")) {
            try MintedSetupCode(result, nowMs: Self.now)
        }
    }

    @Test("the expiry: the gateway's, else 10 minutes from now; the wait until then, clamped to 0 ... 1 hour")
    func expiry() throws {
        let code = try Self.code()
        let given = try MintedSetupCode(Self.result([("setupCode", .string(code)), ("expiresAtMs", .int(Self.now + 90_000))]), nowMs: Self.now)
        #expect(given.expiresAtMs == Self.now + 90_000 && given.waitMs(nowMs: Self.now) == 90_000)
        #expect(given.waitMs(nowMs: Self.now + 100_000) == 0)
        let absent = try MintedSetupCode(Self.result([("setupCode", .string(code))]), nowMs: Self.now)
        #expect(absent.expiresAtMs == Self.now + SetupCode.bootstrapTokenTTLMs)
        let far = try MintedSetupCode(Self.result([("setupCode", .string(code)), ("expiresAtMs", .int(.max))]), nowMs: Self.now)
        #expect(far.waitMs(nowMs: Self.now) == MintedSetupCode.maxWaitMs)
        #expect(far.decoded.bootstrapToken == "tok")
    }

    @Test("--json: the members openclaw qr prints, a single route's list and a false downgrade left out; setupStatus appended")
    func json() throws {
        let code = try Self.code()
        let minted = try MintedSetupCode(Self.result([
            ("setupCode", .string(code)), ("qrDataUrl", "data:image/png;base64,AAAA"), ("gatewayUrl", "wss://gw.example.com"),
            ("gatewayUrls", .array(["wss://gw.example.com"])), ("auth", "token"), ("urlSource", "gateway.remote.url"),
            ("access", "full"), ("accessDowngraded", false), ("setupId", .null), ("expiresAtMs", .int(Self.now + 1)),
        ]), nowMs: Self.now)
        #expect(minted.json() == .object([
            ("setupCode", .string(code)), ("gatewayUrl", "wss://gw.example.com"), ("auth", "token"),
            ("urlSource", "gateway.remote.url"), ("access", "full"), ("expiresAtMs", .int(Self.now + 1)),
        ]))
        let routes = try MintedSetupCode(Self.result([
            ("setupCode", .string(code)), ("gatewayUrls", .array(["wss://a", "wss://b"])), ("accessDowngraded", true), ("setupId", "s1"),
        ]), nowMs: Self.now)
        #expect(routes.json() == .object([
            ("setupCode", .string(code)), ("gatewayUrls", .array(["wss://a", "wss://b"])), ("accessDowngraded", true),
            ("setupId", "s1"), ("expiresAtMs", .int(Self.now + 600_000)),
        ]))
        #expect(routes.json(setupStatus: .outstanding)["setupStatus"] == .object([("used", false)]))
    }

    @Test("the human lines: every field sanitized, - when absent, fallbacks, the downgrade painted, minutes rounded")
    func textLines() throws {
        let code = try Self.code()
        let minted = try MintedSetupCode(Self.result([
            ("setupCode", .string(code)), ("gatewayUrls", .array(["wss://a.example", "wss://b.example"])),
            ("access", "limited"), ("accessDowngraded", true), ("urlSource", "cli\u{1B}[2J"), ("expiresAtMs", .int(Self.now + 569_999)),
        ]), nowMs: Self.now)
        let iso = try #require(WallClock.iso8601(ms: Self.now + 569_999))
        #expect(minted.textLines(nowMs: Self.now, paint: { "<\($0)>\($1)" }) == [
            "Setup code: \(code)", "Gateway: wss://gw.example.com", "Fallback: wss://b.example", "Auth: -", "Access: limited",
            "<warning>" + MintedSetupCode.downgradeWarning, "Source: \(TerminalText.sanitize("cli\u{1B}[2J"))", "Expires: in 9 min (\(iso))",
        ])
        #expect(minted.textLines(nowMs: Self.now + 600_000).last == "Expires: in 0 min (\(iso))")
    }

    @Test("a setup status: its completion and JSON")
    func setupStatus() throws {
        let completion = try SetupCompletion(json: .object([("setupId", "s1"), ("deviceId", "d1"), ("access", "node")]))
        #expect(SetupStatus.outstanding.completion == nil && SetupStatus.outstanding.json == .object([("used", false)]))
        #expect(SetupStatus.completed(completion).completion == completion)
        #expect(SetupStatus.completed(completion).json == .object([("used", true), ("uncertain", false), ("completion", completion.json)]))
        #expect(SetupStatus.deliveryUncertain(completion).json
                == .object([("used", true), ("uncertain", true), ("completion", completion.json)]))
    }

    @Test("a setup status for people: who used the code, sanitized, - when absent; uncertain delivery said")
    func usedText() throws {
        let phone = try SetupCompletion(json: .object([("deviceId", .string(String(repeating: "ab", count: 32))),
                                                       ("deviceName", "Phone\u{1B}"), ("access", "node")]))
        #expect(SetupStatus.completed(phone).usedText
                == "The code was used by \(TerminalText.sanitize("Phone\u{1B}")) (abababababab…), access node.")
        let bare = try SetupCompletion(json: .object([("deviceId", "short-id")]))
        #expect(SetupStatus.deliveryUncertain(bare).usedText
                == "The code was used by - (short-id), access -; the gateway is not sure it received its credentials.")
        #expect(SetupStatus.completed(try SetupCompletion(json: .object([]))).usedText == "The code was used by - (-), access -.")
        #expect(SetupStatus.outstanding.usedText == nil)
    }

    @Test("mint on a session: the reached URL unless loopback, --public-url or the remote URL; the code checked")
    func mintOnASession() throws {
        let code = try Self.code()
        let connection = DeviceApprovalTests.ScriptedConnection { method, _, _ throws(GatewayError) in
            #expect(method == "device.pair.setupCode")
            return .object([("setupCode", .string(code)), ("expiresAtMs", .int(Self.now + 5))])
        }
        let loopback = try DeviceApprovalTests.session(connection)
        let minted = try loopback.mintSetupCode(bootstrapProfile: "node", publicURL: nil, preferRemoteURL: false, nowMs: Self.now)
        #expect(minted.expiresAtMs == Self.now + 5 && minted.result.setupCode == code)
        #expect(connection.sent[0].params == .object([("includeQr", false), ("bootstrapProfile", "node")]))
        _ = try loopback.mintSetupCode(bootstrapProfile: nil, publicURL: "wss://gw.example.com", preferRemoteURL: false,
                                       nowMs: Self.now)
        #expect(connection.sent[1].params == .object([("includeQr", false), ("publicUrl", "wss://gw.example.com")]))

        let endpoint = try GatewayEndpoint(parsing: "wss://gw.tail1234.ts.net")
        let plan = OperatorPlan(target: OperatorTarget(endpoint: endpoint, record: nil, source: .explicitURL),
                                credential: OperatorCredential(auth: ConnectAuth(), source: .none))
        let remote = OperatorSession(connection: connection, hello: HelloOK(["type": "hello-ok", "protocol": 4])!, plan: plan,
                                     timeout: .seconds(1))
        _ = try remote.mintSetupCode(bootstrapProfile: nil, publicURL: nil, preferRemoteURL: false, nowMs: Self.now)
        #expect(connection.sent[2].params == .object([("includeQr", false), ("publicUrl", "wss://gw.tail1234.ts.net:443")]))
        _ = try remote.mintSetupCode(bootstrapProfile: nil, publicURL: nil, preferRemoteURL: true, nowMs: Self.now)
        #expect(connection.sent[3].params == .object([("includeQr", false), ("preferRemoteUrl", true)]))
    }
}
