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
struct AvahiCompletion {
    private(set) var allForNow = false
    private(set) var cacheExhausted = false

    /// Takes in one event of the browse.
    mutating func observe(_ event: AvahiEvent) {
        switch event {
        case .allForNow: allForNow = true
        case .cacheExhausted: cacheExhausted = true
        default: break
        }
    }

    /// How long a second-family resolve may run before the answer is complete without it.
    static let secondFamilyGrace: Duration = .milliseconds(250)

    /// Where a browse stands.
    enum State: Equatable {
        /// Signals or first resolves are missing.
        case incomplete
        /// Complete but for second-family resolves, which get until then.
        case waitingForSecondFamily(until: Monotonic.Instant)
        case complete
    }

    /// The state with `pendingResolves` first resolves still waiting, and the latest pending
    /// second-family resolve started at `secondStarted` (nil: none waits), at `now`.
    func state(pendingResolves: Int, secondStarted: Monotonic.Instant?, now: Monotonic.Instant) -> State {
        guard allForNow && cacheExhausted && pendingResolves == 0 else { return .incomplete }
        guard let secondStarted else { return .complete }
        let until = secondStarted + Self.secondFamilyGrace
        return now >= until ? .complete : .waitingForSecondFamily(until: until)
    }
}
