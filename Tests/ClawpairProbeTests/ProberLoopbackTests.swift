import ClawpairCore
@testable import ClawpairProbe
import ClawpairTestSupport
import ClawpairTransport
import Foundation
import Synchronization
import Testing

/// The whole pipeline against independent servers (python3-websockets, Python ssl) on loopback:
/// every reason a route can end with, the race's winner, and the time limit. Nothing leaves the
/// machine. (The same scenarios across network namespaces, with delay and loss, are in
/// clawpairTests/ProbeCLITests.)
@Suite("Probe on loopback", .serialized)
struct ProberLoopbackTests {
    func route(_ url: String, pin: String? = nil) throws -> ProbeRoute {
        var route = try #require(try ProbeCandidates.expand(url).routes.first)
        if let pin {
            route.pin = pin
            route.pinSource = .caller
        }
        return route
    }

    func probe(_ routes: [ProbeRoute], timeout: Duration = .milliseconds(1500), stagger: Duration = .milliseconds(250),
               mode: ProbeRace.Mode = .first) throws -> ProbeReport {
        let report = try Prober.run(routes: routes, configuration: ProbeConfiguration(stagger: stagger, timeout: timeout, mode: mode))
        // The run ends by its limit, which its outcome tells (no elapsed time is compared: the
        // deadline itself is tested on an injected clock in theDeadlineEndsAStalledRace): either the
        // race was decided first, and no route ran out of time, or the deadline decided it and the
        // report says so. Every route has an outcome; none is left running.
        if report.timedOut {
            #expect(report.winner == nil || mode != .first, "a timed-out first-answer race has no winner")
        } else {
            #expect(!report.results.contains { $0.failure?.code == "timeout" }, "a route timed out in a race decided before its deadline")
        }
        for result in report.results {
            #expect(result.reachable || result.failure != nil, "route \(result.index) has no outcome: \(result)")
        }
        return report
    }

