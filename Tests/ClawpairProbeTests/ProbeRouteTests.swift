@testable import ClawpairProbe
import ClawpairSetupCode
import Testing

@Suite struct ProbeRouteTests {
    func expand(_ text: String) throws -> (ProbeCandidates.Kind, [ProbeRoute]) {
        let result = try ProbeCandidates.expand(text)
        return (result.kind, result.routes)
    }

    @Test func urls() throws {
        let (kind, routes) = try expand("wss://GW.example.com/openclaw")
        #expect(kind == .url)
        #expect(routes.map(\.url) == ["wss://gw.example.com:443/openclaw"])
        #expect(routes[0].path == "/openclaw")
        #expect(try expand("ws://192.168.1.20").1.map(\.url) == ["ws://192.168.1.20:18789"])
        #expect(try expand("http://[fd00::5]:8080").1.map(\.url) == ["ws://[fd00::5]:8080"])
        #expect(try expand("https://gw.ts.net").1.first?.tls == true)
        #expect(try expand(" ws://10.0.0.1:1 ").1.first?.port == 1)
    }

    @Test func hostPortUsesTheManualHostRule() throws {
        let (kind, lan) = try expand("192.168.1.20")
        #expect(kind == .hostPort)
        #expect(lan.map(\.url) == ["ws://192.168.1.20:18789"])
        #expect(try expand("gw.local:9000").1.map(\.url) == ["ws://gw.local:9000"])
        #expect(try expand("[fd00::2]:18789").1.map(\.url) == ["ws://[fd00::2]:18789"])
        // Public and tailnet hosts are dialed over TLS.
        #expect(try expand("gw.example.com").1.map(\.url) == ["wss://gw.example.com:18789"])
        #expect(try expand("100.101.102.103:18789").1.map(\.url) == ["wss://100.101.102.103:18789"])
        #expect(try expand("localhost").1.map(\.url) == ["ws://localhost:18789"])
    }

    @Test func plaintextPolicy() throws {
        #expect(try expand("ws://8.8.8.8:18789").1[0].plaintextRefused)
        #expect(try expand("ws://gw.tail1234.ts.net").1[0].plaintextRefused)
        #expect(!(try expand("ws://10.1.2.3").1[0].plaintextRefused))
        #expect(!(try expand("wss://8.8.8.8").1[0].plaintextRefused))
    }

    @Test func setupCodeRoutesInOrderWithThePinOnThePrimary() throws {
        let pin = String(repeating: "ab", count: 32)
        let (code, _) = try SetupCode.make(urls: ["wss://gw.example.com", "ws://192.168.1.20:18789", "wss://gw.tail.ts.net:8443"],
                                           bootstrapToken: "bootstrap-abc", expiresAtMs: 1_900_000_000_000, tlsFingerprint: pin,
                                           defaultScheme: .wss)
        let (kind, routes) = try expand(code)
        #expect(kind == .setupCode(hasCredentials: true))
        #expect(routes.map(\.url) == ["wss://gw.example.com:443", "ws://192.168.1.20:18789", "wss://gw.tail.ts.net:8443"])
        #expect(routes.map(\.pin) == [pin, nil, nil])
        #expect(routes[0].pinSource == .setupCode)
        #expect(routes.map(\.source) == [.setupCode(code: 0, route: 0), .setupCode(code: 0, route: 1), .setupCode(code: 0, route: 2)])
        #expect(routes[1].input == "setup code #1 route 2")
        // The oc-pair:// form and text around it work too.
        #expect(try expand("Scan or paste: oc-pair://\(code) thanks").1.count == 3)
    }

