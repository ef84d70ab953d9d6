import ClawpairCore
import ClawpairGatewayTestSupport
import ClawpairIdentity
import ClawpairTestSupport
import Foundation
import Testing
@testable import ClawpairGateway

/// The pairing watch without sockets: events in, handler actions out, reconnects after a
/// dropped connection with the backoff waited on a manual clock, fatal errors ending it; the
/// auto-approval rules and CIDR matching.
@Suite struct PairingWatchTests {
    /// One connection: answers device.pair.* calls, hands out queued events, then fails with `end`.
    final class FakeEventConnection: GatewayEventSource {
        var events: [GatewayEvent]
        let end: GatewayError
        let pending: [JSONValue]
        var sent: [(method: String, params: JSONValue?)] = []
        var closed = 0

        init(pending: [JSONValue] = [], events: [GatewayEvent], end: GatewayError) {
            self.pending = pending
            self.events = events
            self.end = end
        }

        func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue {
            sent.append((method, params))
            switch method {
            case "device.pair.list": return .object([("pending", .array(pending)), ("paired", .array([]))])
            case "device.pair.approve": return .object([("requestId", params?["requestId"] ?? .null)])
            case "device.pair.reject":
                throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown requestId"))
            default: throw .protocolViolation("unexpected \(method)")
            }
        }

        func nextEvent(timeout: Duration) throws(GatewayError) -> GatewayEvent? {
            if events.isEmpty { throw end }
            return events.removeFirst()
        }

        func close() { closed += 1 }
    }

    static func session(_ connection: any GatewayCalling) throws -> OperatorSession {
        let plan = OperatorPlan(target: OperatorTarget(endpoint: try GatewayEndpoint(parsing: "ws://127.0.0.1:18789"), record: nil,
                                                       source: .explicitURL),
                                credential: OperatorCredential(auth: ConnectAuth(), source: .none))
        return OperatorSession(connection: connection, hello: HelloOK(["type": "hello-ok", "protocol": 4])!, plan: plan, timeout: .seconds(1))
    }

    static func requested(_ id: String, role: String = "node", ip: String = "10.1.2.3") -> JSONValue {
        .object([("requestId", .string(id)), ("deviceId", .string("dev-" + id)), ("publicKey", "k"), ("role", .string(role)),
                 ("remoteIp", .string(ip)), ("ts", 5)])
    }

