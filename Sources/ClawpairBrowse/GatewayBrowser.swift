// Finding OpenClaw gateways: mDNS on the local link (through avahi-daemon, or the built-in
// querier where there is none) and wide-area DNS-SD domains (unicast DNS, with the tailnet
// fallback to MagicDNS), run side by side on their own threads and merged into one list in
// which each gateway is one entry.
//
// Files: GatewayBrowser (the public API), GatewayTable (the merge), BrowseRun (threads and
// the mailbox between them), LocalSource and WideAreaSource (the backends), BrowseBackends
// (the seams tests fill with fakes), TailnetDetection.
//
// Adding a backend: write a `GatewaySource` (BrowseRun.swift) that reports what it sees with
// the same key (`domain|instance name`) the others use, give it a `GatewayBrowser.Backend`
// case and a factory in `BrowseBackends`, and start it in `GatewayBrowser.sources(domains:watch:)`.
// The merge, first-answer mode, the event stream and the notes then work for it unchanged.

import ClawpairCore
import ClawpairDiscovery
import ClawpairConfig
import ClawpairWideArea

#if canImport(Glibc)
import Glibc
#endif

/// Browses `_openclaw-gw._tcp` in `local.` and the wide-area domains, and merges what every
/// backend and interface reports into one entry per gateway.
///
/// ```swift
/// let browser = GatewayBrowser(options: .init(timeout: .seconds(2)))
/// for gateway in try browser.scan().gateways {
///     print(gateway.beacon.title, gateway.beacon.endpoint?.url ?? "-")
/// }
/// ```
///
/// Three ways to run it: ``scan(note:)`` waits for the timeout and returns the sorted,
/// deduplicated list; ``first(note:)`` returns as soon as one gateway is resolved;
/// ``watch(note:onEvent:)`` reports gateways as they are added, change and are removed.
/// Every callback runs on the calling thread. A run returns only after its backends have closed
/// what they opened: no Avahi client, socket or thread of it outlives the call. TXT values are
/// unauthenticated hints: only the resolved SRV host and port (``GatewayBeacon/endpoint``) route.
public struct GatewayBrowser: Sendable {
    /// Which mDNS implementation browses the local link.
    public enum LocalBackend: String, CaseIterable, Sendable {
        /// avahi-daemon when it answers on the system bus, else the built-in querier.
        case auto
        /// avahi-daemon (fails when it is not running).
        case avahi
        /// The built-in one-shot mDNS querier, which needs no daemon.
        case native
    }

    /// Where a sighting came from.
    public enum Backend: String, Sendable, Hashable {
        /// avahi-daemon (mDNS).
        case avahi
        /// The built-in mDNS querier.
        case native
        /// Unicast DNS-SD in a wide-area domain.
        case unicast
    }

    /// What to browse, where, and for how long.
    public struct Options: Sendable {
        /// The mDNS backend (default ``LocalBackend/auto``).
        public var backend: LocalBackend
        /// Whether to browse `local.` with mDNS at all (default true).
        public var local: Bool
        /// The wide-area domains to browse. nil (the default): the OpenClaw config's
        /// `discovery.wideArea.domain`, else `OPENCLAW_WIDE_AREA_DOMAIN`, both looked up through
        /// ``environment`` (see ``GatewayBrowser/configuredDomains(given:environment:note:)``);
        /// empty: none.
        public var domains: [String]?
        /// The environment the configuration is read through (``environmentKeys``); by default
        /// the process's (``processEnvironment()``).
        public var environment: [String: String]
        /// The DNS servers asked for the wide-area domains; empty (the default): those of
        /// /etc/resolv.conf.
        public var dnsServers: [DNSServerAddress]
        /// Whether a wide-area domain that yields no gateway is asked of MagicDNS too when this
        /// machine is on a tailnet (discovery.md §7; default true).
        public var tailnetFallback: Bool
        /// How long a run takes at most (default 2 s). ``watch(note:onEvent:)`` runs this long too.
        public var timeout: Duration
        /// End the run at the first resolved gateway (what ``first(note:)`` sets).
        public var firstAnswer: Bool
        /// In ``watch(note:onEvent:)``: a fixed pause between two wide-area rounds instead of the
        /// one their TTLs give (``WideAreaRefresh``), for tests.
        public var wideAreaRefresh: Duration?
        /// In ``watch(note:onEvent:)``: the most one wide-area round may take; nil (the
        /// default): ``timeout``, at most 5 s.
        public var wideAreaRoundTimeout: Duration?
        /// The most gateways kept in `local.` and in each wide-area domain; nil (the default):
        /// each backend's own bound (``MDNSBrowser/defaultMaxInstances`` and
        /// ``WideAreaBrowser/defaultMaxInstances``, 2,048; ``AvahiLimits/defaultMaxInstances``, 512,
        /// because avahi-daemon allows a client 1,024 objects and each gateway costs two). What a
        /// bound cuts is reported in ``Scan/truncated``, never silently.
        public var maxGateways: Int?

