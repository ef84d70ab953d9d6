import ClawpairCore
import Foundation
import Synchronization
import Testing
@testable import ClawpairGateway

/// A requested reconnect (a reappearing beacon, a gateway that moved) abandons the attempt under
/// way instead of letting it run into its connect timeout: the scripted connector's first attempt
/// to a vanished address hangs until its timeout would fire, and the order of what happened says
/// whether the attempt to the new route started first. Manual clock; no timing assertions.
@Suite struct GatewaySessionReconnectNowTests {
    /// The first attempt hangs until the session abandons it (or, failing that, until the test lets
    /// its timeout fire); later attempts get hello-ok and last until the session stops.
    final class HangingConnector: GatewaySessionConnector {
        let log = Mutex<[String]>([])
        let timeoutFires = StopSignal()

        func connect(urls: [String], pin: String?, request: ConnectRequest,
                     session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
            let first = log.withLock { log -> Bool in
                defer { log.append("attempt \(urls.joined(separator: " "))") }
                return log.isEmpty
            }
            guard first else {
                let payload: JSONValue = .object([("type", "hello-ok"), ("protocol", 4)])
                return .success(GatewaySessionTests.ScriptedLink(url: urls.first ?? "", hello: HelloOK(payload)!, end: nil) { _, _ in })
            }
            // Dialling a vanished address: nothing answers until the connect timeout.
            let abandoned = session.attemptSignal ?? StopSignal()
            while !abandoned.isStopped, !timeoutFires.isStopped { usleep(1000) }
            if abandoned.isStopped {
                log.withLock { $0.append("abandoned \(urls[0])") }
                return .failure(.cancelled)
            }
            log.withLock { $0.append("timeout fired \(urls[0])") }
            return .failure(.timedOut(what: "the connection to \(urls[0])", after: .seconds(10)))
        }

        func waitFor(_ prefix: String) -> Bool {
            for _ in 0..<2000 {
                if log.withLock({ $0.contains { $0.hasPrefix(prefix) } }) { return true }
                usleep(2000)
            }
            return false
        }
    }

    @Test("a gateway that moved: the attempt to the new route starts before the old attempt's timeout fires, with no disconnection")
    func relocationAbandonsTheAttemptInFlight() throws {
        let (registry, record, identity) = try GatewaySessionTests.paired()
        let connector = HangingConnector()
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node, reconnect: ReconnectPolicy(jitter: 0)),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 },
                                         jitterDraw: { 0 }, connector: connector)
        let events = GatewaySessionTests.Events()
        session.start { events.append($0) }
        defer { session.stop() }
        #expect(connector.waitFor("attempt ws://127.0.0.1:18789"))
        // Relocation: the new route goes first in the registry, then the session is told.
        _ = try registry.adoptRoute("ws://10.0.0.7:18789", forRecord: record.id, proof: .storedTokenAccepted(role: "node"), nowMs: 1)
        session.reconnectNow()
        let reached = connector.waitFor("attempt ws://10.0.0.7:18789")
        connector.timeoutFires.stop()
        #expect(reached)
        _ = connector.waitFor("timeout fired")
        session.stop()
        let log = connector.log.withLock { $0 }
        #expect(log.prefix(3) == ["attempt ws://127.0.0.1:18789", "abandoned ws://127.0.0.1:18789",
                                  "attempt ws://10.0.0.7:18789 ws://127.0.0.1:18789"])
        #expect(!log.contains { $0.hasPrefix("timeout fired") })
        #expect(events.disconnects.isEmpty, "an abandoned attempt is no disconnection")
        #expect(events.connecting == [1, 2])
    }

    @Test("the session's stop still ends an attempt under way, and the session ends as stopped")
    func stopStillEndsAnAttempt() throws {
        let (registry, record, identity) = try GatewaySessionTests.paired()
        let connector = HangingConnector()
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node, reconnect: ReconnectPolicy(jitter: 0)),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 },
                                         jitterDraw: { 0 }, connector: connector)
        let events = GatewaySessionTests.Events()
        session.start { events.append($0) }
        #expect(connector.waitFor("attempt "))
        session.stop()
        #expect(connector.waitFor("abandoned "))
        connector.timeoutFires.stop()
        for _ in 0..<2000 where events.ended == nil { usleep(2000) }
        #expect(events.ended == .some(nil), "stopped, not ended by the abandoned attempt")
        #expect(!connector.log.withLock { $0 }.contains { $0.hasPrefix("timeout fired") })
    }
}