    @Test func droppedPlaintextRoutesComeLastToBeReported() throws {
        let json = #"{"url":"wss://gw.example.com","urls":["wss://gw.example.com","ws://203.0.113.9:18789"],"bootstrapToken":"t"}"#
        let (_, routes) = try expand(json)
        #expect(routes.map(\.url) == ["wss://gw.example.com:443", "ws://203.0.113.9:18789"])
        #expect(routes[1].source == .setupCodeDropped(code: 0))
        #expect(routes[1].plaintextRefused)
        // Every route refused: still reported, as needing wss://.
        let (_, only) = try expand(#"{"url":"ws://203.0.113.9:18789","bootstrapToken":"t"}"#)
        #expect(only.count == 1 && only[0].plaintextRefused)
    }

    @Test func pinOptionsFillOnlyUnpinnedTLSRoutes() throws {
        let own = String(repeating: "ab", count: 32), option = String(repeating: "cd", count: 32)
        var routes = [
            ProbeRoute(host: "a", port: 1, tls: true, input: "a", source: .url, pin: own, pinSource: .setupCode),
            ProbeRoute(host: "b", port: 1, tls: true, input: "b", source: .url),
            ProbeRoute(host: "10.0.0.1", port: 1, tls: false, input: "c", source: .url),
        ]
        ProbeCandidates.applyPin(option, source: .caller, to: &routes)
        #expect(routes.map(\.pin) == [own, option, nil])
        #expect(routes.map(\.pinSource) == [.setupCode, .caller, nil])
    }

    @Test func discoveredGatewaysUseTheirSRVTargetAndAnswerAddresses() {
        let route = ProbeCandidates.discovered(instance: "Studio (OpenClaw)", host: "Studio.local.", port: 18789, tls: true,
                                               addresses: ["10.250.0.2", "fd00:c1a0::2"])
        #expect(route.url == "wss://studio.local:18789")
        #expect(route.source == .discovered(instance: "Studio (OpenClaw)"))
        #expect(route.knownAddresses == ["10.250.0.2", "fd00:c1a0::2"])
        #expect(route.pin == nil, "an advertised fingerprint never becomes a pin")
        #expect(!ProbeCandidates.discovered(instance: "x", host: "x.local", port: 1, tls: false, addresses: []).plaintextRefused)
    }

    @Test func refusals() {
        #expect(throws: ProbeCandidateError.unrecognized("ws://")) { try expand("ws://") }
        #expect(throws: ProbeCandidateError.unrecognized("gw.example.com/path")) { try expand("gw.example.com/path") }
        #expect(throws: ProbeCandidateError.unrecognized("ftp://x")) { try expand("ftp://x") }
        #expect(throws: ProbeCandidateError.unrecognized("")) { try expand("   ") }
        #expect(throws: ProbeCandidateError.self) { try expand(#"{"url": 5}"#) }
    }

    @Test func redaction() {
        #expect(ProbeCandidates.redacted("gw.local") == "gw.local")
        #expect(ProbeCandidates.redacted(String(repeating: "A", count: 80)) == "AAAAAAAA…")
    }
}

@Suite struct GatewayChallengeTests {
    @Test func parses() throws {
        let text = #"{"type":"event","event":"connect.challenge","payload":{"nonce":"9f1c","ts":1737264000000}}"#
        #expect(try GatewayChallenge.parse(text).get() == GatewayChallenge(nonce: "9f1c", timestamp: 1_737_264_000_000))
        #expect(try GatewayChallenge.parse(#"{"type":"event","event":"connect.challenge","payload":{"nonce":"n"}}"#).get().timestamp == nil)
    }

    @Test(arguments: [
        ("not json", "the first message is not JSON"),
        (#"{"type":"res","id":"1","ok":true}"#, "the first message is not an event ('res')"),
        (#"{"event":"connect.challenge"}"#, "the first message is not an event (no type)"),
        (#"{"type":"event","event":"tick"}"#, "the first event is 'tick', not 'connect.challenge'"),
        (#"{"type":"event","event":"connect.challenge","payload":{}}"#, "the connect.challenge event has no nonce"),
        (#"{"type":"event","event":"connect.challenge","payload":{"nonce":""}}"#, "the connect.challenge event has no nonce"),
        (#"[1,2]"#, "the first message is not an event (no type)"),
    ])
    func refusals(text: String, detail: String) {
        #expect(GatewayChallenge.parse(text) == .failure(GatewayChallenge.NotAChallenge(detail: detail)))
    }
}
