import ClawpairCore
@testable import ClawpairSetupCode
import ClawpairTestSupport
import Testing

@Suite struct EncodeTests {
    @Test func vectorsFromParsedJSONKeepKeyOrder() throws {
        for vector in try Vectors.encode().vectors {
            let json = try JSONValue.parse(vector.payloadJson)
            #expect(json.compact() == vector.payloadJson, "\(vector.name)")
            #expect(SetupCode.encode(json: json) == vector.setupCode, "\(vector.name)")
        }
    }

    @Test func vectorsFromPayloadModel() throws {
        for vector in try Vectors.encode().vectors {
            let payload = try SetupCodePayload(json: JSONValue.parse(vector.payloadJson))
            #expect(SetupCode.encode(payload) == vector.setupCode, "\(vector.name)")
            #expect(payload.json.compact() == vector.payloadJson, "\(vector.name)")
        }
    }

    @Test func vectorsDecodeBack() throws {
        for vector in try Vectors.encode().vectors {
            let decoded = try SetupCode.parse(vector.setupCode)
            #expect(decoded.payload?.compact() == vector.payloadJson, "\(vector.name)")
            #expect(decoded.form == .code, "\(vector.name)")
        }
    }

    @Test func prefixedForm() {
        #expect(SetupCode.prefixed("abc") == "oc-pair://abc")
    }

