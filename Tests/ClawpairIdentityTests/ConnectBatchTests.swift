import ClawpairCore
import ClawpairIdentity
import Testing

/// `ConnectPayload.applying(batchLine:)`: one line of `identity sign-connect --batch`.
@Suite struct ConnectBatchTests {
    static let base = ConnectPayload(deviceId: "dev-1", clientId: "cli", clientMode: "cli", role: "operator",
                                     scopes: ["operator.read"], signedAtMs: 5, token: "default-token", nonce: "n0")

    static func apply(_ line: String, to base: ConnectPayload = base) throws -> ConnectPayload {
        try base.applying(batchLine: Array(line.utf8))
    }

    @Test func membersOverrideTheDefaults() throws {
        #expect(try Self.apply("{}") == Self.base)
        #expect(try Self.apply(#"{"nonce":null,"token":null,"scopes":null,"signedAtMs":null,"auth":null,"version":null}"#) == Self.base)
        let line = #"{"nonce":"n1","signedAtMs":1737264000000,"clientId":"node-host","clientMode":"node","role":"node","#
            + #""scopes":[" b ","a","b",""],"platform":"Linux","deviceFamily":"pc","version":"v3","deviceId":"dev-1","token":"t1"}"#
        let payload = try Self.apply(line)
        #expect(payload.nonce == "n1" && payload.signedAtMs == 1_737_264_000_000)
        #expect(payload.clientId == "node-host" && payload.clientMode == "node" && payload.role == "node")
        #expect(payload.scopes == ConnectPayload.normalizeScopes([" b ", "a", "b", ""]))
        #expect(payload.platform == "Linux" && payload.deviceFamily == "pc" && payload.version == .v3)
        #expect(payload.token == "t1" && payload.deviceId == "dev-1")
        // auth wins over token, as the connect sends it (first non-empty; a password is never signed).
        let auth = try Self.apply(#"{"token":"t1","auth":{"password":"p","bootstrapToken":"boot"}}"#)
        #expect(auth.token == ConnectAuth(bootstrapToken: "boot", password: "p").signedToken)
    }

    @Test func eachBadLineHasItsError() throws {
        let cases: [(String, ConnectBatchLineError)] = [
            ("[]", .notAnObject),
            (#"{"nonce":1}"#, .wrongType(key: "nonce", expected: "a string")),
            (#"{"signedAtMs":-1}"#, .wrongType(key: "signedAtMs", expected: "a time in ms")),
            (#"{"scopes":"a"}"#, .wrongType(key: "scopes", expected: "an array")),
            (#"{"scopes":["a",2]}"#, .nonStringScope),
            (#"{"auth":"x"}"#, .wrongType(key: "auth", expected: "an object")),
            (#"{"version":"v4"}"#, .unknownVersion),
            (#"{"deviceId":"dev-2"}"#, .deviceIdMismatch(given: "dev-2", identity: "dev-1")),
            (#"{"nonse":"x"}"#, .unknownKey("nonse")),
            (#"{"nonce":""}"#, .missingNonce),
        ]
        for (line, expected) in cases {
            #expect(throws: expected, "\(line)") { try Self.apply(line) }
        }
        var noNonce = Self.base
        noNonce.nonce = ""
        #expect(throws: ConnectBatchLineError.missingNonce) { try Self.apply("{}", to: noNonce) }
        #expect(throws: JSONError.self) { try Self.apply("{") }
        #expect(ConnectBatchLineError.unknownKey("x").description == "unknown key \"x\"")
        #expect(ConnectBatchLineError.wrongType(key: "scopes", expected: "an array").description == "\"scopes\" is not an array")
        #expect(ConnectPayload.batchKeys == ConnectPayload.batchKeys.sorted())
    }
}
