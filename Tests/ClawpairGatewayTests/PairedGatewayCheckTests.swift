import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairTransport
import Foundation
import Testing
@testable import ClawpairGateway

/// `gateways check` as a library call: one connect per stored token over the record's URLs, with
/// a scripted gateway (no sockets); and the registry helpers it uses.
@Suite struct PairedGatewayCheckTests {
    /// Answers each connect from `answers[url]` (in order per URL) and records what was asked.
    final class ScriptedURLs: PairingTransport {
        var answers: [String: [Result<HelloOK, GatewayError>]]
        private(set) var connects: [(request: ConnectRequest, endpoint: GatewayEndpoint)] = []

        init(_ answers: [String: [Result<HelloOK, GatewayError>]]) { self.answers = answers }

        func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport {
            ProbeReport(results: [], winner: nil, elapsed: .zero, timedOut: false)
        }

        func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                     timeout: Duration) throws(GatewayError) -> PairingHello {
            connects.append((request, endpoint))
            guard var queue = answers[endpoint.url], !queue.isEmpty else { throw .notConnected }
            let answer = queue.removeFirst()
            answers[endpoint.url] = queue
            switch answer {
            case .success(let hello): return PairingHello(hello: hello)
            case .failure(let error): throw error
            }
        }
    }

    static func hello(role: String, scopes: [String]) -> Result<HelloOK, GatewayError> {
        .success(HelloOK(.object([("type", "hello-ok"), ("protocol", 3),
                                  ("auth", .object([("role", .string(role)), ("scopes", .array(scopes.map(JSONValue.string)))]))]))!)
    }

    static func hello(role: String, scopes: [String], deviceToken: String) -> Result<HelloOK, GatewayError> {
        .success(HelloOK(.object([("type", "hello-ok"), ("protocol", 3),
                                  ("auth", .object([("role", .string(role)), ("scopes", .array(scopes.map(JSONValue.string))),
                                                    ("deviceToken", .string(deviceToken)), ("issuedAtMs", 99)]))]))!)
    }

    static let lan = "ws://192.168.1.5:18789", tls = "wss://gw.example.com:443"
    static let refusal = GatewayError.authRejected(GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized: token revoked"))
    static let down = GatewayError.unreachable(url: lan, phase: "tcp", reason: "connection refused")

    static func gateway(urls: [String] = [tls, lan], deviceId: String) -> PairedGateway {
        var gateway = PairedGateway(name: "home", urls: urls, tlsFingerprint: String(repeating: "ab", count: 32), deviceId: deviceId,
                                    pairedAtMs: 10, deviceName: "kitchen-pi")
        gateway.store(StoredDeviceToken(token: "node-token", role: "node", scopes: [], issuedAtMs: 11))
        gateway.store(StoredDeviceToken(token: "op-token", role: "operator", scopes: ["operator.read"], issuedAtMs: 12))
        return gateway
    }

    @Test("each role connects as its own client with its stored token; an unreachable URL moves on, any answer ends the role")
    func rolesAndURLs() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let gateway = Self.gateway(deviceId: identity.deviceId)
        let transport = ScriptedURLs([Self.tls: [.failure(Self.down), .failure(Self.refusal)],
                                      Self.lan: [Self.hello(role: "node", scopes: [])]])
        let check = gateway.checkTokens(identity: identity, timeout: .seconds(1), transport: transport)

        #expect(check.results.map(\.role) == ["node", "operator"])
        #expect(check.results.map(\.verdict) == [.accepted, .refused])
        #expect(check.answeredURL == Self.lan, "the URL that answered a connect")
        #expect(transport.connects.map(\.endpoint.url) == [Self.tls, Self.lan, Self.tls], "the refusal is final: the LAN URL is not tried")
        #expect(transport.connects.map(\.request.role) == [.node, .node, .operator])
        #expect(transport.connects.map(\.request.client.id) == ["node-host", "node-host", "cli"])
        #expect(transport.connects.map(\.request.auth.token) == ["node-token", "node-token", "op-token"])
        #expect(transport.connects.map(\.request.scopes) == [[], [], ["operator.read"]], "a node asks for no scopes")
        #expect(transport.connects.allSatisfy { $0.request.client.displayName == "kitchen-pi" })
        #expect(transport.connects[0].endpoint.pin == gateway.tlsFingerprint, "wss:// gets the stored pin")
        #expect(transport.connects[1].endpoint.pin == nil, "ws:// gets none")
    }

    @Test("a pin given replaces the stored one; a record without a URL that parses is notConnected for each role")
    func pinAndNoURL() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let pin = String(repeating: "cd", count: 32)
        let transport = ScriptedURLs([Self.tls: [Self.hello(role: "node", scopes: []), Self.hello(role: "operator", scopes: ["operator.read"])]])
        let check = Self.gateway(deviceId: identity.deviceId).checkTokens(identity: identity, pin: pin, timeout: .seconds(1), transport: transport)
        #expect(transport.connects.map(\.endpoint.pin) == [pin, pin])
        #expect(check.results.map(\.summary) == ["accepted", "accepted (scopes operator.read)"])

        let none = ScriptedURLs([:])
        let broken = Self.gateway(urls: ["not a url"], deviceId: identity.deviceId)
        let nothing = broken.checkTokens(identity: identity, timeout: .seconds(1), transport: none)
        #expect(none.connects.isEmpty)
        #expect(nothing.answeredURL == nil)
        #expect(nothing.results.map(\.verdict) == [.unreachable, .unreachable])
    }

    @Test("verdicts, summaries and JSON: granted scopes only when accepted, the caller's error rendering for failures")
    func resultJSON() {
        let accepted = StoredTokenCheck(role: "operator", outcome: Self.hello(role: "operator", scopes: ["operator.read", "operator.write"]))
        let refused = StoredTokenCheck(role: "node", outcome: .failure(Self.refusal))
        let down = StoredTokenCheck(role: "node", outcome: .failure(Self.down))
        let failed = StoredTokenCheck(role: "node", outcome: .failure(.protocolViolation("bad frame")))
        #expect([accepted, refused, down, failed].map(\.summary) == ["accepted (scopes operator.read,operator.write)", "refused",
                                                                      "unreachable", "failed"])
        #expect(accepted.json() == .object([("role", "operator"), ("ok", true), ("scopes", ["operator.read", "operator.write"]),
                                            ("error", .null)]))
        let error: JSONValue = .object([("code", "refused")])
        #expect(refused.json(error: error) == .object([("role", "node"), ("ok", false), ("scopes", []), ("error", error)]))
        let check = PairedGatewayCheck(results: [accepted, refused], answeredURL: Self.lan)
        #expect(check.json(gatewayID: "gw-1", errors: [.null, error]) == .object([
            ("gateway", "gw-1"), ("url", .string(Self.lan)), ("results", .array([accepted.json(), refused.json(error: error)])),
        ]))
        #expect(PairedGatewayCheck(results: [refused], answeredURL: nil).json(gatewayID: "gw-1")
                == .object([("gateway", "gw-1"), ("url", .null), ("results", [refused.json()])]))
    }

    @Test("a token the gateway issues anew in hello-ok is reported (the same one is not) and recordAnswer stores it for its role")
    func reissuedTokens() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let gateway = Self.gateway(deviceId: identity.deviceId)
        let transport = ScriptedURLs([Self.tls: [Self.hello(role: "node", scopes: [], deviceToken: "node-token"),
                                                 Self.hello(role: "operator", scopes: ["operator.read"], deviceToken: "op-token-2")]])
        let check = gateway.checkTokens(identity: identity, timeout: .seconds(1), transport: transport)
        #expect(check.reissued == [StoredDeviceToken(token: "op-token-2", role: "operator", scopes: ["operator.read"], issuedAtMs: 99)])
        try GatewayRegistryTests.withRegistry { registry, _ in
            try registry.save(gateway)
            let written = try registry.recordAnswer(id: gateway.id, url: Self.tls, nowMs: 5_000, reissued: check.reissued)
            #expect(written?.token(for: "operator", deviceId: identity.deviceId)?.token == "op-token-2")
            #expect(written?.token(for: "node", deviceId: identity.deviceId)?.token == "node-token")
            #expect(try registry.gateway(named: "home").token(for: "operator", deviceId: identity.deviceId)?.token == "op-token-2")
        }
    }

    @Test("holdsTokens: tokens stored, for this identity")
    func holdsTokens() {
        #expect(Self.gateway(deviceId: "d1").holdsTokens(for: "d1"))
        #expect(!Self.gateway(deviceId: "d1").holdsTokens(for: "d2"))
        #expect(!PairedGateway(name: "bare", urls: [Self.lan], deviceId: "d1", pairedAtMs: 1).holdsTokens(for: "d1"))
    }

    @Test("recordAnswer puts the URL first and sets last seen on the record as it is now; namedOrChosen falls back to the chosen one")
    func registryHelpers() throws {
        try GatewayRegistryTests.withRegistry { registry, _ in
            #expect(throws: GatewayRegistryError.unknownGateway("(default)", known: [])) { try registry.gateway(namedOrChosen: nil) }
            let gateway = Self.gateway(deviceId: "d1")
            try registry.save(gateway)
            #expect(throws: GatewayRegistryError.unknownGateway("(default)", known: ["home"])) { try registry.gateway(namedOrChosen: nil) }
            try registry.setActive(gateway)
            #expect(try registry.gateway(namedOrChosen: nil).id == gateway.id)
            #expect(try registry.gateway(namedOrChosen: "home").id == gateway.id)
            // Meanwhile another process renamed it: the answer is recorded on that record, not over it.
            _ = try registry.update(id: gateway.id) { $0.name = "renamed" }
            let written = try registry.recordAnswer(id: gateway.id, url: Self.lan, nowMs: 5_000)
            #expect(written?.urls == [Self.lan, Self.tls])
            #expect(written?.lastSeenAtMs == 5_000)
            #expect(try registry.gateway(named: "renamed").urls == [Self.lan, Self.tls])
            try registry.forget(gateway)
            #expect(try registry.recordAnswer(id: gateway.id, url: Self.lan, nowMs: 6_000) == nil, "a forgotten record stays gone")
        }
    }

    @Test("recordAnswer only reorders: a route another process removed meanwhile is not put back (two store instances)")
    func recordAnswerKeepsARemovedRouteRemoved() throws {
        try GatewayRegistryTests.withRegistry { session, home in
            let other = GatewayRegistry(home: home)  // another process on the same registry
            let gateway = Self.gateway(deviceId: "d1")
            try session.save(gateway)
            // The session connected over lan; meanwhile the other process removed that route.
            _ = try other.update(id: gateway.id) { $0.urls.removeAll { $0 == Self.lan } }
            let written = try session.recordAnswer(id: gateway.id, url: Self.lan, nowMs: 7_000)
            #expect(written?.urls == [Self.tls], "the removed route stays removed")
            #expect(written?.lastSeenAtMs == 7_000)
            #expect(other.snapshot().gateway(id: gateway.id)?.urls == [Self.tls], "as the other instance reads it")
            // A route still present moves first, matched however the session spelled it.
            _ = try other.update(id: gateway.id) { $0.urls = [Self.tls, "WS://192.168.1.5:18789/"] }
            let moved = try session.recordAnswer(id: gateway.id, url: Self.lan, nowMs: 8_000)
            #expect(moved?.urls == ["WS://192.168.1.5:18789/", Self.tls], "reordered, not added twice")
            #expect(other.snapshot().gateway(id: gateway.id)?.urls == ["WS://192.168.1.5:18789/", Self.tls])
        }
    }

    @Test("sameRoute: the same endpoint however its case and trailing slash are spelled; another host or scheme is another route")
    func sameRoute() {
        #expect(PairedGateway.sameRoute("ws://192.168.1.5:18789", "WS://192.168.1.5:18789/"))
        #expect(!PairedGateway.sameRoute("ws://192.168.1.5:18789", "ws://192.168.1.6:18789"))
        #expect(!PairedGateway.sameRoute("ws://192.168.1.5:18789", "wss://192.168.1.5:18789"))
    }
}
