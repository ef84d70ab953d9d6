import ClawpairAvahi

/// When an Avahi browse has the complete answer, for a run that ends then (``GatewayBrowser/scan(note:)``).
///
/// The rule: avahi-daemon has signalled ``AvahiEvent/cacheExhausted`` (everything in its cache
/// is out) and ``AvahiEvent/allForNow`` (the answers to its first queries too: at once with a
/// warm cache, about a second after the browse started with a cold one), and every first
/// resolve it started has answered, found or failed (``AvahiBrowser/pendingResolves`` is 0) —
/// what `avahi-browse -rt` waits for. The browse is of one domain (`local.`), so one pair of
/// signals covers every domain browsed.
///
/// The resolve of a gateway's second address family is not waited for: Avahi answers it from
/// its cache at once when the host announced both families, and only gives up after about 5 s
/// on a host with one, which would make every run that long. A gateway whose second family had
/// not answered by then is listed with the addresses it has (`discover --watch` reports the
/// rest). The caller's deadline (`--timeout`) stays the upper bound.
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

    /// Whether the answer is complete with `pendingResolves` first resolves still waiting.
    func isComplete(pendingResolves: Int) -> Bool {
        allForNow && cacheExhausted && pendingResolves == 0
    }
}
