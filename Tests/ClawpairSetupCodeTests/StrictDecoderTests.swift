import ClawpairCore
@testable import ClawpairSetupCode
import Testing

@Suite struct StrictDecoderTests {
    func code(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    func rejection(_ input: String, nowMs: Int64? = nil) -> SetupCodeError? {
        do {
            _ = try SetupCode.strictDecode(input, nowMs: nowMs)
            return nil
        } catch {
            return error
        }
    }

    @Test func acceptsG4VectorCodes() throws {
        for vector in try Vectors.encode().vectors where !vector.payloadJson.contains(":443") {
            let payload = try SetupCode.strictDecode(vector.setupCode, nowMs: 1_737_264_000_000)
            #expect(payload.url.hasPrefix("ws"), "\(vector.name)")
            #expect(try SetupCode.strictDecode("  OC-PAIR://" + vector.setupCode + "\n", nowMs: nil) == payload, "\(vector.name)")
        }
    }

    @Test func refusesT1ForItsPort() {
        let t1 = code(#"{"url":"wss://gateway.example.com:443","bootstrapToken":"abc"}"#)
        #expect(rejection(t1) == .notNormalized(field: "url", value: "wss://gateway.example.com:443",
                                                normalized: "wss://gateway.example.com"))
    }

    @Test func rules() {
        let ok = #"{"url":"wss://g.example.com","bootstrapToken":"b"}"#
        #expect(rejection(code(ok)) == nil)
        #expect(rejection(code(ok) + "=")?.code == "not-a-payload")
        #expect(rejection("{}")?.code == "not-a-payload")
        #expect(rejection("")?.code == "not-a-payload")
        // Node's base64url decoder ignores one dangling character (a length ≡ 1 mod 4).
        let whole = #"{"url":"wss://g.example.com","bootstrapToken":"bb"}"#
        #expect(whole.utf8.count % 3 == 0)
        #expect(rejection(code(whole) + "A") == nil)
        #expect(rejection(code(whole) + "AA")?.code == "not-a-payload")
        #expect(rejection(code(#"[1]"#))?.code == "not-a-payload")
        #expect(rejection(code(#"{"url":"wss://g.example.com"}"#)) == .missingBootstrapToken)
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"  "}"#)) == .missingBootstrapToken)
        #expect(rejection(code(#"{"url":5,"bootstrapToken":"b"}"#))?.code == "invalid-field")
        #expect(rejection(code(#"{"url":"192.168.1.20:18789","bootstrapToken":"b"}"#))?.code == "not-normalized")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","urls":[]}"#))?.code == "invalid-field")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","urls":null}"#))?.code == "invalid-field")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","urls":["wss://g.example.com",42]}"#))?.code == "invalid-field")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","urls":["wss://G.example.com"]}"#))?.code == "not-normalized")
        let nine = (0..<9).map { "\"wss://g\($0).example.com\"" }.joined(separator: ",")
        #expect(rejection(code(#"{"url":"wss://g0.example.com","bootstrapToken":"b","urls":[\#(nine)]}"#)) == .tooManyRoutes(count: 9, limit: 8))
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":-1}"#))?.code == "invalid-expiry")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":1.5}"#))?.code == "invalid-expiry")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":"1"}"#))?.code == "invalid-expiry")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":null}"#))?.code == "invalid-expiry")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":9007199254740992}"#))?.code == "invalid-expiry")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":1e3}"#), nowMs: 999) == nil)
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":1000}"#), nowMs: 1000)?.code == "expired")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","tlsFingerprint":"x"}"#))?.code == "invalid-fingerprint")
        #expect(rejection(code(#"{"url":"wss://g.example.com","bootstrapToken":"b","tlsFingerprint":null}"#))?.code == "invalid-fingerprint")
        // The strict decoder does not check the pin against the scheme; the lenient one does.
        let pinned = code(#"{"url":"ws://192.168.1.2","bootstrapToken":"b","tlsFingerprint":"\#(String(repeating: "a", count: 64))"}"#)
        #expect(rejection(pinned) == nil)
        #expect((try? SetupCode.parse(pinned)) == nil)
    }

    @Test func trimsAndNormalizesLikeTypeScript() throws {
        let p = try SetupCode.strictDecode(code(#"{"url":" wss://g.example.com ","bootstrapToken":" b ","tlsFingerprint":"SHA256:\#(String(repeating: "AB", count: 32))","token":"t"}"#), nowMs: nil)
        #expect(p.url == "wss://g.example.com")
        #expect(p.bootstrapToken == "b")
        #expect(p.tlsFingerprint == String(repeating: "ab", count: 32))
        #expect(p.token == nil)
        // Invalid UTF-8 becomes U+FFFD instead of failing, as Buffer#toString does.
        var bytes = Array(#"{"url":"wss://g.example.com","bootstrapToken":"b"#.utf8)
        bytes += [0xFF] + Array(#""}"#.utf8)
        #expect(try SetupCode.strictDecode(Base64URL.encode(bytes), nowMs: nil).bootstrapToken == "b\u{FFFD}")
    }
}
