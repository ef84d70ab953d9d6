import ClawpairCore
import ClawpairGatewayTestSupport
import ClawpairIdentity
import Foundation
import ClawpairTestSupport
import Synchronization
import Testing
@testable import ClawpairGateway

/// The blocking ``GatewaySession/call(_:params:timeout:stop:)``: its thread sleeps until the
/// answer (or a stop) wakes it, instead of looking every few milliseconds.
@Suite struct GatewaySessionCallTests {
    /// A connection that holds each call for `hold` (real time, the scenario: the caller is
    /// meant to be asleep meanwhile), then answers it with `"ok"`; lasts until the session stops.
    /// It counts the calls it took in ``received``.
    final class HoldingLink: GatewaySessionLink {
        let url = "ws://127.0.0.1:18789"
        let hello = HelloOK(["type": "hello-ok", "protocol": 4])!
        let hold: Duration
        let answers: Bool
        let received = Watched(0)

        init(hold: Duration, answers: Bool = true) {
            self.hold = hold
            self.answers = answers
        }

        func serve(_ session: GatewaySession, onEvent: (GatewaySessionEvent) -> Void) -> GatewayError {
            session.serveQueuedCalls { calls in
                for call in calls {
                    received.update { $0 += 1 }
                    guard answers else { continue }
                    session.stopSignal.wait(bound: hold)  // the hold (the scenario), cut short by the stop
                    call.completion(.success(.string("ok")))
                }
                return true
            }
            return .cancelled
        }

        func close(code: UInt16, reason: String) {}
    }

    final class Connector: GatewaySessionConnector, @unchecked Sendable {
        let link: HoldingLink
        init(_ link: HoldingLink) { self.link = link }
        func connect(urls: [String], pin: String?, request: ConnectRequest,
                     session: GatewaySession) -> Result<any GatewaySessionLink, GatewayError> {
            .success(link)
        }
    }

    /// The calling thread's voluntary context switches so far (`/proc/thread-self/status`):
    /// each poll of a sleeping loop is one; a wait on a condition variable is one in all.
    static func voluntarySwitches() throws -> Int {
        let status = try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
              let count = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) else {
            throw TestError("no voluntary_ctxt_switches in /proc/thread-self/status")
        }
        return count
    }

    static func connectedSession(_ link: HoldingLink) async throws -> GatewaySession {
        let (registry, record, identity) = try GatewaySessionTests.paired()
        let session = try GatewaySession(gateway: record, registry: registry, identity: identity,
                                         options: GatewaySessionOptions(role: .node), clock: ManualClock(),
                                         resolver: SystemResolver(), wallClockMs: { 0 }, jitterDraw: { 0 },
                                         connector: Connector(link))
        let connected = StopSignal()
        session.start { if case .connected = $0 { connected.stop() } }
        #expect(await connected.raised(), "the session connected")
        return session
    }

    /// Runs `body` on a thread of its own (the blocking call must not hold a pool thread).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            BackgroundThread.detached { continuation.resume(returning: body()) }
        }
    }

    @Test("a blocking call sleeps until its answer wakes it: a handful of context switches while the gateway holds it 300 ms, not one per poll")
    func callWakesOnAnswer() async throws {
        let session = try await Self.connectedSession(HoldingLink(hold: .milliseconds(300)))
        defer { session.stop() }
        let (result, switches) = await Self.onThread { () -> (Result<JSONValue, GatewayError>, Int) in
            let before = (try? Self.voluntarySwitches()) ?? -1
            let result = Result { () throws(GatewayError) -> JSONValue in
                try session.call("node.host.stats", timeout: .seconds(30))
            }
            let after = (try? Self.voluntarySwitches()) ?? -1
            return (result, before < 0 || after < 0 ? -1 : after - before)
        }
        #expect(try result.get() == .string("ok"))
        // A 10 ms poll makes about 30 switches over the hold; a condition variable one (up to 10 allows
        // for lock hand-overs and page faults under load).
        #expect(switches >= 0 && switches <= 10, "voluntary context switches during the call: \(switches)")
    }

    @Test("a blocking call that gets no answer ends with cancelled when its stop, or the session's, is raised")
    func callStops() async throws {
        let link = HoldingLink(hold: .zero, answers: false)
        let session = try await Self.connectedSession(link)
        let stop = StopSignal()
        let received = link.received
        // Each stop is raised once the gateway holds the call (the caller waits for its answer then).
        let own = await Self.onThread { () -> Result<JSONValue, GatewayError> in
            BackgroundThread.detached { received.wait { $0 >= 1 }; stop.stop() }
            return Result { () throws(GatewayError) -> JSONValue in try session.call("x", timeout: .seconds(60), stop: stop) }
        }
        #expect(throws: GatewayError.cancelled) { try own.get() }
        let sessions = await Self.onThread { () -> Result<JSONValue, GatewayError> in
            BackgroundThread.detached { received.wait { $0 >= 2 }; session.stop() }
            return Result { () throws(GatewayError) -> JSONValue in try session.call("x", timeout: .seconds(60)) }
        }
        #expect(throws: GatewayError.cancelled) { try sessions.get() }
    }
}