    @Test("events reach the handler, its actions are performed, a dropped connection reconnects after the backoff")
    func followAndReconnect() throws {
        let first = FakeEventConnection(pending: [Self.requested("old")], events: [
            GatewayEvent(name: "tick", payload: nil, seq: nil),
            GatewayEvent(name: "device.pair.requested", payload: Self.requested("r1"), seq: 1),
            GatewayEvent(name: "device.pair.requested", payload: Self.requested("r2"), seq: 2),
            GatewayEvent(name: "device.pair.resolved", payload: .object([("requestId", "r1"), ("deviceId", "dev-r1"),
                                                                         ("decision", "approved"), ("ts", 9)]), seq: 3),
        ], end: .closed(code: 1012, reason: "service restart", during: "waiting for events"))
        let second = FakeEventConnection(events: [
            GatewayEvent(name: "device.pair.setup.completed", payload: .object([("setupId", "s"), ("deviceId", "d"), ("access", "node"),
                                                                               ("ts", 1)]), seq: 1),
        ], end: .closed(code: 1006, reason: "", during: "waiting for events"))
        var connections: [FakeEventConnection] = [first, second]
        let clock = ManualClock()
        let start = clock.now
        let watch = PairingWatch(configuration: PairingWatchConfiguration(backoff: [.seconds(2)]), clock: clock) {
            guard !connections.isEmpty else { throw GatewayError.unreachable(url: "ws://127.0.0.1:18789", phase: "tcp", reason: "refused") }
            return try Self.session(connections.removeFirst())
        }
        var seen: [PairingWatchEvent] = []
        var stop = false
        try watch.run(until: { stop }) { event in
            seen.append(event)
            switch event {
            case .requested(let request, _) where request.requestId == "r1": return [.approve(requestId: "r1")]
            case .requested(let request, _): return [.reject(requestId: request.requestId)]
            case .setupCompleted: stop = true
            default: break
            }
            return []
        }
        guard seen.count == 9 else {
            Issue.record("\(seen)")
            return
        }
        #expect(seen[0] == .connected(pending: [try PendingRequest(json: Self.requested("old"))], reconnect: false))
        #expect(seen[2] == .acted(.approve(requestId: "r1"), result: .object([("requestId", "r1")])))
        guard case .actionFailed(.reject(requestId: "r2"), let error) = seen[4] else { Issue.record("\(seen[4])"); return }
        #expect(error.isUnknownRequestId)
        guard case .resolved(let resolution) = seen[5] else { Issue.record("\(seen[5])"); return }
        #expect(resolution.decision == "approved")
        guard case .disconnected(.closed(1012, _, _), let retry) = seen[6] else { Issue.record("\(seen[6])"); return }
        #expect(retry == .seconds(2))
        #expect(seen[7] == .connected(pending: [], reconnect: true))
        guard case .setupCompleted(let completion, uncertain: false) = seen[8] else { Issue.record("\(seen[8])"); return }
        #expect(completion.access == "node")
        // The backoff was waited on the clock, not the wall.
        #expect(clock.now - start >= .seconds(2))
        #expect(first.closed > 0)
        #expect(first.sent.map(\.method) == ["device.pair.list", "device.pair.approve", "device.pair.reject"])
        // r2 comes from the same device as nobody before it; a retry of "old"'s device would say so.
        guard case .requested(_, let supersedes) = seen[3] else { Issue.record("\(seen[3])"); return }
        #expect(supersedes == nil)
        #expect(seen[6].json()["retryInMs"] == .int(2000))
        #expect(seen[2].json(rule: "matches role node")["rule"] == "matches role node")
        #expect(seen[2].json()["event"] == "approved")
    }

