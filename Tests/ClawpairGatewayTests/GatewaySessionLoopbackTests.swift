import ClawpairCore
import ClawpairIdentity
import ClawpairTestSupport
import Foundation
import Synchronization
import Testing
@testable import ClawpairGateway

/// A session to a paired gateway against the stand-in gateway on loopback: it survives the
/// gateway's restart (a 1012 close, then a new process on the same port and state), closes a
/// silent gateway with 4000 and reconnects, and ends calls and itself promptly when stopped.
@Suite("Gateway session (loopback)", .serialized)
struct GatewaySessionLoopbackTests {
    static let token = "session-test-token-0123456789"
    /// One client block for pairing and the session, so the gateway's pinned metadata matches.
    static let client = GatewayClientInfo.operatorCLI(version: "test", platform: "Linux")

    /// Everything the session reported, for the test thread to wait on.
    final class EventLog: Sendable {
        private let events = Watched<[GatewaySessionEvent]>([])

        func append(_ event: GatewaySessionEvent) { events.update { $0.append(event) } }
        var all: [GatewaySessionEvent] { events.value }

        var connectedCount: Int { all.filter { if case .connected = $0 { return true } else { return false } }.count }
        var disconnects: [(GatewayError, Duration?)] {
            all.compactMap { if case .disconnected(let error, let retry) = $0 { return (error, retry) } else { return nil } }
        }
        var ended: GatewayError?? {
            for event in all { if case .ended(let error) = event { return .some(error) } }
            return nil
        }

        /// Waits until `condition` holds, looking again at each event (a hang bound only, not a
        /// timing assertion).
        func wait(_ what: String, until condition: @escaping @Sendable () -> Bool) async throws {
            guard await events.wait(until: { _ in condition() }) else { throw TestError("no \(what); events: \(all)") }
        }
    }

    static func home() -> String {
        NSTemporaryDirectory() + "clawpair-session-\(UUID().uuidString.prefix(8))"
    }

