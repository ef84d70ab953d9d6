import ClawpairCore
@testable import ClawpairProbe
import ClawpairTransport
import Testing

/// The race walked through time by passing instants: no sleeping, no sockets.
@Suite struct ProbeRaceTests {
    func ms(_ value: Int64) -> Monotonic.Instant { Monotonic.Instant(nanoseconds: value * 1_000_000) }

    @Test func staggersStartsAndTheFirstSuccessWinsAfterSettling() {
        var race = ProbeRace(count: 4, stagger: .milliseconds(250), mode: .first)
        #expect(race.handle(.start, now: ms(0)) == [.startCandidate(0), .setTimer(ms(250))])
        #expect(race.handle(.timerFired, now: ms(250)) == [.startCandidate(1), .setTimer(ms(500))])
        #expect(race.handle(.timerFired, now: ms(500)) == [.startCandidate(2), .setTimer(ms(750))])
        #expect(race.handle(.succeeded(2, latency: .milliseconds(90)), now: ms(590)) == [.settleAfterThisRound])
        // While settling, the timer starts nothing more.
        #expect(race.handle(.timerFired, now: ms(750)).isEmpty)
        #expect(race.handle(.settle, now: ms(750)) == [.cancelCandidate(0), .cancelCandidate(1), .finish(winner: 2)])
        #expect(race.isFinished)
        #expect(race.handle(.succeeded(0, latency: .zero), now: ms(800)).isEmpty)
    }

    @Test func aLateTimerDoesNotDelayLaterStarts() {
        var race = ProbeRace(count: 3, stagger: .milliseconds(250), mode: .first)
        _ = race.handle(.start, now: ms(0))
        // The timer due at 250 is handled 30 ms late; the next start stays due at 500.
        #expect(race.handle(.timerFired, now: ms(280)) == [.startCandidate(1), .setTimer(ms(500))])
    }

    @Test func candidateOrderBreaksTiesWithinARound() {
        var race = ProbeRace(count: 2, stagger: .zero, mode: .first)
        #expect(race.handle(.start, now: ms(0)) == [.startCandidate(0), .setTimer(ms(0))])
        #expect(race.handle(.timerFired, now: ms(0)) == [.startCandidate(1)])
        #expect(race.handle(.succeeded(1, latency: .milliseconds(5)), now: ms(5)) == [.settleAfterThisRound])
        #expect(race.handle(.succeeded(0, latency: .milliseconds(5)), now: ms(5)).isEmpty)
        #expect(race.handle(.settle, now: ms(5)) == [.finish(winner: 0)])
    }

    @Test func aFailureOfThePreviousRouteStartsTheNextAtOnce() {
        var race = ProbeRace(count: 3, stagger: .milliseconds(250), mode: .first)
        _ = race.handle(.start, now: ms(0))
        #expect(race.handle(.failed(0), now: ms(3)) == [.cancelTimer, .startCandidate(1), .setTimer(ms(253))])
        // Route 1 hangs; route 2 starts on the timer.
        #expect(race.handle(.timerFired, now: ms(253)) == [.startCandidate(2)])
        #expect(race.handle(.failed(2), now: ms(260)).isEmpty)
        #expect(race.handle(.failed(1), now: ms(300)) == [.finish(winner: nil)])
    }

    @Test func anOlderFailureDoesNotHurryTheNextStart() {
        var race = ProbeRace(count: 3, stagger: .milliseconds(250), mode: .first)
        _ = race.handle(.start, now: ms(0))
        _ = race.handle(.timerFired, now: ms(250))  // route 1 running, timer for route 2 at 500
        #expect(race.handle(.failed(0), now: ms(300)).isEmpty)
        #expect(race.handle(.timerFired, now: ms(500)) == [.startCandidate(2)])
    }

    @Test func everyRouteFailingEndsEarly() {
        var race = ProbeRace(count: 2, stagger: .milliseconds(250), mode: .first)
        _ = race.handle(.start, now: ms(0))
        #expect(race.handle(.failed(0), now: ms(0)) == [.cancelTimer, .startCandidate(1)])
        #expect(race.handle(.failed(1), now: ms(1)) == [.finish(winner: nil)])
    }