    @Test("a device's retry is reported as superseding its pending request")
    func supersession() throws {
        let connection = FakeEventConnection(pending: [Self.requested("first")], events: [
            GatewayEvent(name: "device.pair.requested", payload: .object([("requestId", "second"), ("deviceId", "dev-first"), ("publicKey", "k"),
                                                                          ("ts", 6)]), seq: 1),
        ], end: .closed(code: 1000, reason: "", during: "waiting for events"))
        var used = false
        let watch = PairingWatch(configuration: PairingWatchConfiguration(maxConsecutiveFailures: 1), clock: ManualClock()) {
            guard !used else { throw GatewayError.unreachable(url: "ws://127.0.0.1:1", phase: "tcp", reason: "refused") }
            used = true
            return try Self.session(connection)
        }
        var superseded: String?
        #expect(throws: GatewayError.self) {
            try watch.run(until: { false }) { event in
                if case .requested(_, let old) = event { superseded = old }
                return []
            }
        }
        #expect(superseded == "first")
    }

    @Test("unreachable gateways are retried with growing backoff until the limit; refused credentials end the watch at once")
    func failures() throws {
        let clock = ManualClock()
        var attempts = 0
        let watch = PairingWatch(configuration: PairingWatchConfiguration(backoff: [.seconds(1), .seconds(3)], maxConsecutiveFailures: 3),
                                 clock: clock) {
            attempts += 1
            throw GatewayError.unreachable(url: "ws://127.0.0.1:1", phase: "tcp", reason: "refused")
        }
        var delays: [Duration] = []
        #expect(throws: GatewayError.self) {
            try watch.run(until: { false }) { event in
                if case .disconnected(_, let retry) = event { delays.append(retry) }
                return []
            }
        }
        #expect(attempts == 3)
        #expect(delays == [.seconds(1), .seconds(3)])

        var refusedAttempts = 0
        let refused = PairingWatch(clock: clock) {
            refusedAttempts += 1
            throw GatewayError.authRejected(GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized"))
        }
        #expect(throws: GatewayError.self) { try refused.run(until: { false }) { _ in [] } }
        #expect(refusedAttempts == 1)
    }

    @Test("auto-approval: every rule must hold; CIDRs for IPv4, IPv6 and IPv4-mapped peers")
    func autoApproval() throws {
        let rules = PairingAutoApproval(role: "node", networks: [try #require(IPNetwork("10.0.0.0/8")), try #require(IPNetwork("fd00::/8"))])
        #expect(rules.check(try PendingRequest(json: Self.requested("a"))).approve)
        #expect(rules.check(try PendingRequest(json: Self.requested("b", ip: "fd12::1"))).approve)
        #expect(rules.check(try PendingRequest(json: Self.requested("c", ip: "::ffff:10.9.9.9"))).approve)
        let outside = rules.check(try PendingRequest(json: Self.requested("d", ip: "192.0.2.7")))
        #expect(!outside.approve && outside.reason.contains("outside 10.0.0.0/8,fd00::/8"), "\(outside)")
        let operatorRole = rules.check(try PendingRequest(json: Self.requested("e", role: "operator")))
        #expect(!operatorRole.approve && operatorRole.reason == "asks for role operator, not node")
        #expect(!PairingAutoApproval(role: nil, networks: []).check(try PendingRequest(json: Self.requested("f"))).approve)

        #expect(IPNetwork("10.0.0.0/33") == nil)
        #expect(IPNetwork("10.0.0/8") == nil)
        #expect(IPNetwork("10.0.0.0/") == nil)
        #expect(IPNetwork("fe80::1%eth0")?.contains(address: "fe80::1%eth0") == true)
        #expect(IPNetwork("192.0.2.1")?.description == "192.0.2.1/32")
        #expect(IPNetwork("0.0.0.0/0")?.contains(address: "203.0.113.9") == true)
        #expect(IPNetwork("10.0.0.0/8")?.contains(address: "not an address") == false)
    }
}

/// `qr --wait`'s wait: setupStatus polls on a manual clock, the setup event when the connection
/// delivers events, a final poll at the deadline.
@Suite struct SetupWaitTests {
    /// setupStatus answers from a script; no events.
    final class PollingConnection: GatewayCalling {
        var answers: [JSONValue]
        var polls = 0
        init(_ answers: [JSONValue]) { self.answers = answers }
        func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue {
            guard method == "device.pair.setupStatus", params?["setupId"] == "s1" else { throw .protocolViolation("unexpected \(method)") }
            polls += 1
            return answers.count > 1 ? answers.removeFirst() : answers[0]
        }
        func close() {}
    }

    /// Outstanding on every poll; the completion arrives as an event.
    final class EventConnection: GatewayEventSource {
        var events: [GatewayEvent]
        init(_ events: [GatewayEvent]) { self.events = events }
        func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue { .object([]) }
        func nextEvent(timeout: Duration) throws(GatewayError) -> GatewayEvent? { events.isEmpty ? nil : events.removeFirst() }
        func close() {}
    }

    static let completion: JSONValue = .object([("setupId", "s1"), ("deviceId", "d1"), ("deviceName", "Phone"), ("access", "full"), ("ts", 3)])

    @Test("polls until the code is used; gives up at the deadline after a last poll")
    func polling() throws {
        let clock = ManualClock()
        let start = clock.now
        let used = PollingConnection([.object([]), .object([]), .object([("completion", Self.completion)])])
        let status = try PairingWatchTests.session(used).waitForSetupUse(setupId: "s1", within: .seconds(60), clock: clock, pollEvery: .seconds(2))
        guard case .completed(let completion) = status else { Issue.record("\(status)"); return }
        #expect(completion.deviceName == "Phone")
        #expect(used.polls == 3)
        #expect(clock.now - start == .seconds(4))

        let never = PollingConnection([.object([])])
        let clock2 = ManualClock()
        #expect(try PairingWatchTests.session(never).waitForSetupUse(setupId: "s1", within: .seconds(5), clock: clock2, pollEvery: .seconds(2))
                == .outstanding)
        #expect(never.polls == 4)  // 0 s, 2 s, 4 s, and at the 5 s deadline
    }

    @Test("the setup event for this code ends the wait; one for another code does not")
    func event() throws {
        let connection = EventConnection([
            GatewayEvent(name: "device.pair.setup.completed", payload: .object([("setupId", "other"), ("deviceId", "x"), ("access", "node")]), seq: 1),
            GatewayEvent(name: "device.pair.setup.deliveryUncertain", payload: Self.completion, seq: 2),
        ])
        let status = try PairingWatchTests.session(connection).waitForSetupUse(setupId: "s1", within: .seconds(60))
        guard case .deliveryUncertain(let completion) = status else { Issue.record("\(status)"); return }
        #expect(completion.deviceId == "d1")
    }
}