    @Test func generationInference() throws {
        let cases: [(String, DecodedSetup.Generation)] = [
            (#"{"url":"wss://g.example.com","token":"t"}"#, .g1),
            (#"{"url":"wss://g.example.com"}"#, .g1),
            (#"{"url":"wss://g.example.com","bootstrapToken":"b"}"#, .g2),
            (#"{"url":"wss://g.example.com","urls":["wss://g.example.com","wss://h.example.com"],"bootstrapToken":"b"}"#, .g3),
            (#"{"url":"wss://g.example.com","bootstrapToken":"b","expiresAtMs":1}"#, .g4),
            (#"{"host":"g.example.com"}"#, .hostShape),
        ]
        for (input, generation) in cases {
            #expect(try SetupCode.parse(input).generation == generation, "\(input)")
        }
    }
}

@Suite struct MakeTests {
    static let token = "Zq3Yc2m1bW8xNnFqZ3R5c2Y0bXZ4cWhtbmJ2Y2s1bm0"
    static let expires: Int64 = 1_737_264_600_000

    @Test func urlMetadataAndPortZeroAreRefused() throws {
        for url in ["wss://g.example.com/ctx?mode=setup", "wss://g.example.com/#f", "wss://g.example.com?"] {
            #expect(throws: SetupCodeError.urlMetadata(url: url), "\(url)") {
                try SetupCode.make(urls: [url], bootstrapToken: Self.token, expiresAtMs: Self.expires, defaultScheme: .wss)
            }
        }
        for url in ["wss://g.example.com:0", "ws://127.0.0.1:0", "wss://g.example.com:65536"] {
            #expect(throws: SetupCodeError.invalidURL(url), "\(url)") {
                try SetupCode.make(urls: [url], bootstrapToken: Self.token, expiresAtMs: Self.expires, defaultScheme: .wss)
            }
        }
        #expect(SetupCodeError.urlMetadata(url: "x").encoderInput == .url)
    }

    @Test func plaintextRoutesAlwaysCarryThePort() throws {
        let (_, payload) = try SetupCode.make(urls: ["ws://192.168.1.20", "127.0.0.1/ctx", "http://[::1]:8080", "wss://g.example.com"],
                                              bootstrapToken: Self.token, expiresAtMs: Self.expires, defaultScheme: .ws)
        #expect(payload.urls == ["ws://192.168.1.20:18789", "ws://127.0.0.1:18789", "ws://[::1]:8080", "wss://g.example.com"])
        // The port-less spelling and the explicit 18789 are one route.
        let (_, same) = try SetupCode.make(urls: ["ws://192.168.1.20", "ws://192.168.1.20:18789"], bootstrapToken: Self.token,
                                           expiresAtMs: Self.expires, defaultScheme: .ws)
        #expect(same.url == "ws://192.168.1.20:18789" && same.urls == nil)
    }

    @Test func bootstrapTokensAreOneShortLine() throws {
        for (token, fragment) in [("root:x:0:0\nbin:x:1:1", "one line, not 2 lines"),
                                  (String(repeating: "a", count: SetupCode.maxBootstrapTokenBytes + 1), "at most 512 bytes"),
                                  ("to ken", "without spaces"), ("tok\u{7}en", "control characters")] {
            do {
                _ = try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: token, expiresAtMs: Self.expires,
                                       defaultScheme: .wss)
                Issue.record("accepted \(token.prefix(20))")
            } catch {
                #expect(error.encoderInput == .bootstrapToken)
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
        let longest = String(repeating: "a", count: SetupCode.maxBootstrapTokenBytes)
        #expect(try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: longest, expiresAtMs: Self.expires,
                                   defaultScheme: .wss).payload.bootstrapToken == longest)
    }

    @Test func singleRouteG4() throws {
        let (code, payload) = try SetupCode.make(urls: ["https://Gateway.Example.com:443/ctx/"], bootstrapToken: Self.token,
                                                 expiresAtMs: Self.expires, tlsFingerprint: "SHA256:" + String(repeating: "AB:", count: 31) + "AB",
                                                 defaultScheme: .wss)
        #expect(payload.url == "wss://gateway.example.com/ctx/")
        #expect(payload.urls == nil)
        #expect(payload.tlsFingerprint == String(repeating: "ab", count: 32))
        #expect(payload.json.compact().hasPrefix(#"{"url":"wss://gateway.example.com/ctx/","bootstrapToken":"#))
        #expect(try SetupCode.strictDecode(code, nowMs: Self.expires - 1) == payload)
        let decoded = try SetupCode.decode(code, nowMs: Self.expires - 1)
        #expect(decoded.strictCheck == .accepted)
        #expect(decoded.generation == .g4)
        #expect(decoded.primary.contextPath == "/ctx/")
        #expect(decoded.tlsFingerprint == payload.tlsFingerprint)
    }

    @Test func multipleRoutesDeduplicated() throws {
        let (_, payload) = try SetupCode.make(urls: ["192.168.1.20:18789", "ws://192.168.1.20:18789/", "wss://clawmac.tail.ts.net:8443"],
                                              bootstrapToken: Self.token, expiresAtMs: Self.expires, defaultScheme: .ws)
        #expect(payload.url == "ws://192.168.1.20:18789")
        #expect(payload.urls == ["ws://192.168.1.20:18789", "wss://clawmac.tail.ts.net:8443"])
    }

    @Test(arguments: [
        (["ws://attacker.example:18789"], "insecure-plaintext-host"),
        (["ws://gateway.tailnet.ts.net:18789"], "insecure-plaintext-host"),
        (["ws://100.64.0.9:18789"], "insecure-plaintext-host"),
        (["wss://ok.example.com", "ws://8.8.8.8"], "insecure-plaintext-host"),
        (["ws://192.168.1.20:80"], "plaintext-port-80"),
        (["http://192.168.1.20:80"], "plaintext-port-80"),
        (["192.168.1.20:80"], "plaintext-port-80"),
        (["ws://user:pass@gateway.example.test:18789"], "invalid-url"),
        (["localhost:notaport"], "invalid-url"),
        (["mailto:foo@example.com"], "invalid-url"),
        ([], "no-endpoint"),
        ((0..<9).map { "wss://gateway-\($0).example.com" }, "too-many-routes"),
    ] as [([String], String)])
    func refusals(urls: [String], code: String) {
        do {
            _ = try SetupCode.make(urls: urls, bootstrapToken: Self.token, expiresAtMs: Self.expires, defaultScheme: .ws)
            Issue.record("\(urls) should be refused with \(code)")
        } catch {
            #expect(error.code == code, "\(urls): \(error.message)")
            #expect(!error.message.isEmpty && error.hint != nil, "\(urls)")
        }
    }

    @Test func insecureRefusalCarriesPolicyMessage() {
        do {
            _ = try SetupCode.make(urls: ["ws://attacker.example"], bootstrapToken: Self.token, expiresAtMs: 1, defaultScheme: .ws)
        } catch {
            #expect(error.hint?.hasPrefix("Tailscale and public mobile pairing require a secure gateway URL (wss://)") == true)
            #expect(error.message.contains("attacker.example"))
            #expect(error == .insecurePlaintextHost(host: "attacker.example"))
        }
    }

    @Test func eightRoutesAllowedAfterDeduplication() throws {
        var urls = (0..<8).map { "wss://gateway-\($0).example.com" }
        urls.append("wss://gateway-0.example.com:443")
        let (code, payload) = try SetupCode.make(urls: urls, bootstrapToken: Self.token, expiresAtMs: Self.expires, defaultScheme: .wss)
        #expect(payload.urls?.count == 8)
        #expect(try SetupCode.strictDecode(code, nowMs: nil).urls?.count == 8)
    }

    @Test func fingerprintRules() {
        #expect(throws: SetupCodeError.fingerprintWithoutTLS(url: "ws://192.168.1.20:18789")) {
            try SetupCode.make(urls: ["ws://192.168.1.20:18789"], bootstrapToken: Self.token, expiresAtMs: 1,
                               tlsFingerprint: String(repeating: "a", count: 64), defaultScheme: .ws)
        }
        #expect(throws: SetupCodeError.invalidFingerprint("abc123")) {
            try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: Self.token, expiresAtMs: 1,
                               tlsFingerprint: "abc123", defaultScheme: .ws)
        }
        // The pin belongs to the primary URL; a wss fallback does not make a ws primary pinnable.
        #expect(throws: SetupCodeError.self) {
            try SetupCode.make(urls: ["ws://192.168.1.20", "wss://g.example.com"], bootstrapToken: Self.token,
                               expiresAtMs: 1, tlsFingerprint: String(repeating: "a", count: 64), defaultScheme: .ws)
        }
    }

    @Test func tokenAndExpiryChecks() {
        #expect(throws: SetupCodeError.emptyToken) {
            try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: "  ", expiresAtMs: 1, defaultScheme: .ws)
        }
        #expect(throws: SetupCodeError.self) {
            try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: " tok", expiresAtMs: 1, defaultScheme: .ws)
        }
        #expect(throws: SetupCodeError.invalidExpiry("-1")) {
            try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: "tok", expiresAtMs: -1, defaultScheme: .ws)
        }
        #expect(throws: SetupCodeError.self) {
            try SetupCode.make(urls: ["wss://g.example.com"], bootstrapToken: "tok", expiresAtMs: Int64.max, defaultScheme: .ws)
        }
    }

    static let hostPool = [
        "gateway.example.com", "Gateway.Example.COM.", "192.168.1.20", "10.0.2.2", "172.20.1.1", "169.254.3.4",
        "[fe80::1]", "[FD7A:115C:A1E0::0001]", "localhost", "127.0.0.1", "[::1]", "openclaw.local", "clawmac.tail.ts.net",
        "100.64.0.9", "8.8.8.8", "2130706433", "0x7f.1", "bücher.example", "xn--bcher-kva.example", "[::ffff:127.0.0.1]",
        "studio", "a.b.c.d.e",
    ]

    static func randomURL(_ rng: inout SeededGenerator) -> String {
        let host = hostPool[Int.random(in: 0..<hostPool.count, using: &rng)]
        let scheme = ["ws://", "wss://", "http://", "https://", "WSS://", ""][Int.random(in: 0..<6, using: &rng)]
        // Port 0 and query/fragment URLs are refused outright (`urlMetadataAndPortZeroAreRefused`).
        let port = ["", ":18789", ":443", ":80", ":8443", ":1", ":65535"][Int.random(in: 0..<7, using: &rng)]
        let path = ["", "/", "/ctx", "/a/../b/", "/x%20y", "/sp ace", "/q%3Fx=1"][Int.random(in: 0..<7, using: &rng)]
        return scheme + host + port + path
    }

    @Test func randomRouteSetsRoundTrip() throws {
        var rng = SeededGenerator(seed: 0x5E7C0DE)
        var minted = 0
        for i in 0..<1500 {
            let urls = (0..<Int.random(in: 1...10, using: &rng)).map { _ in Self.randomURL(&rng) }
            let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let expires = Int64.random(in: 0...PayloadFields.maxSafeInteger, using: &rng)
            let scheme: SetupURL.Scheme = Bool.random(using: &rng) ? .ws : .wss
            let fingerprint: String? = Bool.random(using: &rng) ? String(repeating: "0f", count: 32) : nil
            let result: (code: String, payload: SetupCodePayload)
            do {
                result = try SetupCode.make(urls: urls, bootstrapToken: token, expiresAtMs: expires,
                                            tlsFingerprint: fingerprint, defaultScheme: scheme)
            } catch {
                // Refusals must be one of the documented classes.
                #expect(["insecure-plaintext-host", "plaintext-port-80", "invalid-url", "too-many-routes",
                         "fingerprint-without-tls"].contains(error.code), "case \(i) \(urls): \(error.code)")
                continue
            }
            minted += 1
            let (code, payload) = result
            #expect(!code.contains("=") && !code.contains("+") && !code.contains("/"), "case \(i)")
            // Strict decoder acceptance, including the expiry rule one millisecond before expiry.
            #expect(try SetupCode.strictDecode(code, nowMs: expires - 1) == payload, "case \(i) \(urls)")
            #expect(throws: SetupCodeError.expired(expiresAtMs: expires, nowMs: expires)) {
                try SetupCode.strictDecode(code, nowMs: expires)
            }
            // Every route is normalized and idempotent.
            for route in payload.urls ?? [payload.url] {
                #expect(SetupURL.normalize(route, defaultScheme: .ws) == route, "case \(i) \(route)")
                #expect(SetupURL.normalize(route, defaultScheme: .wss) == route, "case \(i) \(route)")
            }
            // The lenient decoder sees the same routes, in order, with the same credentials.
            let decoded = try SetupCode.decode(code, nowMs: expires - 1)
            let routes = payload.urls ?? [payload.url]
            #expect(decoded.endpoints.count == routes.count, "case \(i) \(routes)")
            for (endpoint, route) in zip(decoded.endpoints, routes) {
                let expected = SetupURL.parse(route, defaultScheme: .ws)
                #expect(endpoint.host == expected?.host && endpoint.port == expected?.port && endpoint.tls == expected?.tls
                        && endpoint.contextPath == expected?.contextPath, "case \(i) \(route)")
            }
            #expect(decoded.bootstrapToken == token && decoded.expiresAtMs == expires, "case \(i)")
            #expect(decoded.tlsFingerprint == payload.tlsFingerprint, "case \(i)")
            #expect(decoded.strictCheck == .accepted, "case \(i)")
            #expect(decoded.dropped.isEmpty, "case \(i)")
            let downgraded = AccessProfile.issue(requested: .full(), urls: routes).downgraded
            #expect(decoded.accessHint == (downgraded ? .limitedDowngraded : .fullOrLimited), "case \(i)")
        }
        #expect(minted > 300)
    }
}