        /// Options with every default: ``LocalBackend/auto``, mDNS on, the configured wide-area
        /// domains, the servers of /etc/resolv.conf, the tailnet fallback on, 2 s, every gateway,
        /// each backend's own bound on how many.
        public init(backend: LocalBackend = .auto, local: Bool = true, domains: [String]? = nil,
                    environment: [String: String] = Options.processEnvironment(), dnsServers: [DNSServerAddress] = [],
                    tailnetFallback: Bool = true, timeout: Duration = .seconds(2), firstAnswer: Bool = false,
                    wideAreaRefresh: Duration? = nil, wideAreaRoundTimeout: Duration? = nil, maxGateways: Int? = nil) {
            self.backend = backend
            self.local = local
            self.domains = domains
            self.environment = environment
            self.dnsServers = dnsServers
            self.tailnetFallback = tailnetFallback
            self.timeout = timeout
            self.firstAnswer = firstAnswer
            self.wideAreaRefresh = wideAreaRefresh
            self.wideAreaRoundTimeout = wideAreaRoundTimeout
            self.maxGateways = maxGateways.map { max(1, $0) }
        }

        /// The variables the browser reads: where the OpenClaw config is, and the wide-area domain.
        public static let environmentKeys = ["HOME", "OPENCLAW_CONFIG_PATH", "OPENCLAW_STATE_DIR",
                                             WideAreaDomain.environmentVariable]

        /// This process's values of ``environmentKeys``.
        public static func processEnvironment() -> [String: String] {
            var environment: [String: String] = [:]
            for key in environmentKeys {
                if let value = getenv(key) { environment[key] = String(cString: value) }
            }
            return environment
        }
    }

    /// A change to the list of gateways, as ``watch(note:onEvent:)`` reports it (which change
    /// brings which event, per backend: ``watch(note:onTruncated:onEvent:)``). Events of one
    /// gateway (one ``GatewaySighting/key``) come in order: `.added`, any `.updated`, `.removed`,
    /// and `.added` again if it comes back.
    public enum Event: Sendable, Equatable {
        /// A gateway appeared: its beacon is resolved (SRV, TXT and at least one address).
        case added(GatewaySighting)
        /// A gateway's beacon (TXT, port, SRV host), addresses or backend changed: what it shows now.
        case updated(GatewaySighting)
        /// A gateway went away (goodbye, expiry, or its domain no longer lists it): its last sighting.
        case removed(GatewaySighting)
    }

    /// What a ``scan(note:)`` found.
    public struct Scan: Sendable {
        /// One entry per gateway (first sighting of each ``GatewayBeacon/dedupeKey``), sorted
        /// by ``GatewayBeacon/sorted(_:)``. A gateway in two domains is two entries, as in the TS CLI.
        public var gateways: [GatewaySighting]
        /// The domains searched: `local.` unless mDNS was off, then each wide-area domain.
        public var searched: [String]
        /// The wide-area domains browsed (normalized, with a trailing dot).
        public var wideAreaDomains: [String]
        /// The mDNS backend that answered (nil: mDNS off, or the run ended before it said).
        public var localBackend: Backend?
        /// What happened along the way (which backend, what each domain listed, problems): for `-v`.
        public var notes: [String]
        /// The wide-area domains that got no answer to their PTR question (a dead or unreachable
        /// DNS server), in the order they failed: worth telling without `-v`.
        public var failedDomains: [DomainFailure] = []
        /// The domains where a bound (``Options/maxGateways``) left gateways out, each once.
        public var truncated: [Truncation] = []
        /// The domains whose answer the timeout cut short: gateways named but not yet resolved
        /// when ``Options/timeout`` ended the scan (a busy machine or a slow network), each once.
        public var unfinished: [Unfinished] = []
    }

