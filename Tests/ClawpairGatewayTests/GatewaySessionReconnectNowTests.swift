import ClawpairCore
import ClawpairGatewayTestSupport
import ClawpairTestSupport
import Foundation
import Testing
@testable import ClawpairGateway

/// A requested reconnect (a reappearing beacon, a gateway that moved) abandons the attempt under
/// way instead of letting it run into its connect timeout: the scripted connector's first attempt
/// to a vanished address hangs until its timeout would fire, and the order of what happened says
/// whether the attempt to the new route started first (``HangingConnector``). Manual clock; the
/// test waits on what the connector logs; no timing assertions.
@Suite struct GatewaySessionReconnectNowTests {
    /// A node session on a manual clock over a ``HangingConnector`` (its first attempt hangs),
    /// started, with its registry, record and the events it published.
    static func started() throws -> (GatewayRegistry, PairedGateway, HangingConnector, GatewaySession, GatewaySessionTests.Events) {
        let (registry, record, identity) = try GatewaySessionTests.paired()
        let connector = HangingConnector()
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node, reconnect: ReconnectPolicy(jitter: 0)),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 },
                                         jitterDraw: { 0 }, connector: connector)
        let events = GatewaySessionTests.Events()
        session.start { events.append($0) }
        return (registry, record, connector, session, events)
    }

    @Test("a gateway that moved: the attempt to the new route starts before the old attempt's timeout fires, with no disconnection")
    func relocationAbandonsTheAttemptInFlight() throws {
        let (registry, record, connector, session, events) = try Self.started()
        defer { session.stop() }
        #expect(connector.waitFor("attempt ws://127.0.0.1:18789"))
        // Relocation: the new route goes first in the registry, then the session is told.
        _ = try registry.adoptRoute("ws://10.0.0.7:18789", forRecord: record.id, proof: .storedTokenAccepted(role: "node"), nowMs: 1)
        session.reconnectNow()
        let reached = connector.waitFor("attempt ws://10.0.0.7:18789")
        connector.timeoutFires.stop()
        #expect(reached)
        #expect(connector.waitForTheHangingAttemptToEnd())
        session.stop()
        let log = connector.log.value
        #expect(log.prefix(3) == ["attempt ws://127.0.0.1:18789", "abandoned ws://127.0.0.1:18789",
                                  "attempt ws://10.0.0.7:18789 ws://127.0.0.1:18789"])
        #expect(!log.contains { $0.hasPrefix("timeout fired") })
        #expect(events.disconnects.isEmpty, "an abandoned attempt is no disconnection")
        #expect(events.connecting == [1, 2])
    }

    @Test("the session's stop still ends an attempt under way, and the session ends as stopped")
    func stopStillEndsAnAttempt() throws {
        let (_, _, connector, session, events) = try Self.started()
        #expect(connector.waitFor("attempt "))
        session.stop()
        #expect(connector.waitFor("abandoned "))
        connector.timeoutFires.stop()
        #expect(events.wait { $0.ended != nil })
        #expect(events.ended == .some(nil), "stopped, not ended by the abandoned attempt")
        #expect(!connector.log.value.contains { $0.hasPrefix("timeout fired") })
    }
}
