import ClawpairCore
@testable import ClawpairSetupCode
import ClawpairTestSupport
import Testing

/// Hostile and malformed inputs: none may trap, each gives a specific error.
@Suite struct BadInputTests {
    static func code(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    static let corpus: [(name: String, input: String, code: String)] = [
        ("empty", "", "not-a-payload"),
        ("whitespace", " \n\t\u{3000} ", "not-a-payload"),
        ("huge", String(repeating: "A", count: SetupCode.maxInputBytes + 1), "input-too-large"),
        ("invalid base64", "eyJ!!!notbase64", "not-a-payload"),
        ("base64 of non-JSON", code("hello, this is not json at all"), "not-a-payload"),
        ("base64 of JSON string", code(#""wss://g.example.com""#), "not-a-payload"),
        ("base64 of invalid UTF-8", Base64URL.encode([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]), "not-a-payload"),
        ("JSON array", #"["wss://gateway.example.com"]"#, "not-a-payload"),
        ("JSON number", "12345", "not-a-payload"),
        ("JSON null", "null", "not-a-payload"),
        ("url as number", #"{"url":42,"bootstrapToken":"t"}"#, "invalid-field"),
        ("url as object", #"{"url":{"a":1}}"#, "invalid-field"),
        ("urls not array", #"{"url":"wss://g.example.com","urls":"wss://h.example.com"}"#, "invalid-field"),
        ("urls as object", #"{"url":"wss://g.example.com","urls":{"0":"x"}}"#, "invalid-field"),
        ("token as number", #"{"url":"wss://g.example.com","bootstrapToken":5}"#, "invalid-field"),
        ("password as bool", #"{"url":"wss://g.example.com","password":true}"#, "invalid-field"),
        ("expiresAtMs negative", #"{"url":"wss://g.example.com","expiresAtMs":-1}"#, "invalid-expiry"),
        ("expiresAtMs float", #"{"url":"wss://g.example.com","expiresAtMs":1.5}"#, "invalid-expiry"),
        ("expiresAtMs string", #"{"url":"wss://g.example.com","expiresAtMs":"1737264600000"}"#, "invalid-expiry"),
        ("expiresAtMs huge", #"{"url":"wss://g.example.com","expiresAtMs":1e300}"#, "invalid-expiry"),
        ("expiresAtMs beyond Int64", #"{"url":"wss://g.example.com","expiresAtMs":99999999999999999999999}"#, "invalid-expiry"),
        ("expiresAtMs above 2^53", #"{"url":"wss://g.example.com","expiresAtMs":9007199254740992}"#, "invalid-expiry"),
        ("expiresAtMs bool", #"{"url":"wss://g.example.com","expiresAtMs":true}"#, "invalid-expiry"),
        ("nested junk", String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000), "not-a-payload"),
        ("deep object in field", #"{"url":"wss://g.example.com","x":"# + String(repeating: "[", count: 5000) + "1"
            + String(repeating: "]", count: 5000) + "}", "not-a-payload"),
        ("control characters", "\u{1}\u{2}\u{1b}[31m\u{7f}", "not-a-payload"),
        ("control characters in JSON", "{\"url\":\"wss://g.example.com\u{1}\"}", "not-a-payload"),
        ("lone surrogate escape", #"{"url":"wss://g.example.com","bootstrapToken":"\ud800"}"#, "not-a-payload"),
        ("oc-pair alone", "oc-pair://", "not-a-payload"),
        ("oc-pair spaced", "  OC-PAIR://   ", "not-a-payload"),
        ("oc-pair garbage", "oc-pair://???", "not-a-payload"),
        ("no endpoint", #"{"bootstrapToken":"tok"}"#, "no-endpoint"),
        ("empty url", #"{"url":"  ","bootstrapToken":"tok"}"#, "no-endpoint"),
        ("null url", #"{"url":null}"#, "no-endpoint"),
        ("url scheme only", #"{"url":"wss://"}"#, "no-endpoint"),
        ("url with credentials", #"{"url":"wss://u:p@g.example.com"}"#, "no-endpoint"),
        ("url javascript", #"{"url":"javascript:alert(1)"}"#, "no-endpoint"),
        ("url huge", #"{"url":"wss://"# + String(repeating: "a", count: 20_000) + #".example"}"#, "no-endpoint"),
        ("url with NUL", "{\"url\":\"wss://g\\u0000.example\"}", "no-endpoint"),
        ("bad fingerprint type", #"{"url":"wss://g.example.com","tlsFingerprint":[]}"#, "invalid-fingerprint"),
        ("raw URL bad port", "wss://g.example.com:99999", "invalid-url"),
        ("raw URL with spaces", "wss://g example.com", "invalid-url"),
        ("mailto", "mailto:foo@example.com", "not-a-payload"),
        ("deep link other intent", "openclaw://settings", "not-a-payload"),
        ("deep link empty", "openclaw://", "not-a-payload"),
        ("deep link no host", "openclaw://gateway", "no-endpoint"),
        ("only padding", "====", "not-a-payload"),
        ("many short tokens", Array(repeating: "ab", count: 20_000).joined(separator: " "), "not-a-payload"),
        ("many code-like tokens", Array(repeating: String(repeating: "Q", count: 24), count: 1000).joined(separator: "\n"), "not-a-payload"),
        ("emoji", "🦞🦞🦞", "not-a-payload"),
        ("BOM JSON", "\u{FEFF}{\"url\":\"wss://g.example.com\"}", "OK"),
    ]

    @Test func corpusGivesSpecificErrors() {
        for entry in Self.corpus {
            do {
                let decoded = try SetupCode.decode(entry.input, nowMs: Vectors.fixedNowMs)
                #expect(entry.code == "OK", "\(entry.name): decoded \(decoded.endpoints)")
            } catch {
                #expect(error.code == entry.code, "\(entry.name): \(error.code): \(error.message)")
                #expect(!error.message.isEmpty && !error.message.hasSuffix("."), "\(entry.name)")
                #expect(error.hint?.isEmpty == false, "\(entry.name)")
            }
            // The strict decoder must not trap either.
            _ = try? SetupCode.strictDecode(entry.input, nowMs: Vectors.fixedNowMs)
        }
    }

    @Test func detailsSayWhatTheInputLookedLike() {
        func message(_ input: String) -> String {
            do { _ = try SetupCode.parse(input); return "" } catch { return error.message }
        }
        #expect(message(#"{"url":"wss://g.example.com",}"#).contains("looks like setup JSON but is not valid JSON"))
        #expect(message("[1]").contains("JSON an array"))
        #expect(message(Base64URL.encode(Array("garbage!".utf8))).contains("decodes as base64"))
        #expect(message("hello world").contains("no setup code"))
    }

    @Test func everyErrorHasAStableCodeAndMessage() {
        let errors: [SetupCodeError] = [
            .inputTooLarge(bytes: 1, limit: 0), .notAPayload("x"), .invalidField(name: "a", expected: "b"),
            .noEndpoint(dropped: []), .noEndpoint(dropped: [DroppedRoute(route: "r", reason: .invalidURL)]),
            .insecurePlaintextHost(host: "h"), .expired(expiresAtMs: 0, nowMs: 10_000_000), .invalidExpiry("x"),
            .invalidFingerprint("x"), .fingerprintWithoutTLS(url: "u"), .notNormalized(field: "f", value: "v", normalized: nil),
            .missingBootstrapToken, .invalidURL("u"), .tooManyRoutes(count: 9, limit: 8), .plaintextPort80(url: "u"),
            .emptyToken,
        ]
        var codes: Set<String> = []
        for error in errors {
            codes.insert(error.code)
            #expect(!error.message.isEmpty && error.hint != nil, "\(error.code)")
            #expect(error.description == error.message, "\(error.code)")
        }
        #expect(codes.count == 15)
    }

    @Test func randomMutationsNeverTrap() {
        var rng = SeededGenerator(seed: 0xBAD1)
        let seeds = [
            "eyJ1cmwiOiJ3czovLzE5Mi4xNjguMS4yMDoxODc4OSIsInVybHMiOlsid3M6Ly8xOTIuMTY4LjEuMjA6MTg3ODkiLCJ3c3M6Ly9nYXRld2F5LnRhaWxuZXQudHMubmV0Ojg0NDMiXSwiYm9vdHN0cmFwVG9rZW4iOiJ0b2sifQ",
            #"{"url":"ws://192.168.1.20:18789","urls":["ws://[::1]:1/x","wss://xn--bcher-kva.example"],"bootstrapToken":"t","expiresAtMs":1737264600000,"tlsFingerprint":"ab"}"#,
            "openclaw://gateway?host=%5B::1%5D&port=18789&tls=0&token=a%20b",
            "wss://[fe80::1]:443/a/../b?c#d",
        ]
        let alphabet = Array(#"{}[]":,/\.%@?#=-_+ 0123456789abcdefxnAZ"#.utf8) + [0x00, 0x1B, 0xC3, 0xA9, 0xFF]
        var decodedCount = 0
        for _ in 0..<4000 {
            var bytes = Array(seeds[Int.random(in: 0..<seeds.count, using: &rng)].utf8)
            for _ in 0..<Int.random(in: 1...6, using: &rng) where !bytes.isEmpty {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[i] = alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]
                case 1: bytes.remove(at: i)
                default: bytes.insert(alphabet[Int.random(in: 0..<alphabet.count, using: &rng)], at: i)
                }
            }
            let input = String(decoding: bytes, as: UTF8.self)
            if let decoded = try? SetupCode.decode(input, nowMs: Vectors.fixedNowMs) {
                decodedCount += 1
                #expect(decoded.endpoints.count <= SetupCode.maxRoutes)
                #expect(decoded.endpoints.allSatisfy { $0.tls || PlaintextPolicy.allowsPlaintext(host: $0.host) }, "\(input)")
            }
            _ = try? SetupCode.strictDecode(input, nowMs: nil)
            _ = SetupURL.normalize(input, defaultScheme: .ws)
        }
        #expect(decodedCount > 0)
    }
}
