import ClawpairCore
@testable import ClawpairSetupCode
import Testing

@Suite struct DecodeVectorTests {
    @Test func allDecodeVectors() throws {
        let group = try Vectors.decode()
        #expect(group.vectors.count >= 28)
        for vector in group.vectors {
            let now = vector.nowMs ?? Vectors.fixedNowMs
            if let reject = vector.reject {
                do {
                    let decoded = try SetupCode.decode(vector.input, nowMs: now)
                    Issue.record("\(vector.name): expected reject \(reject), decoded \(decoded.endpoints)")
                } catch {
                    #expect(error.code == reject, "\(vector.name): \(error.message)")
                    #expect(!error.message.isEmpty, "\(vector.name)")
                }
                continue
            }
            guard let expect = vector.expect else {
                Issue.record("\(vector.name): vector has neither expect nor reject")
                continue
            }
            let decoded: DecodedSetup
            do {
                decoded = try SetupCode.decode(vector.input, nowMs: now)
            } catch {
                Issue.record("\(vector.name): unexpected \(error.code): \(error.message)")
                continue
            }
            if let endpoints = expect.endpoints {
                let got = decoded.endpoints.map { "\($0.host) \($0.port) \($0.tls)" }
                let want = endpoints.map { "\($0.host) \($0.port) \($0.tls)" }
                #expect(got == want, "\(vector.name)")
            }
            if let count = expect.endpointCount {
                #expect(decoded.endpoints.count == count, "\(vector.name)")
            }
            if let first = expect.firstHost { #expect(decoded.endpoints.first?.host == first, "\(vector.name)") }
            if let last = expect.lastHost { #expect(decoded.endpoints.last?.host == last, "\(vector.name)") }
            if let port = expect.port { #expect(decoded.endpoints.allSatisfy { $0.port == port }, "\(vector.name)") }
            if let tls = expect.tls { #expect(decoded.endpoints.allSatisfy { $0.tls == tls }, "\(vector.name)") }
            // The full form lists every credential that is present; the T16 summary form lists none.
            if expect.endpoints != nil {
                #expect(decoded.bootstrapToken == expect.bootstrapToken, "\(vector.name)")
                #expect(decoded.token == expect.token, "\(vector.name)")
                #expect(decoded.password == expect.password, "\(vector.name)")
                #expect(decoded.expiresAtMs == expect.expiresAtMs, "\(vector.name)")
                #expect(decoded.tlsFingerprint == expect.tlsFingerprint, "\(vector.name)")
            }
            // Without a clock the same input parses (expiry is the only time-dependent rule).
            #expect((try? SetupCode.parse(vector.input)) != nil, "\(vector.name) parse")
        }
    }

    @Test func formsAndStrictCheckOfVectors() throws {
        let byName = Dictionary(uniqueKeysWithValues: try Vectors.decode().vectors.map { ($0.name, $0) })
        func decoded(_ name: String) throws -> DecodedSetup {
            let vector = try #require(byName[name], "missing vector \(name)")
            return try SetupCode.decode(vector.input, nowMs: vector.nowMs ?? Vectors.fixedNowMs)
        }
        let t1 = try decoded("T1 as base64url code")
        #expect(t1.form == .code)
        #expect(t1.generation == .g2)
        #expect(t1.strictCheck == .rejected(reason:
            "url is not in normalized form: wss://gateway.example.com:443 → wss://gateway.example.com"))
        #expect(t1.accessHint == .limited)
        #expect(try decoded("T1 with oc-pair:// prefix (upper-case prefix)").form == .prefixedCode)
        #expect(try decoded("T1 as raw JSON").form == .rawJSON)
        #expect(try decoded("T1 code with '=' padding re-added").strictCheck.isAccepted == false)
        let t2 = try decoded("T2 legacy token payload")
        #expect(t2.generation == .g1)
        #expect(t2.accessHint == .sharedSecret)
        let t13 = try decoded("T13 before expiry")
        #expect(t13.generation == .g4)
        #expect(t13.strictCheck == .accepted)
        #expect(t13.accessHint == .limitedDowngraded)
        let t14 = try decoded("T14 same payload as code")
        #expect(t14.generation == .g3)
        #expect(t14.accessHint == .fullOrLimited)
        #expect(t14.dropped.isEmpty)
        let t15 = try decoded("T15 insecure routes dropped")
        #expect(t15.dropped == [DroppedRoute(route: "ws://attacker.example:18789", reason: .insecurePlaintextHost)])
        let t16 = try decoded("T16 ten wss urls capped to 8")
        #expect(t16.dropped.map(\.reason) == [.overCap, .overCap])
        #expect(t16.dropped.map(\.route) == ["wss://gateway-8.example.com", "wss://gateway-9.example.com"])
        #expect(t16.fallbacks.count == 7)
        let t17 = try decoded("T17 host-shape payload, tls true, no port")
        #expect(t17.generation == .hostShape)
        let t18 = try decoded("T18 code embedded in pasted text")
        #expect(t18.form == .embeddedCode)
        #expect(!t18.strictCheck.isAccepted)
        #expect(try decoded("T18b code in quotes inside prose").form == .embeddedCode)
        let t19 = try decoded("T19a deep link tls=1 no port")
        #expect(t19.form == .deepLink && t19.generation == .deepLink && t19.accessHint == .noCredentials)
        let t20 = try decoded("T20 raw wss URL")
        #expect(t20.form == .rawURL && t20.accessHint == .noCredentials && t20.payload == nil)
        let g4 = try decoded("G4 payload with fingerprint")
        #expect(g4.strictCheck == .accepted && g4.accessHint == .fullOrLimited)
    }

    @Test func expiryIsExclusive() throws {
        let code = "eyJ1cmwiOiJ3czovLzE5Mi4xNjguMS4yMDoxODc4OSIsImJvb3RzdHJhcFRva2VuIjoiYm9vdHN0cmFwLWFiYyIsImV4cGlyZXNBdE1zIjoxNzM3MjY0NjAwMDAwfQ"
        #expect((try? SetupCode.decode(code, nowMs: 1_737_264_599_999)) != nil)
        #expect(throws: SetupCodeError.expired(expiresAtMs: 1_737_264_600_000, nowMs: 1_737_264_600_000)) {
            try SetupCode.decode(code, nowMs: 1_737_264_600_000)
        }
        #expect(try SetupCode.parse(code).isExpired(nowMs: 1_737_264_600_000))
        do {
            _ = try SetupCode.decode(code, nowMs: 1_737_264_600_000 + 5 * 60_000)
        } catch {
            #expect(error == .expired(expiresAtMs: 1_737_264_600_000, nowMs: 1_737_264_600_000 + 5 * 60_000))
            #expect(error.message.contains("(5m ago, "), "\(error.message)")
        }
    }
}

@Suite struct DecodeBehaviourTests {
    func decode(_ input: String) throws -> DecodedSetup { try SetupCode.decode(input, nowMs: Vectors.fixedNowMs) }

