import ClawpairAvahi
import ClawpairCore

/// When an Avahi browse has the complete answer, for a run that ends then (``GatewayBrowser/scan(note:)``).
///
/// The rule: avahi-daemon has signalled ``AvahiEvent/cacheExhausted`` (everything in its cache
/// is out) and ``AvahiEvent/allForNow`` (the answers to its first queries too: at once with a
/// warm cache, about a second after the browse started with a cold one), and every first
/// resolve it started has answered, found or failed (``AvahiBrowser/pendingResolves`` is 0) —
/// what `avahi-browse -rt` waits for. The browse is of one domain (`local.`), so one pair of
/// signals covers every domain browsed.
///
/// The resolve of a gateway's second address family is waited for only until it has run for
/// ``secondFamilyGrace``: Avahi answers it from its cache within a D-Bus round trip when the host
/// announced both families, and only gives up after about 5 s on a host with one, which would
/// make every run that long. Second resolves start as the first ones answer, usually long
/// before all-for-now (about a second in), so the grace costs nothing then; it matters when the
/// daemon's cache answers everything at once. A gateway whose second family had not answered by
/// then is listed with the addresses it has (a watch reports the rest). The caller's
/// deadline stays the upper bound.
///
/// A browse that has seen no instance at all by all-for-now is not complete yet: it waits
/// ``emptyGrace`` more. All-for-now comes one second after the daemon's querier was created,
/// whether or not anything answered its first query (avahi-core `multicast-lookup.c`,
/// `avahi_multicast_lookup_new`: creation time + 1 s; `querier.c`: the second query goes out at
/// that same second). A freshly started daemon has nothing cached, so everything rides on the
/// answers to that first query; on a lossy link they can all be lost (a many-gateway answer is
/// several large, fragmented packets: losing any fragment loses the packet). With no instance
/// seen, no resolve is pending either, so the rule above ended the run at all-for-now, empty,
/// while the answers to the daemon's second query were on their way: `bench/discover`'s cold
/// 10%-loss rows listed 0 where `avahi-browse -rt` (one packet through) listed 25, and 100 in the
/// runs whose first answer got through (each resolve query brings the rest). The native backend
/// waits for its second query in the same case (``MDNSBrowser/completesAt``).
struct AvahiCompletion {
    private(set) var allForNow = false
    private(set) var cacheExhausted = false
    /// When all-for-now came.
    private(set) var allForNowAt: Monotonic.Instant?
    /// Whether the browse reported an instance (tracked or not).
    private(set) var sawInstance = false

    /// Takes in one event of the browse, which came at `now`.
    mutating func observe(_ event: AvahiEvent, at now: Monotonic.Instant) {
        switch event {
        case .allForNow:
            allForNow = true
            if allForNowAt == nil { allForNowAt = now }
        case .cacheExhausted: cacheExhausted = true
        case .added, .limited(.instance): sawInstance = true
        default: break
        }
    }

    /// How long a browse that has seen nothing waits past all-for-now: the daemon's second query
    /// goes out then, and its answers come within a responder's delay (20–120 ms, up to 500 ms
    /// for an answer of several packets, RFC 6762 §6).
    static let emptyGrace: Duration = .milliseconds(500)

    /// How long a second-family resolve may run before the answer is complete without it.
    static let secondFamilyGrace: Duration = .milliseconds(250)

    /// Where a browse stands.
    enum State: Equatable {
        /// Signals or first resolves are missing.
        case incomplete
        /// Complete but for second-family resolves, or for the answers to the daemon's second
        /// query when nothing was seen: they get until then.
        case waiting(until: Monotonic.Instant)
        case complete
    }

    /// The state with `pendingResolves` first resolves still waiting, and the latest pending
    /// second-family resolve started at `secondStarted` (nil: none waits), at `now`.
    func state(pendingResolves: Int, secondStarted: Monotonic.Instant?, now: Monotonic.Instant) -> State {
        guard allForNow && cacheExhausted && pendingResolves == 0 else { return .incomplete }
        if !sawInstance, let allForNowAt, now < allForNowAt + Self.emptyGrace { return .waiting(until: allForNowAt + Self.emptyGrace) }
        guard let secondStarted else { return .complete }
        let until = secondStarted + Self.secondFamilyGrace
        return now >= until ? .complete : .waiting(until: until)
    }
}