    @Test func deadlineCancelsWhatRuns() {
        var race = ProbeRace(count: 30, stagger: .milliseconds(250), mode: .first)
        _ = race.handle(.start, now: ms(0))
        _ = race.handle(.timerFired, now: ms(250))
        #expect(race.handle(.deadline, now: ms(400)) == [.cancelCandidate(0), .cancelCandidate(1), .cancelTimer, .finish(winner: nil)])
    }

    @Test func fastestWaitsForAllAndPicksTheLowestLatency() {
        var race = ProbeRace(count: 3, stagger: .milliseconds(100), mode: .fastest)
        _ = race.handle(.start, now: ms(0))
        #expect(race.handle(.succeeded(0, latency: .milliseconds(80)), now: ms(80)).isEmpty)
        #expect(race.handle(.timerFired, now: ms(100)) == [.startCandidate(1), .setTimer(ms(200))])
        #expect(race.handle(.timerFired, now: ms(200)) == [.startCandidate(2)])
        #expect(race.handle(.succeeded(2, latency: .milliseconds(10)), now: ms(210)).isEmpty)
        #expect(race.handle(.failed(1), now: ms(220)) == [.finish(winner: 2)])
    }

    @Test func allRunsEveryRouteToItsEndAndTheFirstToPassWins() {
        var race = ProbeRace(count: 3, stagger: .milliseconds(100), mode: .all)
        _ = race.handle(.start, now: ms(0))
        // Route 0 passes first: nothing is cancelled, the others still start and finish.
        #expect(race.handle(.succeeded(0, latency: .milliseconds(80)), now: ms(80)).isEmpty)
        #expect(race.handle(.timerFired, now: ms(100)) == [.startCandidate(1), .setTimer(ms(200))])
        #expect(race.handle(.timerFired, now: ms(200)) == [.startCandidate(2)])
        #expect(race.handle(.succeeded(2, latency: .milliseconds(10)), now: ms(210)).isEmpty)
        #expect(race.handle(.failed(1), now: ms(220)) == [.finish(winner: 0)])
    }

    @Test func fastestTiesGoToTheEarlierRoute() {
        var race = ProbeRace(count: 2, stagger: .zero, mode: .fastest)
        _ = race.handle(.start, now: ms(0))
        _ = race.handle(.timerFired, now: ms(0))
        _ = race.handle(.succeeded(1, latency: .milliseconds(7)), now: ms(7))
        #expect(race.handle(.succeeded(0, latency: .milliseconds(7)), now: ms(7)) == [.finish(winner: 0)])
    }

    @Test func fastestDeadlineKeepsWhatPassed() {
        var race = ProbeRace(count: 2, stagger: .zero, mode: .fastest)
        _ = race.handle(.start, now: ms(0))
        _ = race.handle(.timerFired, now: ms(0))
        _ = race.handle(.succeeded(1, latency: .milliseconds(7)), now: ms(7))
        #expect(race.handle(.deadline, now: ms(5000)) == [.cancelCandidate(0), .finish(winner: 1)])
    }

    @Test func noRoutes() {
        var race = ProbeRace(count: 0, stagger: .zero, mode: .first)
        #expect(race.handle(.start, now: ms(0)) == [.finish(winner: nil)])
    }

    @Test func staleInputs() {
        var race = ProbeRace(count: 2, stagger: .milliseconds(250), mode: .first)
        #expect(race.handle(.failed(0), now: ms(0)).isEmpty)
        #expect(race.handle(.settle, now: ms(0)).isEmpty)
        _ = race.handle(.start, now: ms(0))
        #expect(race.handle(.failed(1), now: ms(1)).isEmpty)  // not started
        #expect(race.handle(.settle, now: ms(1)).isEmpty)  // nothing to settle
        #expect(race.handle(.start, now: ms(2)).isEmpty)
    }
}
