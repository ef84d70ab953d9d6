import ClawpairCore
import ClawpairIdentity
import Foundation
import ClawpairTestSupport
import Synchronization
import Testing
@testable import ClawpairGateway

/// The session's decisions without sockets or sleeps: a scripted gateway answers each attempt
/// (through the session's connector seam) and a manual clock moves only when the session waits.
/// Refused device tokens (cleared, terminal), the other terminal refusals, and upstream's node
/// protocol negotiation (4…4, then 3…3, back to 4 with a 1012 close).
@Suite struct GatewaySessionTests {
    /// What the scripted gateway does with one attempt.
    enum Answer: Sendable {
        /// Refuses the connect with this error.
        case refuse(GatewayError)
        /// hello-ok at this protocol; the connection then ends with `end`.
        case hello(protocolVersion: Int64, end: GatewayError)
        /// hello-ok; the connection lasts until the session is stopped.
        case helloUntilStopped
    }

    /// Answers attempts in order; stops the session when the script runs out.
    final class ScriptedConnector: GatewaySessionConnector {
        private let state: Mutex<(answers: [Answer], requests: [ConnectRequest], closes: [(UInt16, String)])>

        init(_ answers: [Answer]) { state = Mutex((answers, [], [])) }

        var requests: [ConnectRequest] { state.withLock { $0.requests } }
        var closes: [(UInt16, String)] { state.withLock { $0.closes } }

        func connect(urls: [String], pin: String?, request: ConnectRequest,
                     session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
            let answer = state.withLock { state -> Answer? in
                state.requests.append(request)
                return state.answers.isEmpty ? nil : state.answers.removeFirst()
            }
            switch answer {
            case nil:
                session.stop()
                return .failure(.cancelled)
            case .refuse(let error):
                return .failure(error)
            case .hello(let version, let end):
                let payload: JSONValue = .object([("type", "hello-ok"), ("protocol", .int(version))])
                return .success(ScriptedLink(url: urls.first ?? "", hello: HelloOK(payload)!, end: end) { code, reason in
                    self.state.withLock { $0.closes.append((code, reason)) }
                })
            case .helloUntilStopped:
                let payload: JSONValue = .object([("type", "hello-ok"), ("protocol", 4)])
                return .success(ScriptedLink(url: urls.first ?? "", hello: HelloOK(payload)!, end: nil) { code, reason in
                    self.state.withLock { $0.closes.append((code, reason)) }
                })
            }
        }
    }

    final class ScriptedLink: GatewaySessionLink {
        let url: String
        let hello: HelloOK
        /// nil: until the session stops.
        let end: GatewayError?
        let onClose: (UInt16, String) -> Void

        init(url: String, hello: HelloOK, end: GatewayError?, onClose: @escaping (UInt16, String) -> Void) {
            self.url = url
            self.hello = hello
            self.end = end
            self.onClose = onClose
        }

