import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairSetupCode
import ClawpairTransport
import Foundation
import Testing
@testable import ClawpairGateway

/// The pairing flow without sockets or sleeps: a scripted gateway answers each connect, and a
/// clock that moves only when the flow sleeps.
@Suite struct GatewayPairingTests {
    /// Answers the probe with the first route and each connect with the next scripted answer.
    final class ScriptedGateway: PairingTransport {
        var answers: [Result<PairingHello, GatewayError>]
        var probeFailures: [ProbeFailure]?
        private(set) var requests: [ConnectRequest] = []
        /// The routes of each probe, in order.
        private(set) var probedRoutes: [[ProbeRoute]] = []
        var probes: Int { probedRoutes.count }

        init(_ answers: [Result<PairingHello, GatewayError>], probeFailures: [ProbeFailure]? = nil) {
            self.answers = answers
            self.probeFailures = probeFailures
        }

        func probe(_ routes: [ProbeRoute], configuration: ProbeConfiguration) throws(TransportError) -> ProbeReport {
            probedRoutes.append(routes)
            if let failures = probeFailures {
                let results = zip(routes, failures).enumerated().map { index, pair in
                    var result = ProbeResult(route: pair.0, index: index)
                    result.failure = pair.1
                    return result
                }
                return ProbeReport(results: results, winner: nil, elapsed: .zero, timedOut: false)
            }
            var result = ProbeResult(route: routes[0], index: 0)
            result.phase = .done
            return ProbeReport(results: [result], winner: 0, elapsed: .zero, timedOut: false)
        }

        func connect(_ request: ConnectRequest, to endpoint: GatewayEndpoint, identity: DeviceIdentity,
                     timeout: Duration) throws(GatewayError) -> PairingHello {
            requests.append(request)
            guard !answers.isEmpty else { throw .notConnected }
            switch answers.removeFirst() {
            case .success(let hello): return hello
            case .failure(let error): throw error
            }
        }
    }

    /// Monotonic time that advances only by the flow's sleeps (a ``ManualClock``), and the sleeps.
    final class SteppedClock: PairingClock, @unchecked Sendable {
        let monotonic = ManualClock()
        var wallClockMs: Int64 = 1_800_000_000_000
        private(set) var sleeps: [Duration] = []

        var now: Monotonic.Instant { monotonic.now }

