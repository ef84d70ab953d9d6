import ClawpairCore
import ClawpairGateway
import ClawpairTestSupport
import Foundation
import Synchronization
import Testing
@testable import ClawpairNode

/// A node's published state (status file, the service manager's status, its watchdog) as a
/// library object, on a manual clock and a fixed wall clock.
@Suite struct NodeServiceReporterTests {
    final class Sent: Sendable {
        let statuses = Mutex<[String]>([])
        let pings = Mutex(0)
    }

    static func reporter(watchdog: Duration? = nil, clock: ManualClock = ManualClock()) -> (NodeServiceReporter, Sent, NodeStatusFile) {
        let sent = Sent()
        let file = NodeStatusFile(home: NSTemporaryDirectory() + "clawpair-reporter-\(UUID().uuidString.prefix(8))")
        let reporter = NodeServiceReporter(gatewayId: "gw1", gatewayName: "home", statusFile: file,
                                           sendStatus: { status in sent.statuses.withLock { $0.append(status) } },
                                           sendWatchdog: { sent.pings.withLock { $0 += 1 } }, watchdogInterval: watchdog,
                                           clock: clock, wallClockMs: { 42 }, pid: 4242)
        return (reporter, sent, file)
    }

    @Test("one publication per change of state or route; repeated attempts and informational events publish nothing")
    func onePerChange() {
        let (reporter, sent, file) = Self.reporter()
        let down = GatewayError.unreachable(url: "ws://192.0.2.1:18789", phase: "tcp", reason: "refused")
        for event: NodeRunnerEvent in [.connecting(attempt: 1, urls: []), .connecting(attempt: 2, urls: []),
                                       .connected(url: "ws://a", protocolVersion: 3), .pinReloaded(fingerprint: nil),
                                       .connected(url: "ws://b", protocolVersion: 4), .disconnected(down, retryIn: .seconds(1)),
                                       .disconnected(down, retryIn: .seconds(2)), .searching] {
            reporter.record(event)
        }
        #expect(sent.statuses.withLock { $0 } == ["connecting home", "connected home via ws://a", "connected home via ws://b",
                                                  "disconnected home", "searching home"])
        let record = file.read()
        #expect(record?.state == "searching" && record?.pid == 4242 && record?.sinceMs == 42 && record?.gatewayId == "gw1")
        #expect(record?.lastError == down.message, "the last error stays across later states")
    }

    @Test("the end: stopped, or exited with why (a revoked token says so)")
    func ends() {
        let (stopped, _, stoppedFile) = Self.reporter()
        stopped.finish(.stopped)
        #expect(stoppedFile.read()?.state == "stopped")
        let (revoked, _, revokedFile) = Self.reporter()
        revoked.finish(.tokenRevoked)
        #expect(revokedFile.read()?.state == "exited")
        #expect(revokedFile.read()?.lastError == "the gateway no longer accepts the node token")
    }

    @Test("the watchdog is fed at most once per interval, and never when the service manager asked for none")
    func watchdog() {
        let clock = ManualClock()
        let (reporter, sent, _) = Self.reporter(watchdog: .seconds(30), clock: clock)
        for _ in 0..<5 { reporter.heartbeat() }
        #expect(sent.pings.withLock { $0 } == 1)
        clock.advance(by: .seconds(29))
        reporter.heartbeat()
        #expect(sent.pings.withLock { $0 } == 1)
        clock.advance(by: .seconds(1))
        reporter.heartbeat()
        reporter.heartbeat()
        #expect(sent.pings.withLock { $0 } == 2)
        let (quiet, quietSent, _) = Self.reporter(watchdog: nil)
        quiet.heartbeat()
        #expect(quietSent.pings.withLock { $0 } == 0)
    }
}

/// The presence a node announces says what its `connect` client block says (one definition).
@Suite struct NodeClientPresenceTests {
    @Test("presence: displayName, version, platform linux, deviceFamily Linux, as the client block")
    func presenceMatchesClient() {
        let presence = NodeClient.presence(displayName: "kitchen-pi")
        let client = NodeClient.info(displayName: "kitchen-pi")
        #expect(presence.map(\.0) == ["displayName", "version", "platform", "deviceFamily"])
        #expect(presence.map(\.1) == [.string("kitchen-pi"), .string(client.version), .string("linux"), .string("Linux")])
    }
}
