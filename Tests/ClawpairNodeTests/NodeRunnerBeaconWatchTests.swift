import ClawpairCore
import Foundation
import Synchronization
import Testing
@testable import ClawpairGateway
@testable import ClawpairNode

/// The runner's discovery while disconnected is a continuous watch, not rounds: each
/// (re)appearance of the gateway's beacon is reported as it happens, and it, or a proved move,
/// ends the session's attempt under way at once. Scripted beacons, a scripted gateway whose first
/// attempt hangs until its connect timeout, a manual clock; the order of events is asserted.
@Suite struct NodeRunnerBeaconWatchTests {
    /// Lines appended from several threads.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ line: String) { entries.withLock { $0.append(line) } }
        var lines: [String] { entries.withLock { $0 } }
        func withLock<T>(_ body: (inout [String]) -> T) -> T { entries.withLock { body(&$0) } }
    }

    /// The first attempt hangs (a vanished address) until abandoned or until the test lets its
    /// timeout fire; later ones get hello-ok and last until the session stops.
    final class HangingConnector: GatewaySessionConnector {
        let log: Log
        let timeoutFires = StopSignal()
        init(log: Log) { self.log = log }

        final class Link: GatewaySessionLink {
            let url: String
            let hello: HelloOK
            init(url: String) {
                self.url = url
                hello = HelloOK(.object([("type", "hello-ok"), ("protocol", 4)]))!
            }
            func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
                for _ in 0..<60_000 where !session.stopSignal.isStopped { usleep(10_000) }
                return .cancelled
            }
            func close(code: UInt16, reason: String) {}
        }

        func connect(urls: [String], pin: String?, request: ConnectRequest,
                     session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
            let first = log.withLock { log -> Bool in
                defer { log.append("attempt \(urls.joined(separator: " "))") }
                return !log.contains { $0.hasPrefix("attempt") }
            }
            guard first else { return .success(Link(url: urls[0])) }
            let abandoned = session.attemptSignal ?? StopSignal()
            while !abandoned.isStopped, !timeoutFires.isStopped { usleep(1000) }
            if abandoned.isStopped {
                log.withLock { $0.append("abandoned \(urls[0])") }
                return .failure(.cancelled)
            }
            log.withLock { $0.append("timeout fired \(urls[0])") }
            return .failure(.timedOut(what: "the connection to \(urls[0])", after: .seconds(10)))
        }
    }

    static func waitFor(_ log: Log, _ prefix: String) -> Bool {
        for _ in 0..<2000 {
            if log.withLock({ $0.contains { $0.hasPrefix(prefix) } }) { return true }
            usleep(2000)
        }
        return false
    }

    /// Runs the runner's watch against a session whose first attempt hangs; `beacon` is what
    /// discovery reports once that attempt is under way. The log, and the runner's events.
    static func run(beacon: [String]) throws -> (log: [String], events: [String]) {
        let (registry, record, identity, home) = try GatewayRelocatorTests.fixture()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let log = Log()
        let connector = HangingConnector(log: log)
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node, reconnect: ReconnectPolicy(jitter: 0)),
                                         clock: ManualClock(), resolver: SystemResolver(), wallClockMs: { 0 }, jitterDraw: { 0 },
                                         connector: connector)
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300),
                                         clock: ManualClock()) { stop, seen in
            guard Self.waitFor(log, "attempt ") else { return }
            log.withLock { $0.append("beacon \(beacon.joined(separator: " "))") }
            seen(beacon)
            while !stop.isStopped { usleep(1000) }
        }
        let events = Log()
        let connected = StopSignal()
        session.start { event in
            if case .connected = event { connected.stop() }
        }
        let watchStop = StopSignal()
        let watcher = Thread {
            NodeRunner.watch(relocator, for: record, stop: watchStop, session: session,
                             connected: { connected.isStopped }) { event in
                events.withLock { $0.append("\(event)") }
            }
        }
        watcher.start()
        // Until the second attempt (or a bound on a loaded machine), then the first one's timeout may fire.
        for _ in 0..<2000 where log.withLock({ $0.count { $0.hasPrefix("attempt") } }) < 2 { usleep(2000) }
        connector.timeoutFires.stop()
        watchStop.stop()
        session.stop()
        _ = waitFor(log, "timeout fired")
        return (log.withLock { $0 }, events.withLock { $0 })
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
        let log = Log()
        let relocator = GatewayRelocator(registry: registry, identity: identity, discovery: nil, proofTimeout: .milliseconds(300),
                                         clock: ManualClock()) { stop, seen in
            for round in 1...3 where !stop.isStopped {
                log.withLock { $0.append("beacon \(round)") }
                seen(["ws://127.0.0.1:9"])
            }
        }
        relocator.watch(for: record, stop: StopSignal()) { found in
            log.withLock { $0.append("found \(found)") }
        }
        let found = "found knownRoute(\"ws://127.0.0.1:9\")"
        #expect(log.withLock { $0 } == ["beacon 1", found, "beacon 2", found, "beacon 3", found])
    }
}
