import ClawpairCore
import Foundation
import Synchronization
import Testing
@testable import ClawpairGateway
@testable import ClawpairNode

/// Issue #22's moved-gateway goal (online ≤ 2 s after the new address is advertised): discovery
/// starts at the loss of the connection, beside the first attempt (which may wait its whole
/// connect timeout on routes that vanished with the move), not after that attempt failed; a
/// beacon still listed from before the loss does not abandon that attempt; and a failed attempt
/// makes the watch count what it already reported as new again (a stale cache entry, or a
/// beacon back with the same records). Decisions and the watch's memory, without a network.
@Suite struct NodeRunnerSearchAtLossTests {
    @Test("discovery starts at the loss of a connection by default, and after failed attempts when asked so")
    func searchStartsAtTheLoss() {
        let closed = GatewayError.closed(code: 1012, reason: "service restart", during: "the session")
        let threshold = NodeRunnerOptions(host: NodeHostConfiguration(commands: NodeCommandSet([])), displayName: "n").relocateAfterFailures
        #expect(threshold == 0)
        // A connection lost after hello-ok counts no failed attempt: the search starts at once.
        #expect(NodeRunner.searches(after: closed, retryIn: .zero, failuresInARow: 0, threshold: threshold))
        #expect(NodeRunner.searches(after: .unreachable(url: "ws://10.0.0.1:18789", phase: "tcp", reason: "refused"), retryIn: .milliseconds(250),
                                    failuresInARow: 1, threshold: threshold))
        // The old behaviour, on request: only after a failed attempt.
        #expect(!NodeRunner.searches(after: closed, retryIn: .zero, failuresInARow: 0, threshold: 1))
        // No next attempt (stopped, or an end), or an answer that is this gateway refusing: nothing to look for.
        #expect(!NodeRunner.searches(after: closed, retryIn: nil, failuresInARow: 0, threshold: threshold))
        #expect(!NodeRunner.searches(after: .cancelled, retryIn: .zero, failuresInARow: 0, threshold: threshold))
    }

    @Test("the watch's memory: a sighting is new once per appearance, again after a removal or a forget, across runs")
    func reportedBeaconsForgetOnRequest() {
        let reported = ReportedBeacons()
        let beacon = ["ws://10.0.0.1:18789"], moved = ["ws://10.0.0.2:18789"]
        reported.runStarted()
        #expect(reported.isNew(beacon))
        #expect(!reported.isNew(beacon), "an update with the same routes")
        reported.runEnded()
        // The next run lists the cache again: nothing new.
        reported.runStarted()
        #expect(!reported.isNew(beacon))
        #expect(reported.isNew(moved), "the same beacon at a new address")
        reported.runEnded()
        // A run that does not list it: its next listing is new.
        reported.runStarted()
        #expect(!reported.isNew(moved))
        reported.runEnded()
        reported.runStarted()
        #expect(reported.isNew(beacon))
        reported.removed(beacon)
        #expect(reported.isNew(beacon), "back after a removal")
        // An attempt at it failed: forgotten, so the same listing counts again (in this run and the next).
        reported.forget()
        #expect(reported.isNew(beacon))
        reported.runEnded()
        reported.forget()
        reported.runStarted()
        #expect(reported.isNew(beacon))
        #expect(reported.isNew(moved))
    }

    @Test("forgetReportedBeacons reaches the memory the discovery watch dedupes with")
    func theRelocatorForgets() throws {
        let (registry, _, identity, home) = try GatewayRelocatorTests.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil)
        let copy = relocator
        relocator.reported.runStarted()
        #expect(relocator.reported.isNew(["ws://10.0.0.1:18789"]))
        copy.forgetReportedBeacons()
        #expect(relocator.reported.isNew(["ws://10.0.0.1:18789"]), "a copy of the relocator forgets for the watch")
    }

    /// Events the runner's watch reports for one scripted sighting, with `retryingAfterLoss`.
    static func events(for sighting: [String], retryingAfterLoss: Bool) throws -> [String] {
        let (registry, record, identity, home) = try GatewayRelocatorTests.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node), clock: ManualClock())
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300),
                                         clock: ManualClock()) { _, seen in seen(sighting) }
        let events = Mutex<[String]>([])
        NodeRunner.watch(relocator, for: record, stop: StopSignal(), session: session, connected: { false },
                         retryingAfterLoss: { retryingAfterLoss }) { event in
            events.withLock { $0.append("\(event)") }
        }
        return events.withLock { $0 }
    }

    @Test("while the attempt right after the loss is under way, a beacon at a known route is passed over; after a failure it is heard")
    func aListedBeaconDoesNotAbandonTheFirstAttempt() throws {
        #expect(try Self.events(for: ["ws://127.0.0.1:9"], retryingAfterLoss: true).isEmpty)
        #expect(try Self.events(for: ["ws://127.0.0.1:9"], retryingAfterLoss: false).first?.hasPrefix("beaconSeen") == true)
    }
}
