import ClawpairCore
import ClawpairIdentity
import Foundation
import ClawpairTestSupport
import Synchronization
import Testing
@testable import ClawpairGateway

/// A session made from an operator plan (what `devices watch` runs on): it records each answer's
/// last-seen time in the registry, as an operator connection does, and makes upstream's one
/// bounded retry with the stored device token after a refused shared token.
@Suite struct GatewaySessionOperatorTests {
    typealias Scripted = GatewaySessionTests.ScriptedConnector

    static let tokenMismatch = GatewayError.authRejected(GatewaySessionTests.shape("AUTH_TOKEN_MISMATCH", [("canRetryWithDeviceToken", true)]))

    /// A registry holding `url`'s gateway (pin `pin`) with an operator token, the plan for it
    /// with `credential`, and the identity.
    static func planned(url: String, pin: String? = nil, credential: OperatorCredential)
        throws -> (GatewayRegistry, OperatorPlan, DeviceIdentity, PairedGateway) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let registry = GatewayRegistry(home: NSTemporaryDirectory() + "clawpair-session-operator-\(UUID().uuidString.prefix(8))")
        let record = PairedGateway(name: "lab", urls: [url], tlsFingerprint: pin, deviceId: identity.deviceId,
                                   tokens: [StoredDeviceToken(token: "operator-token", role: "operator", scopes: ["operator.read"], issuedAtMs: nil)],
                                   pairedAtMs: 0)
        try registry.save(record)
        var endpoint = try GatewayEndpoint(parsing: url)
        endpoint.pin = pin
        let plan = OperatorPlan(target: OperatorTarget(endpoint: endpoint, record: record, source: .registryGateway), credential: credential)
        return (registry, plan, identity, record)
    }

    static let shared = OperatorCredential(auth: ConnectAuth(token: "shared-token"), source: .explicitToken)

    /// Runs the plan's session over `answers` on this thread: its end, events, requests and the registry's record.
    static func run(url: String, pin: String? = nil, credential: OperatorCredential = shared, _ answers: [GatewaySessionTests.Answer],
                    nowMs: Int64 = 0) throws -> (end: GatewayError?, events: GatewaySessionTests.Events, requests: [ConnectRequest], stored: PairedGateway?) {
        let (registry, plan, identity, record) = try planned(url: url, pin: pin, credential: credential)
        let connector = Scripted(answers)
        let session = try GatewaySession(operatorPlan: plan, registry: registry, identity: identity,
                                         client: .operatorCLI(version: "test", displayName: "box"), timeout: .seconds(5),
                                         reconnect: ReconnectPolicy(jitter: 0), clock: ManualClock(), wallClockMs: { nowMs },
                                         connector: connector)
        let events = GatewaySessionTests.Events()
        var end: GatewayError?
        do { try session.run { events.append($0) } } catch { end = error }
        return (end, events, connector.requests, registry.snapshot().gateway(id: record.id))
    }

    @Test("each answer records the entry's last-seen time, and nothing else: routes and tokens stay as stored")
    func recordsLastSeen() throws {
        let closed = GatewayError.closed(code: 1006, reason: "", during: "x")
        let run = try Self.run(url: "ws://127.0.0.1:18789", [.hello(protocolVersion: 4, end: closed)], nowMs: 1_234_000)
        #expect(run.events.connected == 1)
        #expect(run.stored?.lastSeenAtMs == 1_234_000)
        #expect(run.stored?.urls == ["ws://127.0.0.1:18789"])
        #expect(run.stored?.tokens.map(\.token) == ["operator-token"])
    }

    @Test("a refused shared token on a loopback gateway is retried once, at once, with the stored operator token and its scopes")
    func retriesWithDeviceToken() throws {
        let closed = GatewayError.closed(code: 1006, reason: "", during: "x")
        let run = try Self.run(url: "ws://127.0.0.1:18789", [.refuse(Self.tokenMismatch), .hello(protocolVersion: 4, end: closed)])
        // The reconnect after the connection ended keeps the stored token (the shared one was refused).
        #expect(run.requests.map(\.auth.token) == ["shared-token", "operator-token", "operator-token"])
        #expect(run.requests.last?.scopes == ["operator.read"])
        #expect(run.events.connected == 1)
        #expect(!run.events.disconnects.contains { $0.0 == Self.tokenMismatch }, "the retry is part of the attempt")
    }

    @Test("the retry is bounded: a second refusal ends the session; the stored token is never cleared by it")
    func retryIsBounded() throws {
        let run = try Self.run(url: "ws://127.0.0.1:18789", [.refuse(Self.tokenMismatch), .refuse(Self.tokenMismatch)])
        #expect(run.requests.map(\.auth.token) == ["shared-token", "operator-token"])
        #expect(run.end == Self.tokenMismatch)
        #expect(run.stored?.tokens.map(\.token) == ["operator-token"])
    }

    @Test("no retry for a plaintext gateway off loopback, a wss:// one without a pin, a password, or a refusal that does not invite it")
    func noRetryWhereUpstreamMakesNone() throws {
        let pin = String(repeating: "ab", count: 32)
        for (url, pin, credential, error) in [
            ("ws://192.0.2.10:18789", nil, Self.shared, Self.tokenMismatch),
            ("wss://192.0.2.10:18789", nil, Self.shared, Self.tokenMismatch),
            ("ws://127.0.0.1:18789", nil, OperatorCredential(auth: ConnectAuth(password: "pw"), source: .explicitPassword), Self.tokenMismatch),
            ("ws://127.0.0.1:18789", nil, Self.shared, GatewayError.authRejected(GatewaySessionTests.shape("AUTH_UNAUTHORIZED"))),
        ] as [(String, String?, OperatorCredential, GatewayError)] {
            let run = try Self.run(url: url, pin: pin, credential: credential, [.refuse(error)])
            #expect(run.requests.count == 1, "\(url)")
            #expect(run.end == error, "\(url)")
        }
        // Upstream's trigger is any one of: canRetryWithDeviceToken, recommendedNextStep
        // retry_with_device_token, or the detail code AUTH_TOKEN_MISMATCH by itself.
        for invite in [GatewayError.authRejected(GatewaySessionTests.shape("AUTH_TOKEN_MISMATCH")),
                       .authRejected(GatewaySessionTests.shape("AUTH_UNAUTHORIZED", [("recommendedNextStep", "retry_with_device_token")]))] {
            let run = try Self.run(url: "ws://127.0.0.1:18789", [.refuse(invite), .refuse(invite)])
            #expect(run.requests.map(\.auth.token) == ["shared-token", "operator-token"], "\(invite)")
        }
        // A pinned wss:// gateway qualifies.
        let pinned = try Self.run(url: "wss://192.0.2.10:18789", pin: pin, [.refuse(Self.tokenMismatch), .refuse(Self.tokenMismatch)])
        #expect(pinned.requests.map(\.auth.token) == ["shared-token", "operator-token"])
    }
}