/// The watch on a GatewaySession: the session's scripted connections (its connector seam) answer
/// the watch's calls and deliver pairing events; the session's reconnect (backoff on a manual
/// clock) brings a second `connected` with the pending list again; stopping the watch stops the
/// session.
@Suite struct PairingWatchSessionTests {
    /// A connection that answers calls with `answer`, delivers `events` once the pending list
    /// was asked for, and ends with `end` once `calls` calls were answered (or when the session stops).
    final class ServingLink: GatewaySessionLink {
        let url = "ws://127.0.0.1:18789"
        let hello = HelloOK(["type": "hello-ok", "protocol": 4])!
        let events: [GatewayEvent]
        let calls: Int
        let end: GatewayError
        let answer: (String, JSONValue?) -> Result<JSONValue, GatewayError>
        private(set) var methods: [String] = []

        init(events: [GatewayEvent], calls: Int, end: GatewayError, answer: @escaping (String, JSONValue?) -> Result<JSONValue, GatewayError>) {
            self.events = events
            self.calls = calls
            self.end = end
            self.answer = answer
        }

        func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
            var delivered = false
            var answeredAll = false
            session.serveQueuedCalls { queued in
                for call in queued {
                    methods.append(call.method)
                    call.completion(answer(call.method, call.params))
                }
                if !delivered, methods.contains("device.pair.list") {
                    delivered = true
                    for event in events { session.report(event, onEvent) }
                }
                answeredAll = methods.count >= calls
                return !answeredAll
            }
            return answeredAll ? end : .cancelled
        }