    /// Pairs a fresh device as an operator (loopback connects are approved silently) and stores
    /// its record, as pairing would.
    static func paired(_ url: String, home: String) throws -> (GatewayRegistry, PairedGateway, DeviceIdentity) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: url))
        try client.open(timeout: .seconds(5))
        let hello = try client.connect(ConnectRequest(client: Self.client, role: .operator, scopes: ConnectRequest.operatorScopes,
                                                      auth: ConnectAuth(token: token), payloadVersion: .v3),
                                       identity: identity, timeout: .seconds(5))
        client.close()
        let issued = try #require(hello.deviceToken)
        let registry = GatewayRegistry(home: home)
        let record = PairedGateway(name: "lab", urls: [url], deviceId: identity.deviceId, tokens: [issued], pairedAtMs: 0)
        try registry.save(record)
        return (registry, record, identity)
    }

    static func options(jitter: Double = 0) -> GatewaySessionOptions {
        GatewaySessionOptions(role: .operator, client: client, connectTimeout: .seconds(5),
                              reconnect: ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(400), jitter: jitter))
    }

    @Test("the session survives a gateway restart: 1012 reconnects at once, then it retries until the gateway is back")
    func survivesRestart() async throws {
        let home = Self.home()
        var options = TestGatewayOptions(token: Self.token)
        options.stateFile = home + "/gateway-state.json"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let first = try await startTestGateway(options)
        let (registry, record, identity) = try Self.paired(first.url, home: home)
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: Self.options())
        let log = EventLog()
        session.start { log.append($0) }
        try await log.wait("first hello-ok") { log.connectedCount == 1 }
        _ = try await session.call("device.pair.list", timeout: .seconds(5))

        await first.stop()
        try await log.wait("the 1012 close") { !log.disconnects.isEmpty }
        let (error, retry) = log.disconnects[0]
        #expect(error == .closed(code: 1012, reason: "service restart", during: "the session"))
        #expect(retry == .zero)

        var again = options
        again.port = first.port
        let second = try await startTestGateway(again)
        try await log.wait("hello-ok after the restart") { log.connectedCount == 2 }
        let payload = try await session.call("device.pair.list", timeout: .seconds(5))
        #expect(payload["paired"] != nil || payload["pending"] != nil)
        // The registry saw the answer (last seen, URL first).
        #expect(try registry.gateway(named: "lab").lastSeenAtMs != nil)

        session.stop()
        try await log.wait("the end") { log.ended != nil }
        #expect(log.ended == .some(nil))
        await second.stop()
    }

    @Test("a gateway that stops ticking is closed with 4000 \"tick timeout\" and the session connects again")
    func tickSilence() async throws {
        let home = Self.home()
        var options = TestGatewayOptions(token: Self.token)
        options.fault = .stallCall
        options.tickMs = 200
        try await withTestGateway(options) { gateway in
            let (registry, record, identity) = try Self.paired(gateway.url, home: home)
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: Self.options())
            let log = EventLog()
            session.start { log.append($0) }
            defer { session.stop() }
            try await log.wait("hello-ok") { log.connectedCount == 1 }
            // The first call stalls and the gateway stops ticking on that connection.
            let stalled = Task { try await session.call("device.pair.list", timeout: .seconds(60)) }
            try await log.wait("the silence verdict") { !log.disconnects.isEmpty }
            guard case .stalled = log.disconnects[0].0 else {
                Issue.record("expected stalled, got \(log.disconnects[0].0)")
                return
            }
            let closed = try await gateway.waitForLog("session-closed") { $0["code"] as? Int == 4000 }
            #expect(closed["reason"] as? String == "tick timeout")
            // The stalled call failed with the connection; the session is back.
            let outcome = await stalled.result
            #expect(throws: GatewayError.self) { try outcome.get() }
            try await log.wait("hello-ok again") { log.connectedCount == 2 }
        }
    }

    @Test("the policy's silence factor and close code reach the watch")
    func tickSilencePolicy() async throws {
        let home = Self.home()
        var options = TestGatewayOptions(token: Self.token)
        options.fault = .stallCall
        options.tickMs = 100
        try await withTestGateway(options) { gateway in
            let (registry, record, identity) = try Self.paired(gateway.url, home: home)
            var sessionOptions = Self.options()
            sessionOptions.reconnect.tickSilenceFactor = 3
            sessionOptions.reconnect.tickTimeoutCloseCode = 4321
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: sessionOptions)
            let log = EventLog()
            session.start { log.append($0) }
            defer { session.stop() }
            try await log.wait("hello-ok") { log.connectedCount == 1 }
            session.send("device.pair.list", timeout: .seconds(60)) { _ in }
            try await log.wait("the silence verdict") { !log.disconnects.isEmpty }
            guard case .stalled(let silent, let tick) = log.disconnects[0].0 else {
                Issue.record("expected stalled, got \(log.disconnects[0].0)")
                return
            }
            #expect(tick == .milliseconds(100))
            #expect(silent > .milliseconds(300))
            // The pairing connection's own close (1000) comes first; the session's is the other one.
            let closed = try await gateway.waitForLog("session-closed") { $0["code"] as? Int != 1000 }
            #expect(closed["code"] as? Int == 4321)
            #expect(closed["reason"] as? String == "tick timeout")
        }
    }

    @Test("stopping the session ends a call in flight with cancelled, and the session with ended(nil)")
    func stopEndsCall() async throws {
        let home = Self.home()
        var options = TestGatewayOptions(token: Self.token)
        options.fault = .stallCall
        try await withTestGateway(options) { gateway in
            let (registry, record, identity) = try Self.paired(gateway.url, home: home)
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: Self.options())
            let log = EventLog()
            session.start { log.append($0) }
            try await log.wait("hello-ok") { log.connectedCount == 1 }
            // The blocking call waits on a thread of its own, not on the cooperative pool.
            let call = Task { try await LoopThread.run { (_: StopSignal) throws(GatewayError) -> JSONValue in
                try session.call("device.pair.list", timeout: .seconds(600))
            } }
            _ = try await gateway.waitForLog("rpc") { $0["code"] as? String == "FAULT" }
            session.stop()
            let outcome = await call.result
            #expect(throws: GatewayError.cancelled) { try outcome.get() }
            try await log.wait("the end") { log.ended != nil }
            #expect(log.ended == .some(nil))
        }
    }

    @Test("cancelling the task of an async call returns cancelled; the session stays up")
    func asyncCallCancellation() async throws {
        let home = Self.home()
        var options = TestGatewayOptions(token: Self.token)
        options.fault = .stallCall
        try await withTestGateway(options) { gateway in
            let (registry, record, identity) = try Self.paired(gateway.url, home: home)
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: Self.options())
            let log = EventLog()
            session.start { log.append($0) }
            defer { session.stop() }
            try await log.wait("hello-ok") { log.connectedCount == 1 }
            let call = Task { try await session.call("device.pair.list", timeout: .seconds(600)) }
            _ = try await gateway.waitForLog("rpc") { $0["code"] as? String == "FAULT" }
            call.cancel()
            let outcome = await call.result
            #expect(throws: GatewayError.cancelled) { try outcome.get() }
            #expect(session.hello != nil)
        }
    }

    @Test("a refused token ends the session for good; a call after that fails at once with that error")
    func refusedTokenEnds() async throws {
        let home = Self.home()
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let (registry, paired, identity) = try Self.paired(gateway.url, home: home)
            var record = paired
            record.tokens = record.tokens.map { var token = $0; token.token = "not-the-issued-token"; return token }
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: Self.options())
            let log = EventLog()
            session.start { log.append($0) }
            try await log.wait("the end") { log.ended != nil }
            let ending = try #require(log.ended ?? nil)
            #expect(ending.isRefusal, "\(ending)")
            #expect(log.connectedCount == 0)
            let outcome = await Task { try await session.call("device.pair.list", timeout: .seconds(600)) }.result
            #expect(throws: ending) { try outcome.get() }
        }
    }

    @Test("a node on a protocol-3 gateway: 4…4 is refused with PROTOCOL_MISMATCH expectedProtocol 3, 3…3 follows at once and connects, and no disconnected event says so")
    func nodeFallsBackToProtocolThree() async throws {
        let home = Self.home()
        var options = TestGatewayOptions(token: Self.token)
        options.extraArguments = ["--protocol", "3"]
        try await withTestGateway(options) { gateway in
            // A loopback node connect with the shared token is approved silently and gets a node token.
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url))
            try client.open(timeout: .seconds(5))
            let node = GatewayClientInfo.nodeHost(version: "test", displayName: "lab-node")
            let hello = try client.connect(ConnectRequest(client: node, role: .node, scopes: [], auth: ConnectAuth(token: Self.token)),
                                           identity: identity, timeout: .seconds(5))
            client.close()
            #expect(hello.protocolVersion == 3)
            let registry = GatewayRegistry(home: home)
            let record = PairedGateway(name: "lab", urls: [gateway.url], deviceId: identity.deviceId,
                                       tokens: [try #require(hello.deviceToken)], pairedAtMs: 0, deviceName: "lab-node")
            try registry.save(record)
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                             options: GatewaySessionOptions(role: .node, client: node, connectTimeout: .seconds(5)))
            let log = EventLog()
            session.start { log.append($0) }
            defer { session.stop() }
            try await log.wait("a connection") { log.connectedCount == 1 }
            #expect(session.hello?.protocolVersion == 3)
            // The fallback is a step of the attempt, not a disconnection: no event says it.
            #expect(log.disconnects.isEmpty, "\(log.disconnects)")
        }
    }

    @Test("a renewed certificate behind several routes is reported as a pin mismatch, never accepted, and retried when the policy says so")
    func pinMismatchAcrossRoutes() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        var options = TestGatewayOptions(token: Self.token)
        options.certificate = certificate
        try await withTestGateway(options) { gateway in
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            let stale = String(repeating: "ab", count: 32)
            // Two routes: the gateway (its certificate renewed) and one where nothing listens, so they are raced.
            let record = PairedGateway(name: "lab", urls: [gateway.url, "wss://127.0.0.1:9"], tlsFingerprint: stale, deviceId: identity.deviceId,
                                       tokens: [StoredDeviceToken(token: "t", role: "operator", scopes: [], issuedAtMs: nil)], pairedAtMs: 0)
            let session = try GatewaySession(gateway: record, registry: nil, identity: identity,
                                             options: GatewaySessionOptions(role: .operator, connectTimeout: .seconds(5),
                                                                            reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), jitter: 0,
                                                                                                       retriesChangedCertificate: true)))
            let log = EventLog()
            session.start { log.append($0) }
            defer { session.stop() }
            try await log.wait("two refused attempts") { log.disconnects.count >= 2 }
            for (error, retry) in log.disconnects.prefix(2) {
                guard case .tlsTrust(let url, .pinMismatch(let expected, let observed)) = error else {
                    throw TestError("not a pin mismatch: \(error)")
                }
                #expect(url.hasPrefix("wss://127.0.0.1:") && expected == stale && observed == certificate.fingerprint)
                #expect(retry != nil)
            }
            #expect(log.connectedCount == 0)
        }
    }

    @Test("a session without a stored token for its role is refused before it starts")
    func noToken() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let record = PairedGateway(name: "lab", urls: ["ws://127.0.0.1:9"], deviceId: identity.deviceId, pairedAtMs: 0)
        #expect(throws: GatewayError.self) {
            _ = try GatewaySession(gateway: record, registry: nil, identity: identity, options: GatewaySessionOptions(role: .node))
        }
    }
}
