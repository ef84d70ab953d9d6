import ClawpairCore
import ClawpairIdentity
import Foundation
import ClawpairTestSupport
import Synchronization
import Testing
@testable import ClawpairGateway

/// A session and another process writing the same registry (a second store instance on the same
/// directory, as a concurrent `clawpair gateways …` command): the session's writes are
/// transactions under the registry lock that change only their own fields, so the other
/// writer's change survives, and the session's next attempt uses it.
@Suite struct GatewaySessionRegistryTests {
    /// Each attempt: `during` runs (the other process's write, between the session's re-read and
    /// its hello-ok), then hello-ok with a re-issued node token; the connection ends at once.
    final class Connector: GatewaySessionConnector, @unchecked Sendable {
        let during: [() -> Void]
        private(set) var pins: [String?] = []
        private var attempt = 0

        init(_ during: [() -> Void]) { self.during = during }

        func connect(urls: [String], pin: String?, request: ConnectRequest,
                     session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
            pins.append(pin)
            guard attempt < during.count else {
                session.stop()
                return .failure(.cancelled)
            }
            during[attempt]()
            attempt += 1
            let hello: JSONValue = .object([("type", "hello-ok"), ("protocol", 4),
                                            ("auth", .object([("role", "node"), ("scopes", []), ("deviceToken", .string("node-token-\(attempt)"))]))])
            return .success(GatewaySessionTests.ScriptedLink(url: urls.first ?? "", hello: HelloOK(hello)!,
                                                            end: .closed(code: 1006, reason: "", during: "x")) { _, _ in })
        }
    }

    @Test("another store's writes during a session (a pin, a route, another role's token, the name) are neither lost nor overwritten, and the next attempt uses them")
    func concurrentWritesSurvive() throws {
        let (registry, record, identity) = try GatewaySessionTests.paired()
        let other = GatewayRegistry(directory: registry.directory)
        #expect(other.snapshot().gateway(id: record.id) != nil, "the second store reads the same directory")
        let pin = String(repeating: "cd", count: 32)
        let connector = Connector([
            {
                _ = try? other.update(id: record.id) { gateway in
                    gateway.tlsFingerprint = pin
                    gateway.urls.append("ws://192.168.1.9:18789")
                    gateway.name = "renamed"
                    gateway.store(StoredDeviceToken(token: "operator-token-2", role: "operator", scopes: ["operator.read"], issuedAtMs: 5))
                }
            },
            {},
        ])
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node, reconnect: ReconnectPolicy(jitter: 0)),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 99 }, jitterDraw: { 0 },
                                         connector: connector)
        try session.run()
        let stored = try #require(other.snapshot().gateway(id: record.id))
        #expect(stored.tlsFingerprint == pin)
        #expect(stored.name == "renamed")
        #expect(Set(stored.urls) == ["ws://127.0.0.1:18789", "ws://192.168.1.9:18789"])
        #expect(stored.token(for: "operator", deviceId: identity.deviceId)?.token == "operator-token-2")
        #expect(stored.token(for: "node", deviceId: identity.deviceId)?.token == "node-token-2", "the session's own re-issued token")
        #expect(stored.lastSeenAtMs == 99)
        // The pin written meanwhile is the one the next attempt presents.
        #expect(connector.pins == [nil, pin, pin])
    }
}
