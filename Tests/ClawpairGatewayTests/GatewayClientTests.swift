import ClawpairCore
import ClawpairIdentity
import ClawpairTestSupport
import Testing
@testable import ClawpairGateway

/// The library client against the stand-in gateway on loopback: calls, events, ticks, errors.
@Suite("GatewayClient (loopback)", .serialized)
struct GatewayClientTests {
    static let token = "client-test-token-0123456789"

    static func connect(_ gateway: TestGateway, identity: DeviceIdentity) throws -> GatewayClient {
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url))
        try client.open(timeout: .seconds(5))
        let request = ConnectRequest(client: .operatorCLI(version: "test", platform: "Linux"), role: .operator,
                                     scopes: ConnectRequest.operatorScopes, auth: ConnectAuth(token: token))
        let hello = try client.connect(request, identity: identity, timeout: .seconds(5))
        #expect(hello.role == "operator")
        #expect(hello.deviceToken != nil)
        return client
    }

    @Test("calls return payloads, events are queued for the caller, ticks keep the connection open")
    func callsEventsTicks() async throws {
        var options = TestGatewayOptions(token: Self.token)
        options.tickMs = 100
        try await withTestGateway(options) { gateway in
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            let client = try Self.connect(gateway, identity: identity)
            defer { client.close() }
            #expect(client.hello?.tickIntervalMs == 100)

            let renamed = try client.call("device.pair.rename", params: .object([("deviceId", .string(identity.deviceId)),
                                                                                  ("label", "renamed")]), timeout: .seconds(5))
            #expect(renamed["label"] == "renamed")
            // Events come in order: the silent approval of this very connection, then the rename.
            var names: [String] = []
            while names.last != "device.pair.changed", names.count < 10, let event = try client.nextEvent(timeout: .seconds(5)) {
                names.append(event.name)
            }
            #expect(names.last == "device.pair.changed", "\(names)")

            // Ticks arrive every 100 ms; they are not events, and they keep the watchdog quiet.
            #expect(try client.nextEvent(timeout: .milliseconds(500)) == nil)
            #expect(client.isOpen)

            #expect(throws: GatewayError.self) { try client.call("no.such.method", timeout: .seconds(5)) }
            do {
                _ = try client.call("no.such.method", timeout: .seconds(5))
            } catch GatewayError.rpcFailed(let method, let shape) {
                #expect(method == "no.such.method")
                #expect(shape.code == "INVALID_REQUEST")
            }
            #expect(client.isOpen, "a failed call leaves the connection usable")
        }
    }

    @Test("a refused connect closes the connection and carries the gateway's detail code")
    func refusedConnect() async throws {
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url))
            try client.open(timeout: .seconds(5))
            let request = ConnectRequest(client: .operatorCLI(version: "test", platform: "Linux"), role: .operator,
                                         scopes: ConnectRequest.operatorScopes, auth: ConnectAuth(password: "nope"))
            do {
                try client.connect(request, identity: try DeviceIdentity.generate(createdAtMs: 0), timeout: .seconds(5))
                Issue.record("connect succeeded")
            } catch let error as GatewayError {
                guard case .authRejected = error else { Issue.record("\(error)"); return }
            }
            #expect(!client.isOpen)
            #expect(throws: GatewayError.self) { try client.call("device.pair.list", timeout: .seconds(1)) }
            // The gateway's Close (1008) was answered with a Close frame.
            let closed = try await gateway.waitForLog("connect-closed")
            #expect(closed["clientCloseCode"] as? Int == 1008, "\(closed)")
        }
    }
}