        func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
            sleeps.append(deadline - now)
            monotonic.sleep(until: deadline, unless: stopped)
        }
    }

    static let lanURL = "ws://192.168.1.5:18789"

    static func setup(urls: [String] = [lanURL], expiresAtMs: Int64 = 1_800_000_600_000) throws -> DecodedSetup {
        let (code, _) = try SetupCode.make(urls: urls, bootstrapToken: "bootstrap-token-0123456789", expiresAtMs: expiresAtMs,
                                           defaultScheme: .ws)
        return try SetupCode.parse(code)
    }

    static func hello(role: String = "node", scopes: [String] = [], handoff: [(String, [String])] = []) -> Result<PairingHello, GatewayError> {
        let handoffJSON = handoff.map { role, scopes in
            JSONValue.object([("deviceToken", .string("\(role)-handoff")), ("role", .string(role)),
                              ("scopes", .array(scopes.map(JSONValue.string)))])
        }
        let payload: JSONValue = .object([
            ("type", "hello-ok"), ("protocol", 3),
            ("auth", .object([("deviceToken", .string("\(role)-token")), ("role", .string(role)),
                              ("scopes", .array(scopes.map(JSONValue.string))), ("deviceTokens", .array(handoffJSON))])),
        ])
        return .success(PairingHello(hello: HelloOK(payload)!))
    }

    static func pending(_ id: String) -> Result<PairingHello, GatewayError> {
        .failure(.pairingRequired(PairingRequired(requestId: id, reason: "not-paired")))
    }

    struct Run {
        let registry: GatewayRegistry
        let gateway: ScriptedGateway
        let clock: SteppedClock
        let identity: DeviceIdentity
        var progress: [PairingProgress] = []
    }

    /// Pairs `setup` against `answers` in a fresh registry; returns the outcome and what happened.
    static func pair(_ answers: [Result<PairingHello, GatewayError>], setup: DecodedSetup? = nil,
                     options: PairingOptions = PairingOptions(deviceName: "kitchen-pi", wait: .seconds(60)),
                     probeFailures: [ProbeFailure]? = nil, registry: GatewayRegistry? = nil, identity: DeviceIdentity? = nil,
                     configure: (SteppedClock) -> Void = { _ in },
                     jitter: @escaping @Sendable () -> Double = { 0 }) throws -> (Result<PairingResult, PairingError>, Run) {
        let home = NSTemporaryDirectory() + "clawpair-pairing-\(UUID().uuidString.prefix(8))"
        let registry = registry ?? GatewayRegistry(home: home)
        let gateway = ScriptedGateway(answers, probeFailures: probeFailures)
        let clock = SteppedClock()
        configure(clock)
        var run = Run(registry: registry, gateway: gateway, clock: clock, identity: try identity ?? DeviceIdentity.generate(createdAtMs: 1))
        var pairing = GatewayPairing(setup: try setup ?? Self.setup(), options: options, registry: registry, transport: gateway, clock: clock)
        pairing.retryJitterSource = jitter
        var progress: [PairingProgress] = []
        let outcome: Result<PairingResult, PairingError>
        do {
            outcome = .success(try pairing.run(identity: run.identity) { progress.append($0) })
        } catch {
            outcome = .failure(error)
        }
        run.progress = progress
        return (outcome, run)
    }

    static func cleanUp(_ run: Run) {
        try? FileManager.default.removeItem(atPath: (run.registry.directory as NSString).deletingLastPathComponent)
    }

    @Test("approved at once: one connect, no wait, the record stored and selected")
    func approvedAtOnce() throws {
        let (outcome, run) = try Self.pair([Self.hello()])
        defer { Self.cleanUp(run) }
        let result = try outcome.get()
        #expect(run.progress == [.reachable(url: Self.lanURL), .approved(requestId: nil)])
        #expect(run.clock.sleeps.isEmpty)
        #expect(result.url == Self.lanURL)
        #expect(result.token == StoredDeviceToken(token: "node-token", role: "node", scopes: [], issuedAtMs: nil))
        #expect(result.requestId == nil)
        #expect(result.becameActive)
        #expect(result.deviceId == run.identity.deviceId)
        let request = try #require(run.gateway.requests.first)
        #expect(request.role == .node && request.scopes.isEmpty && request.client.id == "node-host")
        #expect(request.auth == ConnectAuth(bootstrapToken: "bootstrap-token-0123456789"))
        let stored = try run.registry.gateway(named: "192.168.1.5")
        #expect(stored == result.gateway)
        #expect(stored.deviceName == "kitchen-pi")
        #expect(stored.lastSeenAtMs == run.clock.wallClockMs && stored.pairedAtMs == run.clock.wallClockMs)
        #expect(run.registry.active() == stored)
    }

    /// Alternates -1 and +1: pauses of 0.8 s and 1.2 s.
    final class AlternatingJitter: @unchecked Sendable {
        private var count = 0
        func next() -> Double {
            count += 1
            return count % 2 == 1 ? -1 : 1
        }
    }

    static func withoutLiveLine(_ progress: [PairingProgress]) -> [PairingProgress] {
        progress.filter { if case .waiting = $0 { false } else { true } }
    }

    @Test("pending, still waiting, then approved: the same request each time, asked again every second")
    func waitsThenApproved() throws {
        var options = PairingOptions(deviceName: "kitchen-pi", wait: .seconds(60))
        options.progressInterval = .seconds(1)
        let (outcome, run) = try Self.pair([Self.pending("r1"), Self.pending("r1"), Self.pending("r1"), Self.hello()], options: options)
        defer { Self.cleanUp(run) }
        let result = try outcome.get()
        let pending = PairingRequired(requestId: "r1", reason: "not-paired")
        #expect(Self.withoutLiveLine(run.progress) == [.reachable(url: Self.lanURL), .pending(pending),
                                                     .stillWaiting(elapsed: .seconds(1), requestId: "r1"),
                                                     .stillWaiting(elapsed: .seconds(2), requestId: "r1"), .approved(requestId: "r1")])
        #expect(run.clock.sleeps == [.seconds(1), .seconds(1), .seconds(1)])
        #expect(run.gateway.requests.allSatisfy { $0 == run.gateway.requests[0] }, "every retry sends the same role, scopes and credential")
        #expect(run.gateway.requests.count == 4)
        #expect(result.requestId == "r1")
        // The live line after each pending attempt: time waited and time left.
        let live = run.progress.compactMap { if case .waiting(let elapsed, let left, _) = $0 { [elapsed, left] } else { nil } }
        #expect(live == [[.zero, .seconds(60)], [.seconds(1), .seconds(59)], [.seconds(2), .seconds(58)]])
    }

    @Test("a steady jittered ~1 s retry for as long as the wait lasts; still-waiting reports once per progress interval")
    func steadyJitteredRetry() throws {
        let answers = Array(repeating: Self.pending("r1"), count: 61) + [Self.hello()]
        let jitter = AlternatingJitter()
        let (outcome, run) = try Self.pair(answers, options: PairingOptions(deviceName: "kitchen-pi", wait: .seconds(120)),
                                           jitter: { jitter.next() })
        defer { Self.cleanUp(run) }
        _ = try outcome.get()
        #expect(run.clock.sleeps.count == 61)
        #expect(run.clock.sleeps.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? .milliseconds(800) : .milliseconds(1200)) })
        let still = run.progress.compactMap { if case .stillWaiting(let elapsed, _) = $0 { elapsed } else { nil } }
        #expect(still == [.seconds(30), .seconds(60)], "after 30 s and 60 s, not at every retry")
    }

    @Test("a jitter source out of range is clamped to ±200 ms")
    func jitterIsClamped() throws {
        let (outcome, run) = try Self.pair([Self.pending("r1"), Self.pending("r1"), Self.hello()], jitter: { 50 })
        defer { Self.cleanUp(run) }
        _ = try outcome.get()
        #expect(run.clock.sleeps == [.milliseconds(1200), .milliseconds(1200)])
    }

    @Test("rejected while pending: the 1008 close is a rejection, nothing is stored")
    func rejected() throws {
        let (outcome, run) = try Self.pair([Self.pending("r1"), .failure(.closed(code: 1008, reason: "pairing rejected", during: "connect"))])
        defer { Self.cleanUp(run) }
        guard case .failure(.rejected(let id, let reason)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(id == "r1" && reason == "pairing rejected")
        #expect(run.progress.last == .rejected(requestId: "r1"))
        #expect(!FileManager.default.fileExists(atPath: run.registry.directory))
    }

    @Test("a 1008 close before any pending answer is the gateway's error, not a rejection")
    func closeWithoutPendingIsGatewayError() throws {
        let closed = GatewayError.closed(code: 1008, reason: "policy", during: "connect")
        let (outcome, run) = try Self.pair([.failure(closed)])
        defer { Self.cleanUp(run) }
        guard case .failure(.gateway(let error)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(error == closed)
    }

    @Test("--wait runs its full length: the last attempt is made when it runs out, and the report says how long it waited")
    func expires() throws {
        let answers = Array(repeating: Self.pending("r1"), count: 10)
        let (outcome, run) = try Self.pair(answers, options: PairingOptions(deviceName: "n", wait: .seconds(5)))
        defer { Self.cleanUp(run) }
        guard case .failure(.notApproved(let id, let waitedMs)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(id == "r1" && waitedMs == 5000)
        // Attempts at 0, 1, 2, 3, 4 and 5 s (a 1 s, 2 s, … backoff gave up at 3 s).
        #expect(run.clock.sleeps == Array(repeating: .seconds(1), count: 5))
        #expect(run.gateway.requests.count == 6)
        #expect(run.progress.last == .expired(requestId: "r1"))
        #expect(!FileManager.default.fileExists(atPath: run.registry.directory))
    }

    @Test("--wait 3s with 1.2 s pauses: the last pause is cut to the deadline, and the run ends at 3.0 s, not 1.0 s")
    func shortWaitEndsAtItsDeadline() throws {
        let answers = Array(repeating: Self.pending("r1"), count: 10)
        let (outcome, run) = try Self.pair(answers, options: PairingOptions(deviceName: "n", wait: .seconds(3)), jitter: { 1 })
        defer { Self.cleanUp(run) }
        guard case .failure(.notApproved(_, let waitedMs)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(waitedMs == 3000)
        #expect(run.clock.sleeps == [.milliseconds(1200), .milliseconds(1200), .milliseconds(600)])
        #expect(run.gateway.requests.count == 4)
    }

    @Test("--wait 0 gives up at the first pending answer without sleeping")
    func zeroWait() throws {
        let (outcome, run) = try Self.pair([Self.pending("r1")], options: PairingOptions(deviceName: "n", wait: .zero))
        defer { Self.cleanUp(run) }
        guard case .failure(.notApproved) = outcome else { Issue.record("\(outcome)"); return }
        #expect(run.clock.sleeps.isEmpty)
    }

    @Test("a huge or negative --wait is clamped: it neither wraps the deadline around nor waits")
    func waitIsClamped() throws {
        let (huge, run) = try Self.pair([Self.pending("r1"), Self.hello()], options: PairingOptions(deviceName: "n", wait: .seconds(Int64(1) << 62)))
        defer { Self.cleanUp(run) }
        #expect(try huge.get().requestId == "r1")
        #expect(run.clock.sleeps == [.seconds(1)])
        let (negative, other) = try Self.pair([Self.pending("r1")], options: PairingOptions(deviceName: "n", wait: .seconds(-5)))
        defer { Self.cleanUp(other) }
        guard case .failure(.notApproved(_, 0)) = negative else { Issue.record("\(negative)"); return }
        #expect(other.clock.sleeps.isEmpty)
    }

    @Test("superseded: a new request id is reported and the approved one is the last")
    func superseded() throws {
        let (outcome, run) = try Self.pair([Self.pending("r1"), Self.pending("r2"), Self.hello()])
        defer { Self.cleanUp(run) }
        let result = try outcome.get()
        #expect(Self.withoutLiveLine(run.progress) == [.reachable(url: Self.lanURL), .pending(PairingRequired(requestId: "r1", reason: "not-paired")),
                                 .superseded(PairingRequired(requestId: "r2", reason: "not-paired")), .approved(requestId: "r2")])
        #expect(result.requestId == "r2")
    }

    @Test("an operator asks for the bootstrap scopes (and operator.questions with a G4 code); hand-off tokens over LAN ws:// are kept")
    func operatorWithHandoff() throws {
        let options = PairingOptions(role: .operator, deviceName: "box", wait: .seconds(5))
        let (outcome, run) = try Self.pair([Self.hello(role: "operator", scopes: ["operator.read"], handoff: [("node", [])])], options: options)
        defer { Self.cleanUp(run) }
        let result = try outcome.get()
        let request = try #require(run.gateway.requests.first)
        #expect(request.client.id == "cli")
        #expect(request.scopes == ConnectRequest.bootstrapOperatorScopes + ["operator.questions"])
        #expect(result.tokens.map(\.role) == ["operator", "node"])
        #expect(result.gateway.tokens.map(\.role) == ["node", "operator"])
        #expect(!run.progress.contains(.handoffTokensIgnored(count: 1)))
    }

    @Test("hand-off tokens: kept only from a bootstrap connect over wss:// or to a local host")
    func handoffRule() throws {
        let lan = try GatewayEndpoint(parsing: Self.lanURL)
        let tailnet = GatewayEndpoint(host: "100.64.0.7", port: 18789, tls: false)
        let secure = GatewayEndpoint(host: "gw.example.com", port: 443, tls: true)
        #expect(GatewayPairing.keepsHandoffTokens(bootstrap: true, endpoint: lan))
        #expect(GatewayPairing.keepsHandoffTokens(bootstrap: true, endpoint: secure))
        #expect(!GatewayPairing.keepsHandoffTokens(bootstrap: true, endpoint: tailnet))
        #expect(!GatewayPairing.keepsHandoffTokens(bootstrap: false, endpoint: lan))

        // A code with a shared token (no bootstrap token): the hand-off tokens are dropped and reported.
        let code = SetupCode.encode(SetupCodePayload(url: Self.lanURL, token: "shared-token"))
        let (outcome, run) = try Self.pair([Self.hello(handoff: [("operator", ["operator.read"])])], setup: try SetupCode.parse(code))
        defer { Self.cleanUp(run) }
        let result = try outcome.get()
        #expect(run.gateway.requests.first?.auth == ConnectAuth(token: "shared-token"))
        #expect(result.tokens.map(\.role) == ["node"])
        #expect(run.progress.contains(.handoffTokensIgnored(count: 1)))
    }

    @Test("an expired code and a code without a credential fail before anything is dialled")
    func badCodes() throws {
        let (expired, run) = try Self.pair([Self.hello()], setup: try Self.setup(expiresAtMs: 1_000)) { $0.wallClockMs = 2_000 }
        defer { Self.cleanUp(run) }
        guard case .failure(.codeExpired(let at)) = expired else { Issue.record("\(expired)"); return }
        #expect(at == 1_000)
        #expect(run.gateway.probes == 0)

        let bare = SetupCode.encode(SetupCodePayload(url: Self.lanURL))
        let (none, other) = try Self.pair([Self.hello()], setup: try SetupCode.parse(bare))
        defer { Self.cleanUp(other) }
        guard case .failure(.noCredential) = none else { Issue.record("\(none)"); return }
        #expect(other.gateway.probes == 0)
    }

    @Test("no route answers: each route's failure, and whether TLS trust failed")
    func noRoute() throws {
        let (outcome, run) = try Self.pair([Self.hello()], probeFailures: [.refused("connection refused")])
        defer { Self.cleanUp(run) }
        guard case .failure(.noRoute(let failures, let trust, let fingerprint)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(failures.map(\.url) == [Self.lanURL])
        #expect(failures.first?.reason == ProbeFailure.refused("connection refused").message)
        #expect(!trust && fingerprint == nil)
        #expect(run.gateway.requests.isEmpty)

        let (untrusted, other) = try Self.pair([Self.hello()], probeFailures: [.tlsUntrusted(observed: nil, reason: "self-signed")])
        defer { Self.cleanUp(other) }
        guard case .failure(.noRoute(_, true, nil)) = untrusted else { Issue.record("\(untrusted)"); return }

        let seen = String(repeating: "ab", count: 32)
        let (observed, third) = try Self.pair([Self.hello()], probeFailures: [.tlsUntrusted(observed: seen, reason: "self-signed")])
        defer { Self.cleanUp(third) }
        guard case .failure(.noRoute(_, true, seen)) = observed else { Issue.record("\(observed)"); return }
    }

    @Test("a user's pin (--trust) pins every wss:// route the code left unpinned, and is the pin stored; ws:// routes keep none")
    func userPin() throws {
        let pin = String(repeating: "cd", count: 32)
        var options = PairingOptions(deviceName: "kitchen-pi", wait: .seconds(60))
        options.pin = pin
        let setup = try Self.setup(urls: ["wss://gw.example.test:443", Self.lanURL])
        let (outcome, run) = try Self.pair([Self.hello()], setup: setup, options: options)
        defer { Self.cleanUp(run) }
        guard case .success(let result) = outcome else { Issue.record("\(outcome)"); return }
        #expect(result.gateway.tlsFingerprint == pin)
        #expect(run.gateway.probedRoutes.first?.map(\.pin) == [pin, nil])
        #expect(run.gateway.probedRoutes.first?.first?.pinSource == .trust)

        // The code's own pin stays on its primary route (as probe's --trust): the user's covers the rest.
        let codePin = String(repeating: "ef", count: 32)
        let (code, _) = try SetupCode.make(urls: ["wss://gw.example.test:443", "wss://10.0.0.5:18789"], bootstrapToken: "bootstrap-token-0123456789",
                                           expiresAtMs: 1_800_000_600_000, tlsFingerprint: codePin, defaultScheme: .ws)
        let (_, pinned) = try Self.pair([Self.hello()], setup: try SetupCode.parse(code), options: options)
        defer { Self.cleanUp(pinned) }
        #expect(pinned.gateway.probedRoutes.first?.map(\.pin) == [codePin, pin])
        #expect(pinned.gateway.probedRoutes.first?.map(\.pinSource) == [.setupCode, .trust])
    }

    @Test("pairing again updates the gateway's record (same id, the new token); another gateway on that host gets a new name")
    func repairUpdatesRecord() throws {
        let home = NSTemporaryDirectory() + "clawpair-pairing-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let registry = GatewayRegistry(home: home)
        let other = PairedGateway(name: "192.168.1.5", urls: ["ws://192.168.1.5:9999"], deviceId: "d0", pairedAtMs: 1)
        try registry.save(other)
        try registry.setActive(other)
        let (first, _) = try Self.pair([Self.hello()], registry: registry)
        let record = try first.get().gateway
        #expect(record.name == "192.168.1.5-2")
        #expect(try first.get().becameActive == false)
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let (again, _) = try Self.pair([Self.hello()], registry: registry, identity: identity)
        let kept = try again.get().gateway
        let (second, _) = try Self.pair([Self.hello(role: "node")], registry: registry, identity: identity)
        #expect(try second.get().gateway.id == kept.id, "the gateway reissued the stored token: the same gateway")
        #expect(try second.get().identityProof == .storedTokenIssued(role: "node"))
        #expect(try again.get().identityProof == nil, "a new identity proves nothing: a new record, the old one untouched")
        #expect(registry.list().gateways.count == 3)
        #expect(registry.list().gateways.first { $0.id == record.id } == record)

        var named = PairingOptions(deviceName: "n")
        named.gatewayName = "192.168.1.5"
        let (taken, _) = try Self.pair([Self.hello()], options: named, registry: registry)
        guard case .failure(.registry(.nameTaken("192.168.1.5"))) = taken else { Issue.record("\(taken)"); return }
    }

    // MARK: Record identity (issue #25.1, #24.6)

    static let homeURL = "ws://192.168.1.5:18789"
    static let attackerURL = "ws://10.6.6.6:18789"

    /// A registry holding the user's `home` (default), with an operator token for `identity`.
    static func homeRegistry(identity: DeviceIdentity, urls: [String] = [homeURL], pin: String? = nil) throws -> (GatewayRegistry, PairedGateway) {
        let home = NSTemporaryDirectory() + "clawpair-pairing-\(UUID().uuidString.prefix(8))"
        let registry = GatewayRegistry(home: home)
        let record = PairedGateway(name: "home", urls: urls, tlsFingerprint: pin, deviceId: identity.deviceId,
                                   tokens: [StoredDeviceToken(token: "home-operator-secret", role: "operator", scopes: ["operator.admin"], issuedAtMs: 1)],
                                   pairedAtMs: 1)
        try registry.save(record)
        try registry.setActive(record)
        return (registry, record)
    }

    @Test("a code listing the user's gateway as a fallback never touches its record: a new record, home stays default (#25.1)")
    func fallbackURLsDoNotHijack() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let (registry, home) = try Self.homeRegistry(identity: identity)
        defer { try? FileManager.default.removeItem(atPath: (registry.directory as NSString).deletingLastPathComponent) }
        let code = try Self.setup(urls: [Self.attackerURL, Self.homeURL])
        let (outcome, run) = try Self.pair([Self.hello()], setup: code, registry: registry, identity: identity)
        let result = try outcome.get()
        #expect(run.gateway.requests.count == 1, "no stored token was sent anywhere")
        #expect(result.identityProof == nil)
        #expect(result.gateway.id != home.id)
        #expect(result.gateway.urls == [Self.attackerURL], "the uncontacted fallback (home's URL) is not taken over")
        #expect(result.becameActive == false && result.previousDefault == "home")
        let after = registry.snapshot()
        #expect(after.gateway(id: home.id) == home, "home's routes, pin and tokens are unchanged")
        #expect(after.activeID == home.id)
        #expect(after.gateway(url: Self.homeURL)?.id == home.id)
    }

    @Test("over TLS, an attacker's certificate at the code's primary route does not join the pinned record (#25.1)")
    func attackerCertificateDoesNotJoin() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let homePin = String(repeating: "a", count: 64), attackerPin = String(repeating: "b", count: 64)
        let (registry, home) = try Self.homeRegistry(identity: identity, urls: ["wss://home.example:443"], pin: homePin)
        defer { try? FileManager.default.removeItem(atPath: (registry.directory as NSString).deletingLastPathComponent) }
        let (code, _) = try SetupCode.make(urls: ["wss://evil.example:443", "wss://home.example:443"], bootstrapToken: "bootstrap-token-0123456789",
                                           expiresAtMs: 1_800_000_600_000, tlsFingerprint: attackerPin, defaultScheme: .wss)
        var answer = try Self.hello().get()
        answer.certificateFingerprint = attackerPin
        let (outcome, _) = try Self.pair([.success(answer)], setup: try SetupCode.parse(code), registry: registry, identity: identity)
        let result = try outcome.get()
        #expect(result.identityProof == nil && result.gateway.id != home.id)
        #expect(result.gateway.tlsFingerprint == attackerPin)
        #expect(registry.snapshot().gateway(id: home.id) == home)
        #expect(registry.snapshot().activeID == home.id)
    }

    @Test("a gateway that moved proves itself by its pin: its record gets the new route first, no second record (#24.6)")
    func movedGatewayJoinsByPin() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let pin = String(repeating: "c", count: 64)
        let (registry, home) = try Self.homeRegistry(identity: identity, urls: ["wss://192.168.1.5:18789"], pin: pin)
        defer { try? FileManager.default.removeItem(atPath: (registry.directory as NSString).deletingLastPathComponent) }
        let (code, _) = try SetupCode.make(urls: ["wss://192.168.1.77:18789"], bootstrapToken: "bootstrap-token-0123456789",
                                           expiresAtMs: 1_800_000_600_000, tlsFingerprint: pin, defaultScheme: .wss)
        var answer = try Self.hello().get()
        answer.certificateFingerprint = pin
        let (outcome, _) = try Self.pair([.success(answer)], setup: try SetupCode.parse(code), registry: registry, identity: identity)
        let result = try outcome.get()
        #expect(result.identityProof == .pinMatched(fingerprint: pin))
        #expect(result.gateway.id == home.id)
        #expect(result.gateway.urls == ["wss://192.168.1.77:18789", "wss://192.168.1.5:18789"])
        #expect(result.gateway.tokens.map(\.role) == ["node", "operator"], "the operator token is kept, the node token added")
        #expect(registry.list().gateways.count == 1)
        #expect(result.previousDefault == nil)
    }

    @Test("--make-default switches the default; without it the default never moves to a new gateway")
    func makeDefaultSwitches() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let (registry, home) = try Self.homeRegistry(identity: identity)
        defer { try? FileManager.default.removeItem(atPath: (registry.directory as NSString).deletingLastPathComponent) }
        var options = PairingOptions(deviceName: "kitchen-pi", wait: .seconds(60))
        options.makeDefault = true
        let (outcome, _) = try Self.pair([Self.hello()], setup: try Self.setup(urls: [Self.attackerURL]), options: options,
                                         registry: registry, identity: identity)
        let result = try outcome.get()
        #expect(result.becameActive && result.previousDefault == nil)
        #expect(registry.snapshot().activeID == result.gateway.id && result.gateway.id != home.id)
    }

    @Test("adoptRoute: a proved route goes first under the lock; a pin proof that does not match the record changes nothing")
    func adoptRouteAPI() throws {
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        let pin = String(repeating: "d", count: 64)
        let (registry, home) = try Self.homeRegistry(identity: identity, urls: ["wss://old:1"], pin: pin)
        defer { try? FileManager.default.removeItem(atPath: (registry.directory as NSString).deletingLastPathComponent) }
        let wrong = try registry.adoptRoute("wss://evil:1", forRecord: home.id, proof: .pinMatched(fingerprint: String(repeating: "e", count: 64)), nowMs: 5)
        #expect(wrong?.urls == ["wss://old:1"])
        let moved = try registry.adoptRoute("wss://new:1", forRecord: home.id, proof: .pinMatched(fingerprint: pin), nowMs: 6, replacingRoutes: true)
        #expect(moved?.urls == ["wss://new:1"] && moved?.lastSeenAtMs == 6)
        #expect(home.identityProof(certificateFingerprint: pin.uppercased(), issued: [], deviceId: identity.deviceId) == .pinMatched(fingerprint: pin))
        let issued = StoredDeviceToken(token: "home-operator-secret", role: "operator", scopes: [], issuedAtMs: nil)
        #expect(home.identityProof(certificateFingerprint: nil, issued: [issued], deviceId: identity.deviceId) == .storedTokenIssued(role: "operator"))
        #expect(home.identityProof(certificateFingerprint: nil, issued: [issued], deviceId: "someone-else") == nil)
    }
}