        func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
            if let end { return end }
            // Until the session stops, however long a loaded machine takes to get there: only a
            // hang ends the connection by itself (then closed with 1000, not stopCloseCode).
            session.stopSignal.wait(bound: hangBound)
            return .cancelled
        }
        func close(code: UInt16, reason: String) { onClose(code, reason) }
    }

    /// The session's events so far; a test waits on them (``wait(until:)``).
    final class Events: Sendable {
        private let events = Watched<[GatewaySessionEvent]>([])
        func append(_ event: GatewaySessionEvent) { events.update { $0.append(event) } }
        var disconnects: [(GatewayError, Duration?)] { events.value.disconnects }
        /// The attempt numbers of the `connecting` events.
        var connecting: [Int] { events.value.connecting }
        var connected: Int { events.value.connected }
        var ended: GatewayError?? { events.value.ended }

        /// Blocks until `condition` holds for the events (false after the hang bound).
        func wait(until condition: ([GatewaySessionEvent]) -> Bool) -> Bool { events.wait(until: condition) }
        /// Suspends until `condition` holds for the events (false after the hang bound).
        func wait(until condition: @escaping @Sendable ([GatewaySessionEvent]) -> Bool) async -> Bool {
            await events.wait(until: condition)
        }
    }

    static func shape(_ detail: String, _ extra: [(String, JSONValue)] = []) -> GatewayErrorShape {
        GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized", details: .object([("code", .string(detail))] + extra))
    }

    /// A registry in a fresh directory holding one gateway with a node and an operator token.
    static func paired() throws -> (GatewayRegistry, PairedGateway, DeviceIdentity) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let home = NSTemporaryDirectory() + "clawpair-session-unit-\(UUID().uuidString.prefix(8))"
        let registry = GatewayRegistry(home: home)
        let record = PairedGateway(name: "lab", urls: ["ws://127.0.0.1:18789"], deviceId: identity.deviceId,
                                   tokens: [StoredDeviceToken(token: "node-token", role: "node", scopes: [], issuedAtMs: nil),
                                            StoredDeviceToken(token: "operator-token", role: "operator", scopes: [], issuedAtMs: nil)],
                                   pairedAtMs: 0)
        try registry.save(record)
        return (registry, record, identity)
    }

    /// Runs a node session over `answers` on this thread; its end, the events, the connector, the registry's record.
    static func run(_ answers: [Answer], role: GatewayRole = .node,
                    policy: ReconnectPolicy = ReconnectPolicy(jitter: 0)) throws
        -> (end: GatewayError?, events: Events, connector: ScriptedConnector, stored: PairedGateway?) {
        let (registry, record, identity) = try paired()
        let connector = ScriptedConnector(answers)
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: role, reconnect: policy),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 },
                                         jitterDraw: { 0 }, connector: connector)
        let events = Events()
        var end: GatewayError?
        do {
            try session.run { events.append($0) }
        } catch {
            end = error
        }
        return (end, events, connector, registry.snapshot().gateway(id: record.id))
    }

    @Test("AUTH_DEVICE_TOKEN_MISMATCH clears the role's token in the registry and ends the session with deviceTokenRevoked")
    func deviceTokenMismatchClearsToken() throws {
        let run = try Self.run([.refuse(.authRejected(Self.shape("AUTH_DEVICE_TOKEN_MISMATCH"))), .refuse(.notConnected)])
        #expect(run.end == .deviceTokenRevoked(role: "node", detail: "AUTH_DEVICE_TOKEN_MISMATCH"))
        #expect(run.connector.requests.count == 1, "no reconnect after the token was refused")
        #expect(run.stored?.tokens.map(\.role) == ["operator"], "only the node token is cleared")
        #expect(run.events.disconnects.last?.1 == nil)
        #expect(run.end?.code == "device-token-revoked" && run.end?.isRefusal == true)
    }

    @Test("a 1008 close \"device token mismatch\" on a live connection clears the token and ends the session")
    func closeReasonClearsToken() throws {
        let run = try Self.run([.hello(protocolVersion: 4, end: .closed(code: 1008, reason: "device token mismatch", during: "the session")),
                                .refuse(.notConnected)], role: .operator)
        #expect(run.end == .deviceTokenRevoked(role: "operator", detail: "1008 device token mismatch"))
        #expect(run.events.connected == 1 && run.connector.requests.count == 1)
        #expect(run.stored?.tokens.map(\.role) == ["node"])
    }

    @Test("AUTH_TOKEN_MISMATCH (the stored token is the session's only credential) is a refused device token too")
    func tokenMismatchIsTheStoredToken() throws {
        let run = try Self.run([.refuse(.authRejected(Self.shape("AUTH_TOKEN_MISMATCH")))])
        #expect(run.end == .deviceTokenRevoked(role: "node", detail: "AUTH_TOKEN_MISMATCH"))
        #expect(run.stored?.tokens.map(\.role) == ["operator"])
    }

    @Test("the node host's other terminal refusals end the session with their own error, the token kept",
          arguments: ["AUTH_TOKEN_MISSING", "AUTH_BOOTSTRAP_TOKEN_INVALID", "AUTH_PASSWORD_MISSING", "AUTH_PASSWORD_MISMATCH",
                      "CLIENT_VERSION_MISMATCH", "AUTH_IDENTITY_HEADER_REQUIRED"])
    func terminalRefusals(detail: String) throws {
        let error = GatewayError.connectFailure(Self.shape(detail))
        let run = try Self.run([.refuse(error), .refuse(.notConnected)])
        #expect(run.end == error)
        #expect(run.connector.requests.count == 1)
        #expect(run.stored?.tokens.count == 2)
    }

    @Test("a pending approval keeps trying at the policy's steady pace; a changed certificate only when the policy says so")
    func pendingApprovalAndCertificate() throws {
        let pending = GatewayError.pairingRequired(PairingRequired(requestId: "r1"))
        let changed = GatewayError.tlsTrust(url: "wss://x", .pinMismatch(expected: "a", observed: "b"))
        let policy = ReconnectPolicy(maxDelay: .seconds(4), jitter: 0, approvalRetryDelay: .seconds(1), retriesChangedCertificate: true)
        let run = try Self.run([.refuse(pending), .refuse(pending), .refuse(pending), .refuse(changed)], policy: policy)
        #expect(run.end == nil)
        #expect(run.events.disconnects.map(\.1) == [.seconds(1), .seconds(1), .seconds(1), .milliseconds(250)])
        let strict = try Self.run([.refuse(changed)])
        #expect(strict.end == changed)
    }

    @Test("a node offers 4…4; PROTOCOL_MISMATCH with expectedProtocol 3 is followed at once by a 3…3 offer")
    func fallsBackToLegacy() throws {
        let mismatch = GatewayError.protocolMismatch(Self.shape("PROTOCOL_MISMATCH", [("expectedProtocol", 3)]))
        let run = try Self.run([.refuse(mismatch), .hello(protocolVersion: 3, end: .closed(code: 1006, reason: "", during: "x")),
                                .refuse(mismatch), .refuse(.unreachable(url: "ws://x", phase: "tcp", reason: "refused"))])
        // After the legacy connection ends, 4…4 first again (the gateway may have been upgraded);
        // the legacy offer lasts across failed attempts.
        #expect(run.connector.requests.map(\.protocolRange) == [4...4, 3...3, 4...4, 3...3, 3...3])
        // The fallback is a step of the attempt, not a disconnection: one `connecting` for it,
        // no `disconnected` (a node logged "disconnected … next attempt in 0 ms" at every connect).
        #expect(run.events.connecting.prefix(2) == [1, 1])
        #expect(run.events.disconnects.map(\.0).prefix(1) == [.closed(code: 1006, reason: "", during: "x")])
        #expect(!run.events.disconnects.contains { $0.0 == mismatch })
        #expect(run.events.connected == 1)
        // The legacy envelope keeps the client block the pairing stored.
        #expect(run.connector.requests[1].client.deviceFamily == "Linux" && run.connector.requests[1].client.platform == "linux")
        let params = run.connector.requests[1].params(device: .null)
        #expect(params["minProtocol"]?.int64Value == 3 && params["maxProtocol"]?.int64Value == 3)
    }

    @Test("a legacy hello that reports a newer protocol is closed with 1012 \"gateway protocol upgraded\" and the next offer, at once, is 4…4")
    func legacyUpgradeGoesBackToFour() throws {
        let mismatch = GatewayError.protocolMismatch(Self.shape("PROTOCOL_MISMATCH", [("expectedProtocol", 3)]))
        let run = try Self.run([.refuse(mismatch), .hello(protocolVersion: 4, end: .notConnected),
                                .hello(protocolVersion: 4, end: .closed(code: 1006, reason: "", during: "x"))])
        #expect(run.connector.requests.map(\.protocolRange) == [4...4, 3...3, 4...4, 4...4])
        #expect(run.connector.closes.first.map { $0.0 == 1012 && $0.1 == "gateway protocol upgraded" } == true)
        // Down to 3 and up to 4 again are steps of one attempt: no `disconnected` for either.
        #expect(run.events.disconnects.map(\.0).prefix(1) == [.closed(code: 1006, reason: "", during: "x")])
        #expect(run.events.connecting == [1, 1])
        #expect(run.events.connected == 1, "the upgraded legacy connection is never reported as connected")
    }

    @Test("PROTOCOL_MISMATCH that no offer can meet ends the session; an operator offers 3…4 once")
    func unmetProtocolEnds() throws {
        let newer = GatewayError.protocolMismatch(Self.shape("PROTOCOL_MISMATCH", [("expectedProtocol", 5)]))
        let node = try Self.run([.refuse(newer)])
        #expect(node.end == newer && node.connector.requests.count == 1)
        let legacy = GatewayError.protocolMismatch(Self.shape("PROTOCOL_MISMATCH", [("expectedProtocol", 3)]))
        let twice = try Self.run([.refuse(legacy), .refuse(legacy)])
        #expect(twice.end == legacy && twice.connector.requests.map(\.protocolRange) == [4...4, 3...3])
        let op = try Self.run([.refuse(newer)], role: .operator)
        #expect(op.connector.requests.map(\.protocolRange) == [3...4] && op.end == newer)
    }

    @Test("negotiation fallback: only into the other range, only when it holds expectedProtocol")
    func negotiationValue() {
        let n = GatewayProtocolNegotiation.newestThenLegacy
        let three = GatewayError.protocolMismatch(Self.shape("PROTOCOL_MISMATCH", [("expectedProtocol", 3)]))
        let four = GatewayError.protocolMismatch(Self.shape("PROTOCOL_MISMATCH", [("expectedProtocol", 4)]))
        #expect(n.fallback(after: three, offered: 4...4) == 3...3)
        #expect(n.fallback(after: four, offered: 3...3) == 4...4)
        #expect(n.fallback(after: three, offered: 3...3) == nil)
        #expect(GatewayProtocolNegotiation.wholeRange.fallback(after: three, offered: 3...4) == nil)
        #expect(n.fallback(after: .notConnected, offered: 4...4) == nil)
    }

    @Test("a stopped session closes its connection with stopCloseCode: 1001 by default, 1000 for a node's service stop")
    func stopCloseCode() async throws {
        for (code, expected) in [(nil, UInt16(1001)), (UInt16(1000), UInt16(1000))] as [(UInt16?, UInt16)] {
            let (registry, record, identity) = try Self.paired()
            let connector = ScriptedConnector([.helloUntilStopped])
            var options = GatewaySessionOptions(role: .node)
            if let code { options.stopCloseCode = code }
            let session = try GatewaySession(gateway: record, registry: registry, identity: identity, options: options,
                                             clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 }, jitterDraw: { 0 },
                                             connector: connector)
            let events = Events()
            session.start { events.append($0) }
            #expect(await events.wait { $0.connected > 0 })
            session.stop()
            #expect(await events.wait { $0.ended != nil })
            #expect(connector.closes.map(\.0) == [expected])
            #expect(events.ended == .some(nil))
        }
    }

    @Test("a gateway still starting is tried again after the retryAfterMs it names")
    func gatewayStartingRetryAfter() throws {
        let starting = GatewayError.connectFailure(GatewayErrorShape(code: "UNAVAILABLE", message: "gateway starting",
                                                                     details: .object([("reason", "startup-sidecars"), ("retryAfterMs", 1200)])))
        guard case .gatewayStarting = starting else { throw TestError("not gatewayStarting: \(starting)") }
        let run = try Self.run([.refuse(starting)])
        #expect(run.events.disconnects.map(\.1) == [.milliseconds(1200)])
        #expect(run.end == nil)
    }
}

/// What tests read from a session's events.
extension [GatewaySessionEvent] {
    var disconnects: [(GatewayError, Duration?)] {
        compactMap { if case .disconnected(let e, let r) = $0 { return (e, r) } else { return nil } }
    }
    /// The attempt numbers of the `connecting` events.
    var connecting: [Int] {
        compactMap { if case .connecting(let attempt, _) = $0 { return attempt } else { return nil } }
    }
    var connected: Int { filter { if case .connected = $0 { return true } else { return false } }.count }
    var ended: GatewayError?? {
        for event in self { if case .ended(let error) = event { return .some(error) } }
        return nil
    }
}
