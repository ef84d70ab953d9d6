import ClawpairAvahi
@testable import ClawpairBrowse
import ClawpairCore
import Testing

/// When an Avahi browse has its complete answer: both signals, every first resolve, and each
/// second-family resolve answered or given ``AvahiCompletion/secondFamilyGrace``.
@Suite struct AvahiCompletionTests {
    let t0 = Monotonic.now

    static let instance = BrowsedInstance(name: "gw", type: "_openclaw-gw._tcp.", domain: "local.", interfaceIndex: 2)

    @Test func signalsAndFirstResolves() {
        var completion = AvahiCompletion()
        completion.observe(.added(Self.instance), at: t0)
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0) == .incomplete)
        completion.observe(.cacheExhausted, at: t0)
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0) == .incomplete)
        completion.observe(.allForNow, at: t0)
        #expect(completion.state(pendingResolves: 1, secondStarted: nil, now: t0) == .incomplete)
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0) == .complete)
    }

    @Test("a second-family resolve started just now holds the answer for the grace, one started long ago does not")
    func secondFamilyGrace() {
        var completion = AvahiCompletion()
        completion.observe(.added(Self.instance), at: t0)
        completion.observe(.cacheExhausted, at: t0)
        completion.observe(.allForNow, at: t0)
        let grace = AvahiCompletion.secondFamilyGrace
        #expect(completion.state(pendingResolves: 0, secondStarted: t0, now: t0 + .milliseconds(10))
                == .waiting(until: t0 + grace))
        #expect(completion.state(pendingResolves: 0, secondStarted: t0, now: t0 + grace) == .complete)
        #expect(completion.state(pendingResolves: 0, secondStarted: t0, now: t0 + .seconds(1)) == .complete)
        #expect(completion.state(pendingResolves: 1, secondStarted: t0, now: t0 + .seconds(1)) == .incomplete)
    }

    /// Issue #24 §2: a cold daemon's first answers lost on a lossy link: nothing seen, nothing
    /// pending at all-for-now, and the run ended empty while the second query's answers came.
    @Test("nothing seen at all-for-now: the answers to the daemon's second query get the empty grace")
    func emptyWaitsForSecondQuery() {
        var completion = AvahiCompletion()
        completion.observe(.cacheExhausted, at: t0)
        completion.observe(.allForNow, at: t0 + .seconds(1))
        let until = t0 + .seconds(1) + AvahiCompletion.emptyGrace
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0 + .seconds(1)) == .waiting(until: until))
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: until) == .complete)
        // An instance in the grace: its resolve holds the answer, then the usual rule.
        completion.observe(.added(Self.instance), at: t0 + .milliseconds(1200))
        #expect(completion.state(pendingResolves: 1, secondStarted: nil, now: t0 + .milliseconds(1200)) == .incomplete)
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0 + .milliseconds(1250)) == .complete)
    }
}
