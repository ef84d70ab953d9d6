import ClawpairCore
import ClawpairIdentity
import ClawpairTestSupport
import Testing
@testable import ClawpairGateway

/// The held pairing refusal against the stand-in gateway on loopback, in both upstream
/// generations. Loopback connects are approved silently, but a scope upgrade never is: the
/// waiting device first pairs with operator.read, then asks for operator.admin.
@Suite("Pairing wait (loopback)", .serialized)
struct PairingWaitLoopbackTests {
    static let token = "wait-test-token-0123456789"

    static func request(_ scopes: [String], caps: [String] = [GatewayPairing.pairingWaitCap]) -> ConnectRequest {
        ConnectRequest(client: .operatorCLI(version: "test"), role: .operator, scopes: scopes, caps: caps,
                       auth: ConnectAuth(token: token))
    }

    /// Pairs a fresh device with operator.read, then asks for admin and waits on the refused
    /// socket (up to 20 s) when the gateway holds it. Returns the refusal and the decision.
    static func upgradeAndWait(_ url: String, caps: [String] = [GatewayPairing.pairingWaitCap]) throws
        -> (PairingRequired?, PairingDecision?, stillOpen: Bool) {
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        let first = try GatewayClient(endpoint: try GatewayEndpoint(parsing: url))
        try first.open(timeout: .seconds(5))
        try first.connect(request(["operator.read"]), identity: identity, timeout: .seconds(5))
        first.close()
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: url))
        try client.open(timeout: .seconds(5))
        do {
            try client.connect(request(ConnectRequest.operatorScopes, caps: caps), identity: identity, timeout: .seconds(5),
                               holdForResolution: true)
            return (nil, nil, true)
        } catch {
            guard case .pairingRequired(let pairing) = error else { throw error }
            return (pairing, client.awaitPairingResolution(pairing, timeout: .seconds(20)), false)
        }
    }

    static func admin(_ gateway: TestGateway) throws -> GatewayClient {
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url))
        try client.open(timeout: .seconds(5))
        try client.connect(request(ConnectRequest.operatorScopes), identity: try DeviceIdentity.generate(createdAtMs: 0), timeout: .seconds(5))
        return client
    }

    @Test("current generation: the refusal is held and the operator's decision arrives on it", arguments: ["approve", "reject"])
    func heldUntilDecided(_ verb: String) async throws {
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let url = gateway.url
            let waiter = Task.detached { try Self.upgradeAndWait(url) }
            let waiting = try await gateway.waitForLog("waiting")
            let requestId = try #require(waiting["requestId"] as? String)
            let admin = try Self.admin(gateway)
            defer { admin.close() }
            _ = try admin.call("device.pair.\(verb)", params: .object([("requestId", .string(requestId))]), timeout: .seconds(5))
            let (pairing, decision, _) = try await waiter.value
            #expect(pairing?.waitForResolution == true)
            #expect(pairing?.requestId == requestId)
            #expect(decision == (verb == "approve" ? .approved : .rejected))
            let sent = try await gateway.waitForLog("resolution-sent")
            #expect(sent["decision"] as? String == (verb == "approve" ? "approved" : "rejected"))
        }
    }

    @Test("current generation: a request that expires unanswered is resolved as expired")
    func expires() async throws {
        var options = TestGatewayOptions(token: Self.token)
        options.extraArguments = ["--pending-ttl-ms", "1000"]
        try await withTestGateway(options) { gateway in
            let url = gateway.url
            let (pairing, decision, _) = try await Task.detached { try Self.upgradeAndWait(url) }.value
            #expect(pairing?.waitForResolution == true)
            #expect(decision == .expired)
        }
    }

    @Test("current generation, a client without the device-pairing-wait cap: the refused socket is closed as before")
    func withoutCapCloses() async throws {
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let url = gateway.url
            let (pairing, decision, _) = try await Task.detached { try Self.upgradeAndWait(url, caps: []) }.value
            #expect(pairing != nil && pairing?.waitForResolution == false)
            #expect(decision == nil)
            #expect(gateway.logs("waiting").isEmpty)
        }
    }

    @Test("older generation: no waitForResolution; the refused socket is closed at once and nothing is awaited")
    func olderGenerationCloses() async throws {
        var options = TestGatewayOptions(token: Self.token)
        options.generation = .g3
        try await withTestGateway(options) { gateway in
            let url = gateway.url
            let (pairing, decision, _) = try await Task.detached { try Self.upgradeAndWait(url) }.value
            #expect(pairing != nil && pairing?.waitForResolution == false)
            #expect(decision == nil)
            let closed = try await gateway.waitForLog("connect-closed")
            #expect(closed["clientCloseCode"] as? Int == 1008, "\(closed)")
            #expect(gateway.logs("waiting").isEmpty)
        }
    }
}
