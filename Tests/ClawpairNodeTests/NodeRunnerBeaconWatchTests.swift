import ClawpairCore
import ClawpairGatewayTestSupport
import ClawpairTestSupport
import Foundation
import Testing
@testable import ClawpairGateway
@testable import ClawpairNode

/// The runner's discovery while disconnected is a continuous watch, not rounds: each
/// (re)appearance of the gateway's beacon is reported as it happens, and it, or a proved move,
/// ends the session's attempt under way at once. Scripted beacons, a scripted gateway whose first
/// attempt hangs until its connect timeout (``HangingConnector``), a manual clock; the order of
/// events is asserted, and the test waits on what is logged.
@Suite struct NodeRunnerBeaconWatchTests {
    /// Runs the runner's watch against a session whose first attempt hangs; `beacon` is what
    /// discovery reports once that attempt is under way. The log, and the runner's events.
    static func run(beacon: [String]) throws -> (log: [String], events: [String]) {
        let (registry, record, identity, home) = try GatewayRelocatorTests.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let connector = HangingConnector()
        let log = connector.log
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node, reconnect: ReconnectPolicy(jitter: 0)),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 }, jitterDraw: { 0 },
                                         connector: connector)
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300),
                                         clock: ManualClock()) { stop, seen in
            guard connector.waitFor("attempt ") else { return }
            log.update { $0.append("beacon \(beacon.joined(separator: " "))") }
            seen(beacon)
            stop.wait(bound: hangBound)
        }
        let events = Watched<[String]>([])
        let connected = StopSignal()
        session.start { event in
            if case .connected = event { connected.stop() }
        }
        let watchStop = StopSignal()
        let watcher = Thread {
            NodeRunner.watch(relocator, for: record, stop: watchStop, session: session,
                             connected: { connected.isStopped }) { event in
                events.update { $0.append("\(event)") }
            }
        }
        watcher.start()
        // Until the second attempt (only a hang bound otherwise), then the first one's timeout may fire.
        log.wait { $0.count { $0.hasPrefix("attempt") } >= 2 }
        connector.timeoutFires.stop()
        watchStop.stop()
        session.stop()
        connector.waitForTheHangingAttemptToEnd()
        return (log.value, events.value)
    }

    @Test("a beacon appearing at a known route ends the attempt under way: the next attempt starts before its timeout fires")
    func aReappearingBeaconEndsTheAttempt() throws {
        let run = try Self.run(beacon: ["ws://127.0.0.1:9"])
        #expect(run.log.prefix(4) == ["attempt ws://127.0.0.1:9", "beacon ws://127.0.0.1:9", "abandoned ws://127.0.0.1:9",
                                      "attempt ws://127.0.0.1:9"])
        #expect(!run.log.contains { $0.hasPrefix("timeout fired") })
        #expect(run.events.first?.hasPrefix("beaconSeen") == true)
    }

    @Test("the watch hears each (re)appearance as it happens, with no round between them")
    func theWatchHearsEachAppearance() throws {
        let (registry, record, identity, home) = try GatewayRelocatorTests.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let log = Watched<[String]>([])
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300),
                                         clock: ManualClock()) { stop, seen in
            for round in 1...3 where !stop.isStopped {
                log.update { $0.append("beacon \(round)") }
                seen(["ws://127.0.0.1:9"])
            }
        }
        relocator.watch(for: record, stop: StopSignal()) { found in
            log.update { $0.append("found \(found)") }
        }
        let found = "found knownRoute(\"ws://127.0.0.1:9\")"
        #expect(log.value == ["beacon 1", found, "beacon 2", found, "beacon 3", found])
    }
}
