import ClawpairAvahi
import ClawpairCore
import ClawpairDiscovery
import ClawpairMDNS
import ClawpairWideArea

// The seams between the browser and the world: each backend behind a small protocol, made by
// a factory, plus the clock. `BrowseBackends.system` is the real thing; tests pass fakes
// (no root, no sockets, no sleeping).

/// An Avahi browse as the browser drives it (``AvahiBrowser``).
protocol AvahiBrowsing: AnyObject {
    /// Hands over events until `deadline`, or until `onEvent` returns false, or until `stop` is
    /// raised (waking any wait).
    func run(until deadline: Monotonic.Instant, stop: StopSignal, onEvent: (AvahiEvent) -> Bool) throws
    /// Closes the browse and everything it opened.
    func stop()
    /// Instances whose first resolve has not answered yet (``AvahiBrowser/pendingResolves``).
    var pendingResolves: Int { get }
    /// When the latest waiting second-family resolve started (``AvahiBrowser/latestPendingSecondResolveStart``).
    var latestPendingSecondResolveStart: Monotonic.Instant? { get }
}

extension AvahiBrowser: AvahiBrowsing {
    func run(until deadline: Monotonic.Instant, stop: StopSignal, onEvent: (AvahiEvent) -> Bool) throws {
        try run(until: deadline, stop: Optional(stop), onEvent: onEvent)
    }
}

/// The built-in mDNS querier as the browser drives it (``MDNSQuerier``).
protocol MDNSBrowsing: AnyObject {
    /// Hands over events until `deadline`, or until `onEvent` returns false, or until `stop` is
    /// raised (waking any wait); with `untilComplete`, until the answer is complete
    /// (``MDNSBrowser/completesAt``).
    func run(until deadline: Monotonic.Instant, untilComplete: Bool, stop: StopSignal,
             onEvent: (MDNSEvent) -> Bool) throws
    /// What the last run did, for `-v` (nil: nothing to say).
    var runSummary: MDNSQuerier.Summary? { get }
}

extension MDNSBrowsing {
    var runSummary: MDNSQuerier.Summary? { nil }
}

extension MDNSQuerier: MDNSBrowsing {
    var runSummary: MDNSQuerier.Summary? { summary }

    func run(until deadline: Monotonic.Instant, untilComplete: Bool, stop: StopSignal,
             onEvent: (MDNSEvent) -> Bool) throws {
        try run(until: deadline, untilComplete: untilComplete, stop: Optional(stop), onEvent: onEvent)
    }
}

/// A unicast DNS-SD browse as the browser drives it (``WideAreaBrowser``).
protocol WideAreaBrowsing: Sendable {
    /// The servers it asks.
    var servers: [DNSServerAddress] { get }
    /// The service type it browses, e.g. `_openclaw-gw._tcp`.
    var serviceType: String { get }
    /// Browses `domain` until done or `deadline`; see ``WideAreaBrowser/browse(domain:deadline:onFound:)``.
    func browse(domain: String, deadline: Monotonic.Instant,
                onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> WideAreaBrowseResult
}

extension WideAreaBrowser: WideAreaBrowsing {
    var servers: [DNSServerAddress] { client.servers }
}

/// How the browser reaches each backend.
struct BrowseBackends: Sendable {
    /// Opens an Avahi browse for the gateway service type, tracking at most `limit` gateways
    /// (nil: ``AvahiLimits``'s default).
    var avahi: @Sendable (_ limit: Int?) throws -> any AvahiBrowsing
    /// Opens the built-in querier's sockets for the gateway service type in `local.`, tracking
    /// at most `limit` gateways (nil: ``MDNSBrowser/defaultMaxInstances``).
    var native: @Sendable (_ limit: Int?) throws -> any MDNSBrowsing
    /// A unicast browser asking `servers`, resolving at most `limit` instances per domain (nil:
    /// ``WideAreaBrowser/defaultMaxInstances``); `stop` ends its waits for a server at once.
    var unicast: @Sendable (_ servers: [DNSServerAddress], _ limit: Int?, _ stop: StopSignal,
                            _ note: @escaping @Sendable (String) -> Void) -> any WideAreaBrowsing
    /// The browser that asks only MagicDNS (the tailnet fallback), with the same `limit` and `stop`.
    var magicDNS: @Sendable (_ limit: Int?, _ stop: StopSignal, _ note: @escaping @Sendable (String) -> Void) -> any WideAreaBrowsing
    /// Runs `tailscale status --json` (see ``TailnetDetection``).
    var tailnetProbe: TailnetDetection.Probe
    /// The nameservers of /etc/resolv.conf.
    var resolvConf: @Sendable () -> [DNSServerAddress]
    /// The time, and waiting for it.
    var clock: any MonotonicClock

    /// The system's avahi-daemon, mDNS sockets, DNS servers, `tailscale` and clock.
    static let system = BrowseBackends(
        avahi: { limit in
            try AvahiBrowser(type: BeaconIdentity.serviceType,
                             limits: AvahiLimits(maxInstances: limit ?? AvahiLimits.defaultMaxInstances))
        },
        native: { limit in
            try MDNSQuerier(serviceType: BeaconIdentity.serviceType + ".local.",
                            maxInstances: limit ?? MDNSBrowser.defaultMaxInstances)
        },
        unicast: { servers, limit, stop, note in
            var limits = WideAreaBrowser.Limits()
            if let limit { limits.maxInstances = limit }
            return WideAreaBrowser(client: UnicastDNSClient(servers: servers, stop: stop, note: note), serviceType: BeaconIdentity.serviceType,
                                   limits: limits)
        },
        magicDNS: { limit, stop, note in
            TailnetFallback.browser(serviceType: BeaconIdentity.serviceType, maxInstances: limit, stop: stop, note: note)
        },
        tailnetProbe: { TailscaleStatus.run(until: $0, stop: $1) },
        resolvConf: { ResolvConf.load().servers },
        clock: SystemMonotonicClock()
    )
}