    func rejectCode(_ input: String) -> String? {
        do {
            _ = try SetupCode.decode(input, nowMs: Vectors.fixedNowMs)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func contextPathsKeptAsWritten() throws {
        let d = try decode(#"{"url":"ws://192.168.1.20:18789/lan-gw","urls":["ws://192.168.1.20:18789/lan-gw","wss://gateway.tailnet.ts.net:8443/tailnet-gw"],"bootstrapToken":"tok"}"#)
        #expect(d.endpoints.map(\.contextPath) == ["/lan-gw", "/tailnet-gw"])
        #expect(d.endpoints.map(\.url) == ["ws://192.168.1.20:18789/lan-gw", "wss://gateway.tailnet.ts.net:8443/tailnet-gw"])
        #expect(try decode(#"{"url":"wss://gateway.example/openclaw%20gateway"}"#).primary.contextPath == "/openclaw%20gateway")
        #expect(try decode(#"{"url":"wss://gateway.example/openclaw%2Fgateway"}"#).primary.contextPath == "/openclaw%2Fgateway")
        #expect(try decode(#"{"url":"wss://gateway.example/openclaw%FFgateway"}"#).primary.contextPath == "/openclaw%FFgateway")
    }

    @Test func explicitPortsAreDialedAsWritten() throws {
        #expect(try decode(#"{"url":"ws://192.168.1.20:80"}"#).primary.port == 80)
        #expect(try decode(#"{"url":"ws://192.168.1.20"}"#).primary.port == 18789)
        #expect(try decode(#"{"url":"http://192.168.1.20"}"#).primary.tls == false)
        #expect(try decode(#"{"url":"https://g.example.com"}"#).primary.url == "wss://g.example.com")
        #expect(try decode(#"{"url":"ws://[::1]:18789"}"#).primary.host == "::1")
        #expect(try decode(#"{"url":"ws://[::1]:18789"}"#).primary.url == "ws://[::1]:18789")
    }

    /// The apps' "setup code rejects gateway URL metadata" (`DeepLinksSecurityTests.swift`): user-info,
    /// a query or a fragment make the route invalid; so does a port outside 1–65535.
    @Test func urlMetadataAndBadPortsRejectTheRoute() throws {
        for url in ["wss://user@gateway.example/openclaw-gw", "wss://gateway.example/openclaw-gw?mode=setup",
                    "wss://gateway.example/openclaw-gw#fragment", "wss://gateway.example/?", "wss://gateway.example:0",
                    "wss://gateway.example:65536"] {
            #expect(rejectCode(#"{"url":"\#(url)","bootstrapToken":"tok"}"#) == "no-endpoint", "\(url)")
        }
        let d = try decode(#"{"url":"wss://g.example.com/gw?mode=setup","urls":["wss://g.example.com/gw?mode=setup","wss://h.example.com"]}"#)
        #expect(d.primary.host == "h.example.com")
        #expect(d.dropped == [DroppedRoute(route: "wss://g.example.com/gw?mode=setup", reason: .invalidURL)])
        #expect(throws: SetupCodeError.invalidURL("wss://g.example.com/?x")) { try SetupCode.parse("wss://g.example.com/?x") }
    }

    @Test func contextPathAndPublicOriginAreShown() throws {
        let d = try decode(#"{"url":"ws://127.0.0.1:18789/gateway","bootstrapToken":"tok","publicOrigin":"https://gw.example.com"}"#)
        #expect(d.primary.contextPath == "/gateway" && d.primary.url == "ws://127.0.0.1:18789/gateway")
        #expect(d.notes == ["the payload names the gateway's public origin https://gw.example.com (shown, not dialed)"])
        #expect(d.endpoints.count == 1, "the public origin is not a route")
        #expect(try decode(#"{"url":"wss://g.example.com","publicOrigin":42}"#).notes.isEmpty)
    }

    @Test func duplicateSpellingsCollapse() throws {
        let d = try decode(#"{"url":"wss://g.example.com","urls":["wss://g.example.com","wss://G.example.com:443","wss://h.example.com"]}"#)
        #expect(d.endpoints.map(\.host) == ["g.example.com", "h.example.com"])
        #expect(d.dropped == [DroppedRoute(route: "wss://G.example.com:443", reason: .duplicate)])
    }

    @Test func invalidRoutesAreDroppedNotFatal() throws {
        let d = try decode(#"{"url":"wss://user:pw@g.example.com","urls":["wss://user:pw@g.example.com",42,"ws:h","wss://ok.example.com"]}"#)
        #expect(d.primary.host == "ok.example.com")
        #expect(d.dropped.map(\.reason) == [.invalidURL, .invalidURL, .invalidURL])
        // The password in a dropped route is not echoed (#25.10).
        #expect(d.dropped.map(\.route) == ["wss://<redacted>@g.example.com", "42", "ws:h"])
        #expect(rejectCode(#"{"url":"wss://user:pw@g.example.com"}"#) == "no-endpoint")
    }

    @Test func fingerprintApplication() throws {
        let pin = String(repeating: "ab", count: 32)
        let d = try decode(#"{"url":"wss://direct.example.com","urls":["wss://direct.example.com","wss://proxy.example.com"],"tlsFingerprint":"\#(pin)","expiresAtMs":4102444800000}"#)
        #expect(d.tlsFingerprint == pin)
        #expect(d.fallbacks.count == 1)
        // A plaintext primary with a pin is rejected with its pin; the TLS fallback is used unpinned (the
        // apps' "rejected primary does not transfer TLS fingerprint to fallback").
        let rejected = try decode(#"{"url":"ws://127.0.0.1:18789","urls":["wss://proxy.example.com"],"tlsFingerprint":"\#(pin)"}"#)
        #expect(rejected.primary.host == "proxy.example.com")
        #expect(rejected.tlsFingerprint == nil)
        #expect(rejected.dropped == [DroppedRoute(route: "ws://127.0.0.1:18789", reason: .pinWithoutTLS)])
        #expect(!rejected.notes.isEmpty)
        // With nothing else to dial the code is refused ("setup code rejects TLS fingerprint on plaintext endpoint").
        #expect(rejectCode(#"{"url":"ws://127.0.0.1:18789","tlsFingerprint":"\#(pin)"}"#) == "fingerprint-without-tls")
        // A pin whose URL is invalid is not transferred to the fallback.
        let moved = try decode(#"{"url":"wss://u:p@direct.example.com","urls":["wss://proxy.example.com"],"tlsFingerprint":"\#(pin)"}"#)
        #expect(moved.primary.host == "proxy.example.com")
        #expect(moved.tlsFingerprint == nil)
        #expect(!moved.notes.isEmpty)
        #expect(rejectCode(#"{"url":"wss://g.example.com","tlsFingerprint":42}"#) == "invalid-fingerprint")
        #expect(try decode(#"{"url":"wss://g.example.com","tlsFingerprint":null}"#).tlsFingerprint == nil)
    }

    @Test func hostShape() throws {
        let d = try decode(#"{"host":"openclaw.local","port":18789,"tls":false,"bootstrapToken":"tok"}"#)
        #expect(d.primary == SetupEndpoint(host: "openclaw.local", explicitPort: 18789, tls: false))
        #expect(try decode(#"{"host":"127.0.0.1","tls":false}"#).primary.port == 18789)
        #expect(try decode(#"{"host":"Gateway.Example.COM"}"#).primary.host == "gateway.example.com")
        #expect(try decode(#"{"host":"::1","tls":false}"#).primary.host == "::1")
        #expect(rejectCode(#"{"host":"gateway.tailnet.ts.net","port":18789,"tls":false,"bootstrapToken":"tok"}"#)
                == "insecure-plaintext-host")
        #expect(rejectCode(#"{"host":"g.example.com","port":"443"}"#) == "invalid-field")
        #expect(rejectCode(#"{"host":"g.example.com","port":70000}"#) == "invalid-field")
        #expect(rejectCode(#"{"host":"g.example.com","tls":"yes"}"#) == "invalid-field")
        #expect(rejectCode(#"{"host":"bad host"}"#) == "no-endpoint")
        #expect(rejectCode(#"{"host":"  "}"#) == "no-endpoint")
    }

    @Test func deepLinks() throws {
        let d = try decode("openclaw://gateway?host=gateway.example.com&port=18789&tls=1&token=a%2Bb+c&password=p%C3%A9")
        #expect(d.primary == SetupEndpoint(host: "gateway.example.com", explicitPort: 18789, tls: true))
        #expect(d.token == "a+b+c")
        #expect(d.password == "pé")
        #expect(d.accessHint == .sharedSecret)
        #expect(try decode("OPENCLAW-DEBUG://Gateway/?host=127.0.0.1").primary.tls == false)
        #expect(try decode("openclaw://gateway?host=%5B::1%5D&tls=0").primary.host == "::1")
        #expect(try decode("openclaw://gateway?host=h.example.com&tls=true").primary.tls)
        #expect(try decode("openclaw://gateway?host=h.example.com&tls=yes").primary.tls)
        #expect(try decode("openclaw://gateway?host=127.0.0.1&tls=false").primary.tls == false)
        #expect(try decode("openclaw://gateway?host=x.example.com&host=127.0.0.1").primary.host == "127.0.0.1")
        #expect(rejectCode("openclaw://gateway?host=127.attacker.example&port=18789&tls=0&token=abc") == "insecure-plaintext-host")
        #expect(rejectCode("openclaw://gateway/add?url=https%3A%2F%2Fgateway.example") == "not-a-payload")
        #expect(rejectCode("openclaw://agent?message=hi") == "not-a-payload")
        #expect(rejectCode("openclaw://gateway?tls=1") == "no-endpoint")
        #expect(rejectCode("openclaw://gateway?host=g.example.com&tls=1&port=abc") == "invalid-field")
        #expect(rejectCode("openclaw://gateway?host=g.example.com&tls=1&port=0") == "invalid-field")
        #expect(rejectCode("openclaw://gateway?host=%FF") == "not-a-payload")
        #expect(rejectCode("openclaw://gateway?" + Array(repeating: "a=b", count: 100).joined(separator: "&")) == "not-a-payload")
    }

    @Test func rawURLs() throws {
        #expect(try decode("http://192.168.1.20:18789").primary == SetupEndpoint(host: "192.168.1.20", explicitPort: 18789, tls: false))
        #expect(rejectCode("ws://attacker.example") == "insecure-plaintext-host")
        #expect(rejectCode("ws://user:pass@host.local") == "invalid-url")
        #expect(rejectCode("wss://") == "invalid-url")
        #expect(rejectCode("ftp://gateway.example.com") == "not-a-payload")
    }

    @Test func embeddedCodes() throws {
        let code = "eyJ1cmwiOiJ3c3M6Ly9nYXRld2F5LnRhaWxuZXQudHMubmV0IiwiYm9vdHN0cmFwVG9rZW4iOiJ0b2sifQ"
        #expect(try decode("Run: openclaw connect oc-pair://\(code)").bootstrapToken == "tok")
        #expect(try decode("Setup code: [\(code)]!").form == .embeddedCode)
        #expect(try decode("“\(code)”").form == .embeddedCode)
        #expect(try decode("oc-pair://\(code)").form == .prefixedCode)
        #expect(try decode("  oc-pair://  \(code)  ").form == .prefixedCode)
        // A rejected candidate lets a later one win; if none wins, the first rejection is reported.
        let insecure = SetupCode.encode(json: [ "url": "ws://attacker.example", "bootstrapToken": "x" ])
        #expect(try decode("first \(insecure) then \(code)").bootstrapToken == "tok")
        #expect(rejectCode("only \(insecure) here") == "insecure-plaintext-host")
        // Code-shaped junk that is not a payload is skipped.
        #expect(rejectCode("token aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa here") == "not-a-payload")
    }

    @Test func credentialsKeptExactly() throws {
        let d = try decode(#"{"url":"wss://g.example.com","bootstrapToken":"  spaced\u001b[31m ","token":"","password":"p\u0000w"}"#)
        #expect(d.bootstrapToken == "  spaced\u{1b}[31m ")
        #expect(d.token == "")
        #expect(d.password == "p\u{0}w")
    }
}
