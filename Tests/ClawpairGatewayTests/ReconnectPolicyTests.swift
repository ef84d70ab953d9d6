import ClawpairCore
import Testing
@testable import ClawpairGateway

/// The reconnect policy and its schedule, on instants of an injected clock and fixed jitter draws.
@Suite struct ReconnectPolicyTests {
    @Test("backoff doubles from 250 ms and stops at 30 s")
    func boundedExponential() {
        let policy = ReconnectPolicy()
        let delays = (0..<10).map { policy.baseDelay(afterFailures: $0) }
        #expect(delays == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8),
                           .seconds(16), .seconds(30), .seconds(30), .seconds(30)])
        #expect(policy.baseDelay(afterFailures: 10_000) == .seconds(30))
    }

    @Test("jitter takes at most its share off the delay")
    func jitter() {
        let policy = ReconnectPolicy(jitter: 0.2)
        #expect(policy.delay(afterFailures: 3, draw: 0) == .seconds(2))
        #expect(policy.delay(afterFailures: 3, draw: 0.5) == .milliseconds(1800))
        #expect(policy.delay(afterFailures: 3, draw: 1) == .milliseconds(1600))
        // Out-of-range draws and shares are clamped.
        #expect(policy.delay(afterFailures: 3, draw: 7) == .milliseconds(1600))
        #expect(ReconnectPolicy(jitter: 3).delay(afterFailures: 0, draw: 1) == .zero)
    }

    @Test("failed attempts back off; a connection that lasted stableAfter resets the backoff")
    func stableReset() {
        let clock = ManualClock()
        var schedule = ReconnectSchedule(policy: ReconnectPolicy(jitter: 0, stableAfter: .seconds(60)))
        #expect(schedule.disconnected(.failed, at: clock.now, draw: 0) == .milliseconds(250))
        #expect(schedule.disconnected(.failed, at: clock.now, draw: 0) == .milliseconds(500))
        #expect(schedule.disconnected(.failed, at: clock.now, draw: 0) == .seconds(1))
        // A short connection does not count as stable: the backoff keeps growing.
        schedule.connected(at: clock.now)
        clock.advance(by: .seconds(5))
        #expect(schedule.disconnected(.closed(code: 1006), at: clock.now, draw: 0) == .seconds(2))
        // A stable one resets it.
        schedule.connected(at: clock.now)
        clock.advance(by: .seconds(60))
        #expect(schedule.disconnected(.closed(code: 1006), at: clock.now, draw: 0) == .milliseconds(250))
        #expect(schedule.failures == 1)
    }

    @Test("a 1012 close and a requested reconnect go at once, with the backoff reset")
    func immediate() {
        let clock = ManualClock()
        var schedule = ReconnectSchedule(policy: ReconnectPolicy(jitter: 0))
        for _ in 0..<5 { _ = schedule.disconnected(.failed, at: clock.now, draw: 0) }
        schedule.connected(at: clock.now)
        clock.advance(by: .seconds(1))
        #expect(schedule.disconnected(.closed(code: 1012), at: clock.now, draw: 0.9) == .zero)
        #expect(schedule.failures == 0)
        #expect(schedule.disconnected(.failed, at: clock.now, draw: 0) == .milliseconds(250))
        #expect(schedule.disconnected(.requested, at: clock.now, draw: 0) == .zero)
        #expect(schedule.disconnected(.failed, at: clock.now, draw: 0) == .milliseconds(250))
    }

    @Test("maxConsecutiveFailures gives up")
    func givesUp() {
        var schedule = ReconnectSchedule(policy: ReconnectPolicy(jitter: 0, maxConsecutiveFailures: 2))
        let now = ManualClock().now
        #expect(schedule.disconnected(.failed, at: now, draw: 0) != nil)
        #expect(schedule.disconnected(.failed, at: now, draw: 0) != nil)
        #expect(schedule.disconnected(.failed, at: now, draw: 0) == nil)
    }

    @Test("silence limit: twice hello-ok's tick interval, 30 s ticks when none is named, hostile values clamped")
    func silenceLimit() {
        let policy = ReconnectPolicy()
        #expect(policy.silenceLimit(tickIntervalMs: 15_000) == .seconds(30))
        #expect(policy.silenceLimit(tickIntervalMs: nil) == .seconds(60))
        #expect(policy.silenceLimit(tickIntervalMs: -5) == .milliseconds(2))
        #expect(policy.silenceLimit(tickIntervalMs: .max) == .seconds(2 * 86_400))
        #expect(policy.tickTimeoutCloseCode == 4000)
    }

    @Test("errors that need someone to act end the session; a pending pairing and a dropped socket do not")
    func terminalErrors() {
        let shape = GatewayErrorShape(code: "INVALID_REQUEST", message: "x")
        #expect(GatewaySession.needsSomeoneToAct(.authRejected(shape)))
        #expect(GatewaySession.needsSomeoneToAct(.protocolMismatch(shape)))
        #expect(GatewaySession.needsSomeoneToAct(.pairingRejected(requestId: nil)))
        #expect(!GatewaySession.needsSomeoneToAct(.pairingRequired(PairingRequired(requestId: "r", reason: "not-paired"))))
        #expect(!GatewaySession.needsSomeoneToAct(.closed(code: 1012, reason: "service restart", during: "the session")))
        #expect(!GatewaySession.needsSomeoneToAct(.stalled(silentFor: .seconds(61), tickInterval: .seconds(30))))
        #expect(!GatewaySession.needsSomeoneToAct(.unreachable(url: "ws://x", phase: "tcp", reason: "refused")))
    }
}
