@testable import ClawpairBrowse
import ClawpairCore
import Testing

/// When an Avahi browse has its complete answer: both signals, every first resolve, and each
/// second-family resolve answered or given ``AvahiCompletion/secondFamilyGrace``.
@Suite struct AvahiCompletionTests {
    let t0 = Monotonic.now

    @Test func signalsAndFirstResolves() {
        var completion = AvahiCompletion()
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0) == .incomplete)
        completion.observe(.cacheExhausted)
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0) == .incomplete)
        completion.observe(.allForNow)
        #expect(completion.state(pendingResolves: 1, secondStarted: nil, now: t0) == .incomplete)
        #expect(completion.state(pendingResolves: 0, secondStarted: nil, now: t0) == .complete)
    }

    @Test("a second-family resolve started just now holds the answer for the grace, one started long ago does not")
    func secondFamilyGrace() {
        var completion = AvahiCompletion()
        completion.observe(.cacheExhausted)
        completion.observe(.allForNow)
        let grace = AvahiCompletion.secondFamilyGrace
        #expect(completion.state(pendingResolves: 0, secondStarted: t0, now: t0 + .milliseconds(10))
                == .waitingForSecondFamily(until: t0 + grace))
        #expect(completion.state(pendingResolves: 0, secondStarted: t0, now: t0 + grace) == .complete)
        #expect(completion.state(pendingResolves: 0, secondStarted: t0, now: t0 + .seconds(1)) == .complete)
        #expect(completion.state(pendingResolves: 1, secondStarted: t0, now: t0 + .seconds(1)) == .incomplete)
    }
}