        func close(code: UInt16, reason: String) {}
    }

    final class Connector: GatewaySessionConnector, @unchecked Sendable {
        var links: [ServingLink]
        init(_ links: [ServingLink]) { self.links = links }

        func connect(urls: [String], pin: String?, request: ConnectRequest,
                     session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
            guard !links.isEmpty else { return .failure(.unreachable(url: urls[0], phase: "tcp", reason: "refused")) }
            return .success(links.removeFirst())
        }
    }

    static func answer(_ method: String, _ params: JSONValue?) -> Result<JSONValue, GatewayError> {
        switch method {
        case "device.pair.list": return .success(.object([("pending", .array([PairingWatchTests.requested("old")])), ("paired", .array([]))]))
        case "device.pair.approve": return .success(.object([("requestId", params?["requestId"] ?? .null)]))
        default: return .failure(.protocolViolation("unexpected \(method)"))
        }
    }

    /// A pairing watch (operator.pairing, a shared token, ws:// on loopback) over a session whose
    /// connections are `links`, one per attempt, on a manual clock.
    static func watch(over links: [ServingLink], pollSlice: Duration) throws -> (GatewaySession, PairingWatch) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let record = PairedGateway(name: "lab", urls: ["ws://127.0.0.1:18789"], deviceId: identity.deviceId, pairedAtMs: 0)
        let options = GatewaySessionOptions(role: .operator, scopes: ["operator.pairing"], reconnect: PairingWatch.sessionPolicy,
                                            credential: ConnectAuth(token: "shared"))
        let session = try GatewaySession(gateway: record, registry: nil, identity: identity, options: options, clock: ManualClock(),
                                         resolver: SystemResolver(), wallClockMs: { 0 }, jitterDraw: { 0 },
                                         connector: Connector(links))
        let target = OperatorTarget(endpoint: try GatewayEndpoint(parsing: "ws://127.0.0.1:18789"), record: nil, source: .explicitURL)
        let plan = OperatorPlan(target: target, credential: OperatorCredential(auth: ConnectAuth(), source: .none))
        return (session, PairingWatch(session: session, plan: plan, timeout: .seconds(5),
                                      configuration: PairingWatchConfiguration(pollSlice: pollSlice)))
    }

    @Test("on a session: pending listed on each connection, events followed, actions performed, the session's reconnect, stop")
    func followsOverASession() throws {
        let first = ServingLink(events: [GatewayEvent(name: "device.pair.requested", payload: PairingWatchTests.requested("r1"), seq: 1)],
                                calls: 2, end: .closed(code: 1006, reason: "", during: "the session"), answer: Self.answer)
        let second = ServingLink(events: [GatewayEvent(name: "device.pair.setup.completed",
                                                       payload: .object([("setupId", "s"), ("deviceId", "d"), ("access", "node"), ("ts", 1)]),
                                                       seq: 1)],
                                 calls: 100, end: .notConnected, answer: Self.answer)
        let (session, watch) = try Self.watch(over: [first, second], pollSlice: .milliseconds(20))
        var seen: [PairingWatchEvent] = []
        var stop = false
        try watch.run(until: { stop }) { event in
            seen.append(event)
            switch event {
            case .requested(let request, _): return [.approve(requestId: request.requestId)]
            case .setupCompleted: stop = true
            default: break
            }
            return []
        }
        let old = try PendingRequest(json: PairingWatchTests.requested("old"))
        guard seen.count == 6 else {
            Issue.record("\(seen)")
            return
        }
        #expect(seen[0] == .connected(pending: [old], reconnect: false))
        guard case .requested(let request, _) = seen[1] else { Issue.record("\(seen[1])"); return }
        #expect(request.requestId == "r1")
        #expect(seen[2] == .acted(.approve(requestId: "r1"), result: .object([("requestId", "r1")])))
        guard case .disconnected(.closed(1006, _, _), let retry) = seen[3] else { Issue.record("\(seen[3])"); return }
        #expect(retry == .milliseconds(500))
        #expect(seen[4] == .connected(pending: [old], reconnect: true))
        guard case .setupCompleted = seen[5] else { Issue.record("\(seen[5])"); return }
        #expect(first.methods == ["device.pair.list", "device.pair.approve"])
        #expect(session.stopSignal.isStopped, "stopping the watch stops the session")
    }

    @Test("run(stop:input:) sleeps until an event, a key or the stop: with an hour's poll slice, a key still reaches poll at once and the stop ends the watch")
    func wakesOnKeysAndTheStop() throws {
        let link = ServingLink(events: [], calls: 1000, end: .notConnected, answer: Self.answer)
        // A watch that looked for keys only every poll slice would not see the key within the hang bound.
        let (session, watch) = try Self.watch(over: [link], pollSlice: .seconds(3600))
        var keys: [Int32] = [-1, -1]
        try #require(pipe(&keys) == 0)
        defer { keys.forEach { close($0) } }
        _ = fcntl(keys[0], F_SETFL, fcntl(keys[0], F_GETFL) | O_NONBLOCK)
        let seen = Watched<[String]>([])
        let stop = StopSignal()
        let writeEnd = keys[1]
        // The operator: a key once the watch is connected, then the stop once the key was seen.
        BackgroundThread.detached {
            if seen.wait(until: { $0.contains("connected") }) {
                var key = UInt8(ascii: "a")
                _ = write(writeEnd, &key, 1)
                if !seen.wait(until: { $0.contains("key a") }) { seen.update { $0.append("no key") } }
            }
            stop.stop()
        }
        try watch.run(stop: stop, input: keys[0], poll: {
            var byte: UInt8 = 0
            while read(keys[0], &byte, 1) == 1 { seen.update { $0.append("key \(Character(UnicodeScalar(byte)))") } }
            return []
        }) { event in
            if case .connected = event { seen.update { $0.append("connected") } }
            return []
        }
        #expect(seen.value == ["connected", "key a"])
        #expect(session.stopSignal.isStopped, "stopping the watch stops the session")
    }
}
