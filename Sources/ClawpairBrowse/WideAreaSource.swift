import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairWideArea

/// Which domains a wide-area browse covers and which servers it asks.
struct WideAreaPlan: Sendable {
    /// Normalized, with a trailing dot, each once (compared ignoring case).
    let domains: [String]
    let servers: [DNSServerAddress]
    /// Tells whether this machine is on a tailnet, for the MagicDNS fallback; nil: no fallback.
    let tailnet: TailnetDetection?
    /// Most instances resolved per domain (nil: ``WideAreaBrowser/defaultMaxInstances``).
    var maxGateways: Int? = nil
}

/// Browsing one wide-area domain, with the tailnet fallback.
enum WideAreaLookup {
    /// Browses `domain` through `browser`'s servers and, when that finds no gateway and this
    /// machine is on a tailnet, through MagicDNS (discovery.md §7, ``TailnetFallback``). The
    /// result is the fallback's when it ran. Throws when the browse that counts got no PTR answer.
    static func browse(_ domain: String, _ browser: any WideAreaBrowsing, plan: WideAreaPlan, backends: BrowseBackends,
                       deadline: Monotonic.Instant, stop: StopSignal, note: @escaping @Sendable (String) -> Void,
                       onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> WideAreaBrowseResult {
        var found = 0
        let primary: Result<WideAreaBrowseResult, WideAreaError>
        do {
            primary = .success(try browser.browse(domain: domain, deadline: deadline) { service in
                found += 1
                return onFound(service)
            })
        } catch {
            primary = .failure(error)
        }
        if let tailnet = plan.tailnet, backends.clock.now < deadline,
           TailnetFallback.applies(found: found, servers: browser.servers,
                                   onTailnet: { tailnet.address(deadline: deadline, stop: stop) != nil }) {
            note("wide-area: \(domain) found no gateway through the configured DNS servers and this machine is on a "
                 + "tailnet: asking MagicDNS \(TailnetFallback.magicDNS.host)")
            return try backends.magicDNS(plan.maxGateways, stop, note).browse(domain: domain, deadline: deadline, onFound: onFound)
        }
        return try primary.get()
    }

    /// The report of a browsed instance: key `domain|instance label`, backend `unicast`.
    static func report(_ service: WideAreaService) -> SourceReport {
        let beacon = GatewayBeacon(instance: service.instance, domain: service.domain, srv: service.srv, txt: service.txt)
        return SourceReport(key: key(domain: service.domain, instance: service.instance), beacon: beacon,
                            addresses: service.addresses, origin: .init(backend: .unicast, domain: service.domain))
    }

    /// The key of an instance of `domain`, as ``report(_:)`` builds it.
    static func key(domain: String, instance: DNSName) -> String {
        domain + "|" + (instance.firstLabel.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }
}

/// Every domain of the plan browsed once, in turn (``GatewayBrowser/scan(note:)``).
struct WideAreaPass: GatewaySource {
    let plan: WideAreaPlan
    let backends: BrowseBackends

    func run(_ context: SourceContext, teardown: Teardown) {
        let note: @Sendable (String) -> Void = { context.note($0) }
        let browser = backends.unicast(plan.servers, plan.maxGateways, context.ending, note)
        for domain in plan.domains {
            var keepGoing = true
            do {
                let result = try WideAreaLookup.browse(domain, browser, plan: plan, backends: backends,
                                                       deadline: context.deadline, stop: context.ending, note: note) { service in
                    keepGoing = context.report(.seen(WideAreaLookup.report(service)))
                    return keepGoing
                }
                note("wide-area: \(domain) lists \(result.seen) instance(s)")
                if result.truncated {
                    context.report(.truncated(domain: domain, seen: result.seen, limit: result.listed.count))
                }
            } catch {
                note("wide-area: \(domain): \(error.message)")
                context.report(.failed(domain: domain, reason: error.message))
            }
            if !keepGoing || !context.goingOn { return }
        }
    }
}

/// The domains of the plan browsed in rounds (``GatewayBrowser/watch(note:onEvent:)``): every
/// domain, then a pause of ``WideAreaRefresh/interval(ttl:allFailed:override:)``, until the
/// deadline. Instances are reported when they first appear or change; one a domain's PTR
/// answer no longer lists is withdrawn (``WideAreaChangeTracker``).
struct WideAreaRounds: GatewaySource {
    /// The most one round may take.
    static let maxRound: Duration = .seconds(5)

    let plan: WideAreaPlan
    let backends: BrowseBackends
    let roundBudget: Duration
    let refreshOverride: Duration?

    func run(_ context: SourceContext, teardown: Teardown) {
        let note: @Sendable (String) -> Void = { context.note($0) }
        let browser = backends.unicast(plan.servers, plan.maxGateways, context.ending, note)
        let clock = backends.clock
        var tracker = WideAreaChangeTracker<SourceReport>()
        while context.goingOn {
            let roundDeadline = min(context.deadline, clock.now + roundBudget)
            var ttl: UInt32?
            func keep(_ value: UInt32?) { if let value { ttl = min(ttl ?? .max, value) } }
            var answered = 0
            for domain in plan.domains {
                guard !context.stopped, clock.now < roundDeadline else { break }
                do {
                    let result = try WideAreaLookup.browse(domain, browser, plan: plan, backends: backends,
                                                           deadline: roundDeadline, stop: context.ending, note: note) { service in
                        keep(service.ttl)
                        let report = WideAreaLookup.report(service)
                        if tracker.seen(report, key: report.key, in: service.domain) != nil {
                            return context.report(.seen(report))
                        }
                        return !context.stopped
                    }
                    answered += 1
                    keep(result.listTTL)
                    let keys = Set(result.listed.map { WideAreaLookup.key(domain: domain, instance: $0) })
                    for change in tracker.listed(keys, in: domain) {
                        if case .removed(let key, _) = change { context.report(.gone(key: key, backend: .unicast)) }
                    }
                } catch {
                    note("wide-area: \(domain): \(error.message)")
                }
            }
            let pause = WideAreaRefresh.interval(ttl: ttl, allFailed: answered == 0, override: refreshOverride)
            note("wide-area: next browse in \(pause)")
            clock.sleep(until: min(context.deadline, clock.now + pause), unless: { context.stopped })
        }
    }
}
