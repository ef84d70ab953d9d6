import ClawpairWideArea
import Testing

/// The pure parts of `discover --watch` for wide-area domains: when to browse again, and which
/// changes two browses make.
@Suite("wide-area watch rules")
struct WideAreaWatchTests {
    @Test("the pause follows the smallest TTL within 5…60 s; no TTL → 60 s; nothing answered → 10 s; an override wins")
    func interval() {
        #expect(WideAreaRefresh.interval(ttl: 30, allFailed: false) == .seconds(30))
        #expect(WideAreaRefresh.interval(ttl: 0, allFailed: false) == .seconds(5))
        #expect(WideAreaRefresh.interval(ttl: 4, allFailed: false) == .seconds(5))
        #expect(WideAreaRefresh.interval(ttl: 61, allFailed: false) == .seconds(60))
        #expect(WideAreaRefresh.interval(ttl: .max, allFailed: false) == .seconds(60))
        #expect(WideAreaRefresh.interval(ttl: nil, allFailed: false) == .seconds(60))
        #expect(WideAreaRefresh.interval(ttl: nil, allFailed: true) == .seconds(10))
        #expect(WideAreaRefresh.interval(ttl: 3, allFailed: true, override: .milliseconds(250)) == .milliseconds(250))
    }

    struct Seen: Equatable, Sendable {
        var port: Int
    }

    @Test("added once, updated only on a change, removed when the listing drops it")
    func changes() {
        var tracker = WideAreaChangeTracker<Seen>()
        #expect(tracker.seen(Seen(port: 1), key: "d.|a", in: "d.") == .added(Seen(port: 1)))
        #expect(tracker.seen(Seen(port: 2), key: "d.|b", in: "d.") == .added(Seen(port: 2)))
        #expect(tracker.listed(["d.|a", "d.|b"], in: "d.").isEmpty)
        // The same again: nothing to report.
        #expect(tracker.seen(Seen(port: 1), key: "d.|a", in: "d.") == nil)
        #expect(tracker.seen(Seen(port: 3), key: "d.|a", in: "d.") == .updated(Seen(port: 3)))
        // b is no longer listed; a is listed (even if not resolved this round) and stays.
        #expect(tracker.listed(["d.|a"], in: "d.") == [.removed(key: "d.|b", last: Seen(port: 2))])
        #expect(tracker.count(in: "d.") == 1)
        // Back again: added, not updated.
        #expect(tracker.seen(Seen(port: 2), key: "d.|b", in: "d.") == .added(Seen(port: 2)))
        // An empty listing removes everything of that domain only, in key order.
        #expect(tracker.seen(Seen(port: 9), key: "e.|a", in: "e.") == .added(Seen(port: 9)))
        #expect(tracker.listed([], in: "d.") == [.removed(key: "d.|a", last: Seen(port: 3)),
                                                 .removed(key: "d.|b", last: Seen(port: 2))])
        #expect(tracker.count(in: "d.") == 0 && tracker.count(in: "e.") == 1)
        #expect(tracker.listed([], in: "never-seen.").isEmpty)
    }
}