    /// A test clock: a ManualClock that raises ``read`` at its first reading, so the test knows
    /// the run has started.
    final class WatchedClock: MonotonicClock {
        let manual = ManualClock()
        let read = StopSignal()
        var now: Monotonic.Instant {
            let reading = manual.now  // read before raising: a raised signal means this reading is taken
            read.stop()
            return reading
        }
        func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
            manual.sleep(until: deadline, unless: stopped)
        }
    }

    @Test("the deadline, not the loop's backstop, ends a race nothing answers: on an injected clock set to the deadline")
    func theDeadlineEndsAStalledRace() async throws {
        try await withFixtureServer(mode: "stall") { port in
            let routes = [try route("ws://127.0.0.1:\(port)")]
            let clock = WatchedClock()
            let start = clock.manual.now
            let timeout = Duration.milliseconds(200)
            let outcome = Mutex<Result<ProbeReport, TransportError>?>(nil)
            let thread = try #require(BackgroundThread.start {
                let result: Result<ProbeReport, TransportError>
                do throws(TransportError) {
                    result = .success(try Prober.run(routes: routes, configuration: ProbeConfiguration(timeout: timeout), clock: clock))
                } catch {
                    result = .failure(error)
                }
                outcome.withLock { $0 = result }
            })
            // Once the run has read its start, move the clock to its deadline exactly (the loop's
            // backstop lies 500 ms beyond): only the deadline timer can end the race then.
            #expect(await clock.read.raised(), "the run read the clock")
            clock.manual.set(start + timeout)
            thread.join()
            let report = try #require(try outcome.withLock { $0 }?.get())
            #expect(report.timedOut && report.winner == nil)
            #expect(report.elapsed == timeout, "ended at the deadline's reading of the injected clock")
            guard case .timeout? = report.results[0].failure else {
                Issue.record("not a timeout: \(String(describing: report.results[0].failure))")
                return
            }
        }
    }

    @Test func aGatewayPassesWithPhaseTimings() async throws {
        try await withFixtureServer(mode: "gateway") { port in
            let report = try probe([route("ws://127.0.0.1:\(port)")])
            #expect(report.winner == 0)
            let result = report.results[0]
            #expect(result.reachable && result.phase == .done)
            #expect(result.address == SocketAddress(ip: "127.0.0.1", port: port))
            #expect(result.timings.dns != nil && result.timings.tcp != nil && result.timings.ws != nil)
            #expect(result.timings.challenge != nil && result.timings.tls == nil)
            #expect(result.challengeTimestamp != nil)
        }
    }

    @Test(arguments: [
        ("silent", "timeout", ProbePhase.challenge),
        ("wrong-event", "not-gateway", .challenge),
        ("http", "not-websocket", .ws),
        ("stall", "timeout", .ws),
        ("close", "not-websocket", .ws),
    ])
    func misbehavingServers(mode: String, reason: String, phase: ProbePhase) async throws {
        try await withFixtureServer(mode: mode) { port in
            let report = try probe([route("ws://127.0.0.1:\(port)")], timeout: .milliseconds(800))
            #expect(report.winner == nil && !report.hasTrustFailure)
            #expect(report.results[0].failure?.code == reason, "\(String(describing: report.results[0].failure))")
            #expect(report.results[0].phase == phase)
            #expect(report.timedOut == (reason == "timeout"))
        }
    }

    @Test("passesAtUpgrade: a route passes at the 101, without connect.challenge; a non-WebSocket server still fails")
    func passesAtUpgrade() async throws {
        var configuration = ProbeConfiguration(timeout: .seconds(20))
        configuration.passesAtUpgrade = true
        try await withFixtureServer(mode: "silent") { port in
            let report = try Prober.run(routes: [route("ws://127.0.0.1:\(port)")], configuration: configuration)
            #expect(report.winner == 0 && report.results[0].phase == .done, "\(report.results)")
            #expect(report.results[0].timings.ws != nil && report.results[0].timings.challenge == nil)
        }
        try await withFixtureServer(mode: "http") { port in
            let report = try Prober.run(routes: [route("ws://127.0.0.1:\(port)")], configuration: configuration)
            #expect(report.results[0].failure?.code == "not-websocket")
        }
    }

    @Test func refusedAndNeedsWSS() throws {
        let closed = try LoopbackPort.unused()
        let report = try probe([route("ws://127.0.0.1:\(closed)"), route("ws://203.0.113.7:18789")])
        #expect(report.results.map { $0.failure?.code } == ["refused", "needs-wss"])
        #expect(report.results[1].address == nil, "a needs-wss route is never dialed")
        #expect(report.winner == nil && !report.hasTrustFailure)
        #expect(!report.timedOut)
    }

    @Test func tlsPinRulesAndTheObservedFingerprint() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        try await withFixtureServer(mode: "gateway", certificate: certificate) { port in
            let url = "wss://127.0.0.1:\(port)"
            let pinned = try probe([route(url, pin: certificate.fingerprint)])
            #expect(pinned.winner == 0)
            #expect(pinned.results[0].trust == .pinned)
            #expect(pinned.results[0].tlsVersion == "TLSv1.3")
            #expect(pinned.results[0].certificate?.fingerprint == certificate.fingerprint)

            let wrong = String(repeating: "0", count: 64)
            let mismatch = try probe([route(url, pin: wrong)])
            #expect(mismatch.results[0].failure == .pinMismatch(expected: wrong, observed: certificate.fingerprint))
            #expect(mismatch.winner == nil && mismatch.hasTrustFailure)

            let untrusted = try probe([route(url)])
            guard case .tlsUntrusted(let observed, let reason)? = untrusted.results[0].failure else {
                Issue.record("not tls-untrusted: \(String(describing: untrusted.results[0].failure))")
                return
            }
            #expect(observed == certificate.fingerprint)
            #expect(reason?.contains("self-signed") == true)
            #expect(untrusted.winner == nil && untrusted.hasTrustFailure)

            // A trust failure next to an unreachable route still makes exit status 4.
            let mixed = try probe([route("ws://127.0.0.1:\(try LoopbackPort.unused())"), route(url)])
            #expect(mixed.winner == nil && mixed.hasTrustFailure)
        }
    }

    @Test func tlsToAPlainServer() async throws {
        try await withFixtureServer(mode: "gateway") { port in
            let report = try probe([route("wss://127.0.0.1:\(port)")])
            #expect(report.results[0].failure?.code == "tls-failed", "\(String(describing: report.results[0].failure))")
        }
    }

    @Test func theWinnerCancelsTheRestAndQueuedRoutesNeverStart() async throws {
        try await withFixtureServer(mode: "stall") { stallPort in
            try await withFixtureServer(mode: "gateway") { gatewayPort in
                let routes = try [route("ws://127.0.0.1:\(stallPort)"), route("ws://127.0.0.1:\(gatewayPort)"),
                                  route("ws://127.0.0.1:\(stallPort)")]
                let report = try probe(routes, timeout: .seconds(3), stagger: .milliseconds(150))
                #expect(report.winner == 1)
                #expect(report.results[0].failure == .cancelled(.ws))
                #expect(report.results[2].failure == .cancelled(.queued))
                #expect(report.results[1].timings.started.map { $0 >= .milliseconds(150) } == true)
                #expect(!report.timedOut, "the winner ended the race before its limit")
            }
        }
    }

    @Test func fastestWaitsForEveryRoute() async throws {
        try await withFixtureServer(mode: "gateway") { port in
            let routes = try [route("ws://127.0.0.1:\(port)"), route("ws://localhost:\(port)")]
            let report = try probe(routes, stagger: .zero, mode: .fastest)
            #expect(report.winner != nil)
            #expect(report.results.allSatisfy { $0.reachable })
            let latencies = report.results.compactMap(\.timings.total)
            #expect(report.winningResult?.timings.total == latencies.min())
        }
    }

    @Test func emptyRaceEndsAtOnce() throws {
        let report = try probe([])
        #expect(report.winner == nil && report.results.isEmpty && !report.hasTrustFailure)
    }
}

/// A port nothing listens on (bound once to learn a free number, then closed).
enum LoopbackPort {
    static func unused() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &sin) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw TestError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: sin.sin_port))
    }
}