    /// A domain whose answer was not complete when the timeout ended the scan.
    public struct Unfinished: Sendable, Equatable {
        /// The domain (`local.`), with a trailing dot.
        public var domain: String
        /// How many distinct gateways the domain named.
        public var seen: Int
        /// How many of those were not resolved yet, so are not listed.
        public var unresolved: Int

        /// `{"domain", "seen", "unresolved"}`, as the discover JSON carries it.
        public func json() -> JSONValue {
            .object([("domain", .string(domain)), ("seen", .int(Int64(seen))), ("unresolved", .int(Int64(unresolved)))])
        }
    }

    /// A domain that listed more gateways than a bound keeps.
    public struct Truncation: Sendable, Equatable {
        /// The domain (`local.` or a wide-area domain, with a trailing dot).
        public var domain: String
        /// How many distinct gateways the domain named, at the most.
        public var seen: Int
        /// How many were kept (the bound).
        public var limit: Int

        /// `{"domain", "seen", "kept"}` (after `"event": event` when given), as the discover JSON carries it.
        public func json(event: String? = nil) -> JSONValue {
            .object((event.map { [("event", JSONValue.string($0))] } ?? [])
                    + [("domain", .string(domain)), ("seen", .int(Int64(seen))), ("kept", .int(Int64(limit)))])
        }
    }

    /// A wide-area domain whose browse got no answer.
    public struct DomainFailure: Sendable, Equatable {
        /// The domain, normalized with a trailing dot.
        public var domain: String
        /// Why, e.g. `no DNS server answered for _openclaw-gw._tcp.openclaw.internal. PTR in time`.
        public var reason: String
    }

    /// What the browser was asked to do.
    public let options: Options
    let backends: BrowseBackends
    let tailnet: TailnetDetection?
    /// Ends a run of this browser from any thread (``stopping(on:)``).
    var stop: StopSignal?

    /// This browser, with every run (``scan(note:)``, ``first(note:)``, ``watch(note:onTruncated:onEvent:)``)
    /// ending as soon as `signal` is raised, from any thread: the run throws ``BrowseError/stopped(_:)``
    /// (code `cancelled`) within milliseconds, once its backends have closed what they opened
    /// (each wakes at the signal; only a blocking call to an avahi-daemon that stopped answering
    /// can hold it, up to libdbus's 25 s).
    public func stopping(on signal: StopSignal) -> GatewayBrowser {
        var copy = self
        copy.stop = signal
        return copy
    }

    /// A browser on the system's backends.
    public init(options: Options = Options()) {
        self.init(options: options, backends: .system)
    }

    init(options: Options, backends: BrowseBackends) {
        self.options = options
        self.backends = backends
        tailnet = options.tailnetFallback ? TailnetDetection(probe: backends.tailnetProbe, clock: backends.clock) : nil
    }

    /// Browses until ``Options/timeout`` (or the first gateway with ``Options/firstAnswer``) and
    /// returns what was found. `note` gets each note as it happens (also kept in
    /// ``Scan/notes``). Throws when the mDNS backend fails (say, ``LocalBackend/avahi`` without
    /// avahi-daemon), unless a first answer came from elsewhere.
    public func scan(note: (String) -> Void = { _ in }) throws(BrowseError) -> Scan {
        var notes: [String] = []
        let domains = wideAreaDomains(note: { notes.append($0); note($0) })
        var table = GatewayTable()
        var localBackend: Backend?
        var failedDomains: [DomainFailure] = []
        var truncated: [Truncation] = []
        var unfinished: [Unfinished] = []
        try BrowseRun(sources: sources(domains: domains, watch: false), clock: backends.clock, timeout: options.timeout,
                      firstAnswer: options.firstAnswer, stop: stop).run { message in
            switch message {
            case .note(let line):
                notes.append(line)
                note(line)
            case .answered(let backend):
                localBackend = backend
            case .failed(let domain, let reason):
                failedDomains.append(DomainFailure(domain: domain, reason: reason))
            case .truncated(let domain, let seen, let limit):
                if let index = truncated.firstIndex(where: { $0.domain == domain }) {
                    truncated[index].seen = max(truncated[index].seen, seen)
                } else {
                    truncated.append(Truncation(domain: domain, seen: seen, limit: limit))
                }
            case .unfinished(let domain, let seen, let unresolved):
                unfinished.removeAll { $0.domain == domain }
                unfinished.append(Unfinished(domain: domain, seen: seen, unresolved: unresolved))
            case .seen(let report):
                if case .added = table.seen(report), options.firstAnswer { return false }
            case .gone(let key, let backend):
                _ = table.gone(key: key, backend: backend)
            }
            return true
        }
        return Scan(gateways: table.listed(limit: options.firstAnswer ? 1 : .max), searched: (options.local ? ["local."] : []) + domains,
                    wideAreaDomains: domains, localBackend: localBackend, notes: notes, failedDomains: failedDomains,
                    truncated: truncated, unfinished: unfinished)
    }

    /// The first gateway resolved before ``Options/timeout``, or nil. Returns as soon as one
    /// is and the other backends have closed what they opened (they are told to end at once).
    public func first(note: (String) -> Void = { _ in }) throws(BrowseError) -> GatewaySighting? {
        var options = self.options
        options.firstAnswer = true
        var browser = GatewayBrowser(options: options, backends: backends)
        browser.stop = stop
        return try browser.scan(note: note).gateways.first
    }

    /// Reports gateways as they are added, change and are removed, until ``Options/timeout``
    /// or until `onEvent` returns false. Wide-area domains are browsed again after the smallest
    /// TTL of their records (``WideAreaRefresh``). `onTruncated` hears of each domain that named
    /// more gateways than a bound keeps (``Options/maxGateways``), when it first happens and
    /// whenever the count seen grows. Throws when a backend fails.
    ///
    /// One watch follows a gateway however long it runs (no need to start it again to ask
    /// afresh). In `local.`, with either mDNS backend (avahi-daemon or the built-in querier):
    /// - A beacon first resolved is `.added`; a change of its TXT, port, SRV host or addresses
    ///   is `.updated` with what it shows now.
    /// - A goodbye (RFC 6762 §10.1) is `.removed` about a second after it. The same instance name
    ///   back later, at any address and under any host name, is `.added` with what it advertises.
    /// - The same instance name back without a goodbye in between (its advertiser killed,
    ///   restarted or moved) at a new address or under a new host name is `.updated` to the new
    ///   SRV host and addresses about a second after its announcement, when the old records were
    ///   received more than a second before it (RFC 6762 §10.2 flushes only those): the old
    ///   address is not listed any more. The built-in querier may report an `.updated` listing the
    ///   old address beside the new one for that second.
    /// - Back within a second of its last announcement, nothing is flushed and the old records
    ///   stay until their TTL runs out (120 s for host records from avahi-daemon and
    ///   python-zeroconf), unless a later announcement flushes them: the built-in querier at once
    ///   reports the new SRV host, or the new address beside the old one; Avahi reports the change
    ///   only when the old record expires.
    /// - A beacon that vanishes without a goodbye and does not come back stays listed, with its
    ///   last addresses, until its PTR record expires from the cache: the TTL its advertiser gave
    ///   (4,500 s from avahi-daemon and python-zeroconf) after its last announcement or answer;
    ///   then it is `.removed`. No backend can tell sooner (RFC 6762 §10).
    ///
    /// In a wide-area domain a gateway is `.added`, `.updated` and `.removed` as each round's
    /// answer lists it, changed or not at all.
    public func watch(note: (String) -> Void = { _ in }, onTruncated: (Truncation) -> Void = { _ in },
                      onEvent: (Event) -> Bool) throws(BrowseError) {
        let domains = wideAreaDomains(note: note)
        var table = GatewayTable()
        var seenByDomain: [String: Int] = [:]
        try BrowseRun(sources: sources(domains: domains, watch: true), clock: backends.clock, timeout: options.timeout,
                      firstAnswer: false, stop: stop).run { message in
            switch message {
            case .note(let line):
                note(line)
            case .answered, .failed, .unfinished:
                break
            case .truncated(let domain, let seen, let limit):
                guard seen > seenByDomain[domain, default: 0] else { break }
                seenByDomain[domain] = seen
                onTruncated(Truncation(domain: domain, seen: seen, limit: limit))
            case .seen(let report):
                if let event = table.seen(report) { return onEvent(event) }
            case .gone(let key, let backend):
                if let event = table.gone(key: key, backend: backend) { return onEvent(event) }
            }
            return true
        }
    }

    /// The wide-area domains of ``Options/domains`` (none when it is empty), or the configured
    /// ones when it is nil.
    func wideAreaDomains(note: (String) -> Void) -> [String] {
        if let given = options.domains, given.isEmpty { return [] }
        return Self.configuredDomains(given: options.domains ?? [], environment: options.environment, note: note)
    }

    /// The sources a run starts: mDNS, then the wide-area domains (one pass, or rounds for a watch).
    func sources(domains: [String], watch: Bool) -> [any GatewaySource] {
        var sources: [any GatewaySource] = []
        if options.local {
            sources.append(LocalSource(choice: options.backend, backends: backends, untilComplete: !watch,
                                       limit: options.maxGateways))
        }
        if !domains.isEmpty {
            let plan = WideAreaPlan(domains: domains,
                                    servers: options.dnsServers.isEmpty ? backends.resolvConf() : options.dnsServers,
                                    tailnet: tailnet, maxGateways: options.maxGateways)
            if watch {
                sources.append(WideAreaRounds(plan: plan, backends: backends,
                                              roundBudget: options.wideAreaRoundTimeout
                                                  ?? min(options.timeout, WideAreaRounds.maxRound),
                                              refreshOverride: options.wideAreaRefresh))
            } else {
                sources.append(WideAreaPass(plan: plan, backends: backends))
            }
        }
        return sources
    }
}

/// One gateway as the browser knows it: the latest beacon any backend reported for it, merged
/// across backends and interfaces.
public struct GatewaySighting: Sendable, Equatable {
    /// Where one report came from.
    public struct Origin: Sendable, Hashable {
        /// The backend that reported it.
        public var backend: GatewayBrowser.Backend
        /// The interface it was seen on (if_nametoindex numbering), when the backend says.
        public var interfaceIndex: UInt32?
        /// The domain it was browsed in (`local.` or the wide-area domain).
        public var domain: String

        /// A report from `backend` in `domain`, on interface `interfaceIndex` when known.
        public init(backend: GatewayBrowser.Backend, interfaceIndex: UInt32? = nil, domain: String) {
            self.backend = backend
            self.interfaceIndex = interfaceIndex
            self.domain = domain
        }
    }

    /// Identifies the gateway across reports: `domain|instance name`.
    public var key: String
    /// The beacon: SRV, TXT and what follows from them.
    public var beacon: GatewayBeacon
    /// The addresses the latest report carried (textual IPv4 and IPv6).
    public var addresses: [String]
    /// The backend of the latest report.
    public var backend: GatewayBrowser.Backend { origin.backend }
    /// Where the latest report came from.
    public var origin: Origin
    /// Every backend and interface that currently reports the gateway, oldest first.
    public var origins: [Origin]

    /// A sighting of `beacon` whose latest report came from `origin`; `origins` (default: just
    /// `origin`) lists every origin that reports it.
    public init(key: String, beacon: GatewayBeacon, addresses: [String], origin: Origin, origins: [Origin]? = nil) {
        self.key = key
        self.beacon = beacon
        self.addresses = addresses
        self.origin = origin
        self.origins = origins ?? [origin]
    }
}

extension GatewayBrowser {
    /// The wide-area domains to browse: `given` when not empty, else the OpenClaw config's
    /// `discovery.wideArea.domain` (`$OPENCLAW_CONFIG_PATH`, `$OPENCLAW_STATE_DIR`,
    /// `~/.openclaw/openclaw.json`), else `OPENCLAW_WIDE_AREA_DOMAIN` (the TS rule).
    /// Normalized with a trailing dot, each once (ignoring case). A config file that cannot be
    /// read becomes a note (`warning: ignoring …`), never a failure.
    public static func configuredDomains(given: [String], environment: [String: String],
                                         note: (String) -> Void) -> [String] {
        var raw = given
        if raw.isEmpty {
            var configured: String?
            if let path = OpenClawConfig.path(environment: environment) {
                do { configured = try OpenClawConfig.wideAreaDomain(path: path) } catch {
                    note("warning: ignoring \(path): \(error.message)")
                }
            }
            if let domain = WideAreaDomain.resolve(config: configured, environment: environment) { raw = [domain] }
        }
        var domains: [String] = []
        for text in raw {
            guard let domain = WideAreaDomain.normalize(text),
                  !domains.contains(where: { WideAreaDomain.same($0, domain) }) else { continue }
            domains.append(domain)
        }
        return domains
    }
}
