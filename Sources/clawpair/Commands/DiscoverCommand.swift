import ClawpairCLIKit
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairWideArea
import Synchronization

/// `clawpair discover`: finds OpenClaw gateways on the local network.
struct DiscoverCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "discover",
        abstract: "Find OpenClaw gateways on the local network (mDNS) and in wide-area DNS-SD domains",
        discussion: [
            "Browses _openclaw-gw._tcp, resolves each gateway's SRV, TXT and addresses, and prints one block per "
                + "gateway: its name, the WebSocket URL to use (wss:// when the gateway advertises TLS), the "
                + "advertised certificate fingerprint, addresses, and the LAN, tailnet and SSH hints it advertises.",
            "Only the resolved SRV host and port route. TXT values, including the TLS fingerprint, are "
                + "unauthenticated hints: anyone on the network can advertise anything. Pin a certificate only after "
                + "checking it another way.",
            "Backends: avahi uses the system's avahi-daemon; native is a built-in multicast DNS querier for machines "
                + "without one; auto (the default) uses avahi when its daemon answers, else native (-v says which).",
            "Wide-area (unicast) DNS-SD: for each domain from --domain, else discovery.wideArea.domain in "
                + "~/.openclaw/openclaw.json ($OPENCLAW_CONFIG_PATH, $OPENCLAW_STATE_DIR), else "
                + "$OPENCLAW_WIDE_AREA_DOMAIN, clawpair asks the DNS servers of --dns-server (else /etc/resolv.conf) "
                + "for PTR _openclaw-gw._tcp.<domain>, then each instance's SRV and TXT and its host's addresses, "
                + "over UDP with EDNS(0) and over TCP when an answer is truncated; each question gets 1 s per server. "
                + "It runs alongside mDNS within the same --timeout. 'clawpair zone' writes the zone such a server "
                + "serves.",
            "Tailnet fallback: when a domain yields no gateway through those servers (typically because Tailscale "
                + "split DNS for it is missing) and this machine is on a tailnet ('tailscale status --json' answers "
                + "within 0.7 s and lists a 100.64.0.0/10 address for this machine), clawpair asks Tailscale's "
                + "MagicDNS resolver 100.100.100.100 for the domain too (1 s for PTR, 0.2 s for each further "
                + "question, within --timeout). No other tailnet address is ever asked: a peer that answered would "
                + "become the authority for the domain.",
            "While it searches, a spinner turns on standard error when that is a terminal; it erases itself before "
                + "the results. None with --json, --watch, -q or -v, or when standard error is not a terminal.",
        ],
        options: [
            .value("timeout", "MS", help: "Stop after this many milliseconds (default 2000); bounds the whole run."),
            .value("backend", "BACKEND", help: "auto, avahi or native (default auto).",
                   completion: .values(DiscoveryBackendChoice.allCases.map(\.rawValue))),
            .flag("first", help: "Exit as soon as one gateway is fully resolved."),
            .flag("watch", help: "Keep running and report gateways as they appear, change and leave, until "
                   + "interrupted (JSON lines with --json). Wide-area domains are browsed again after the "
                   + "smallest TTL of their records, at least every 60 s and at most every 5 s."),
            .repeated("domain", "DOMAIN", help: "Also browse this wide-area DNS-SD domain, such as openclaw.internal "
                      + "(repeatable; replaces the configured domain)."),
            .repeated("dns-server", "IP[:PORT]", help: "Ask this DNS server for wide-area domains (repeatable; "
                      + "[v6]:port for IPv6 with a port; default: the nameservers of /etc/resolv.conf)."),
            .flag("local-only", help: "Only mDNS on the local network; no wide-area domains."),
            .flag("wide-area-only", help: "Only the wide-area domains; no mDNS."),
            .value("wide-area-refresh", "MS", help: "With --watch: browse the wide-area domains again every MS "
                   + "milliseconds instead of following their TTLs (for tests).", hidden: true),
        ],
        examples: [
            Example("clawpair discover", "List the gateways on this network"),
            Example("clawpair discover --first --json | jq -r '.beacons[0].wsUrl'", "The URL of the first gateway found"),
            Example("clawpair discover --watch", "Watch gateways come and go (until Ctrl-C, or --timeout)"),
            Example("clawpair discover --wide-area-only --domain openclaw.internal --dns-server 100.100.100.100",
                    "Ask the tailnet's MagicDNS resolver for gateways in openclaw.internal"),
        ],
        sections: [
            DocSection("JSON OUTPUT", [
                "With --json: {\"timeoutMs\", \"domains\", \"count\", \"beacons\": [...]}, a superset of "
                    + "'openclaw gateway discover --json'. Each beacon has instanceName, domain, displayName, host, "
                    + "port, lanHost, tailnetDns, gatewayPort, sshPort, gatewayTls, gatewayTlsFingerprintSha256, "
                    + "cliPath, role, transport, txt (an object; a key without = is true), wsUrl (follows TLS, unlike "
                    + "upstream; null when the gateway did not resolve to a usable host), and clawpair's addresses "
                    + "(array) and backend (avahi, native, or unicast for wide-area). \"domains\" lists what was searched: "
                    + "local. unless --wide-area-only, then each wide-area domain. Strings are the exact decoded "
                    + "values.",
                "With --watch --json, one object per line: {\"event\": \"added\"|\"updated\"|\"removed\", "
                    + "\"beacon\": {...}}.",
            ]),
        ],
        runner: DiscoverCommand.runner
    )

    let timeoutMs: Int
    let timeoutGiven: Bool
    let backend: DiscoveryBackendChoice
    let first: Bool
    let watch: Bool
    let localOnly: Bool
    let wideAreaOnly: Bool
    /// The wide-area domains and servers; nil when no domain is known or with --local-only.
    let wideArea: WideAreaPlan?
    /// The hidden --wide-area-refresh: a fixed pause between wide-area rounds of --watch.
    let wideAreaRefresh: Duration?

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        if let text = arguments.value("timeout") {
            guard let value = Int(text), (1...3_600_000).contains(value) else {
                throw UsageError("--timeout '\(TerminalText.sanitize(text, maxScalars: 32))' is not a time in milliseconds",
                                 hint: "use e.g. --timeout 2000")
            }
            timeoutMs = value
            timeoutGiven = true
        } else {
            timeoutMs = 2000
            timeoutGiven = false
        }
        let name = arguments.value("backend") ?? "auto"
        guard let backend = DiscoveryBackendChoice(rawValue: name) else {
            throw UsageError("unknown backend '\(TerminalText.sanitize(name, maxScalars: 32))'", hint: "use auto, avahi or native")
        }
        self.backend = backend
        first = arguments.flag("first")
        watch = arguments.flag("watch")
        if first && watch { throw UsageError("--first and --watch do not go together") }
        localOnly = arguments.flag("local-only")
        wideAreaOnly = arguments.flag("wide-area-only")
        if localOnly && wideAreaOnly { throw UsageError("--local-only and --wide-area-only do not go together") }
        if let text = arguments.value("wide-area-refresh") {
            guard let value = Int(text), (1...3_600_000).contains(value) else {
                throw UsageError("--wide-area-refresh '\(TerminalText.sanitize(text, maxScalars: 32))' is not a time in milliseconds")
            }
            wideAreaRefresh = .milliseconds(value)
        } else {
            wideAreaRefresh = nil
        }
        let givenDomains = arguments.values("domain")
        if localOnly && !givenDomains.isEmpty { throw UsageError("--local-only and --domain do not go together") }
        for text in givenDomains {
            guard let domain = WideAreaDomain.normalize(text) else { throw UsageError("--domain is empty") }
            if WideAreaDomain.same(domain, "local.") {
                throw UsageError("--domain local. is the mDNS domain", hint: "mDNS is searched unless --wide-area-only")
            }
            do { _ = try DNSName(domain) } catch {
                throw UsageError("--domain '\(TerminalText.sanitize(text, maxScalars: 64))' is not a DNS name",
                                 hint: "use e.g. --domain openclaw.internal")
            }
        }
        var servers: [DNSServerAddress] = []
        for text in arguments.values("dns-server") {
            guard let server = DNSServerAddress.parse(text) else {
                throw UsageError("--dns-server '\(TerminalText.sanitize(text, maxScalars: 64))' is not an IP address "
                                 + "with an optional port", hint: "use e.g. --dns-server 192.0.2.53, 192.0.2.53:5353 or [2001:db8::53]:53")
            }
            if !servers.contains(server) { servers.append(server) }
        }
        let verbose = context.globals.verbosity > 0
        let domains = localOnly ? [] : WideAreaPlan.domains(given: givenDomains, environment: context.environment,
                                                            note: { if verbose { context.note($0) } })
        if wideAreaOnly && domains.isEmpty {
            throw UsageError("--wide-area-only needs a domain",
                             hint: "give --domain openclaw.internal, or set discovery.wideArea.domain or OPENCLAW_WIDE_AREA_DOMAIN")
        }
        if domains.isEmpty {
            wideArea = nil
        } else {
            wideArea = WideAreaPlan(domains: domains, servers: servers.isEmpty ? ResolvConf.load().servers : servers)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let start = Monotonic.now
        // --watch runs until interrupted unless --timeout is given.
        let deadline = watch && !timeoutGiven ? start + .seconds(365 * 86_400) : start + .milliseconds(timeoutMs)
        if watch { return try runWatch(context, until: deadline) }
        let spinner = Spinner.shouldShow(stderrIsTTY: context.stderrIsTTY, environment: context.environment,
                                         json: context.globals.json, watch: watch, quiet: context.globals.quiet,
                                         verbose: context.globals.verbosity > 0)
            ? Spinner(sink: context.stderr, message: "Searching for gateways", frames: Spinner.frames(environment: context.environment))
            : nil
        defer { spinner?.stop() }
        // Avahi's clean-up waits until the results are printed (the defer runs last).
        let teardown = Teardown()
        defer { teardown.run() }
        var found: [String: Sighting] = [:]
        var order: [String] = []
        let verbose = context.globals.verbosity > 0
        func seen(_ sighting: Sighting) {
            let isNew = found[sighting.key] == nil
            if isNew { order.append(sighting.key) }
            found[sighting.key] = sighting
        }
        // Wide-area runs on its own thread beside mDNS; alone on this one.
        // With --first, mDNS gets the thread instead, so that a wide-area answer can end the run.
        var background: BackgroundWideArea?
        var localDone = wideAreaOnly
        if let wideArea {
            if first && !wideAreaOnly {
                let local = BackgroundLocal(backend: backend, deadline: deadline)
                local.start()
                WideAreaDiscovery.run(wideArea, until: deadline, note: { if verbose { context.note($0) } }) { sighting in
                    seen(sighting)
                    return false
                }
                if found.isEmpty {
                    let (sightings, notes, error) = local.join()
                    if verbose { notes.forEach { context.note($0) } }
                    if let error { throw error }
                    sightings.prefix(1).forEach(seen)
                }
                localDone = true
            } else if wideAreaOnly {
                WideAreaDiscovery.run(wideArea, until: deadline, note: { if verbose { context.note($0) } }) { sighting in
                    seen(sighting)
                    return !first
                }
            } else {
                background = BackgroundWideArea(plan: wideArea, deadline: deadline, first: first)
                background?.start()
            }
        }
        if !localDone {
            _ = try LocalDiscovery.run(backend, until: deadline, teardown: teardown,
                                       note: { if verbose { context.note($0) } }) { event in
                switch event {
                case .seen(let sighting):
                    seen(sighting)
                    return !first
                case .gone(let key, _):
                    found[key] = nil
                    order.removeAll { $0 == key }
                    return true
                }
            }
        }
        if let background {
            if first && !found.isEmpty { background.stop() }
            let (sightings, notes) = background.join()
            if verbose { notes.forEach { context.note($0) } }
            for sighting in sightings where !(first && !found.isEmpty) { seen(sighting) }
        }
        spinner?.stop()
        let sightings = order.compactMap { found[$0] }
        let byBeacon = Dictionary(sightings.map { ($0.beacon.dedupeKey, $0) }, uniquingKeysWith: { first, _ in first })
        let beacons = GatewayBeacon.sorted(GatewayBeacon.deduplicated(sightings.map(\.beacon)))
        if context.globals.json {
            let objects: [JSONValue] = beacons.map { beacon in
                Self.extended(beacon.json, with: byBeacon[beacon.dedupeKey])
            }
            context.printJSON(.object([
                ("timeoutMs", .int(Int64(timeoutMs))),
                ("domains", .array(searchedDomains.map(JSONValue.string))),
                ("count", .int(Int64(beacons.count))),
                ("beacons", .array(objects)),
            ]))
        } else if beacons.isEmpty {
            context.note("No gateways found within \(timeoutMs) ms."
                         + (wideArea == nil ? "" : " Searched \(searchedDomains.joined(separator: ", "))."))
        } else {
            for (index, beacon) in beacons.enumerated() {
                if index > 0 { context.print("") }
                context.stdout.write(DiscoveryText.render(beacon, sighting: byBeacon[beacon.dedupeKey], style: context.style))
            }
        }
        if beacons.isEmpty {
            if !context.globals.json && !wideAreaOnly {
                context.note("hint: check that the gateway runs with discovery on and that this machine is on the same "
                             + "network segment (mDNS does not cross routers); try --timeout 5000")
            }
            return .notFound
        }
        return .success
    }

    /// `local.` unless --wide-area-only, then each wide-area domain.
    private var searchedDomains: [String] { (wideAreaOnly ? [] : ["local."]) + (wideArea?.domains ?? []) }

    /// --watch: mDNS on this thread and the wide-area rounds on another (only the rounds with
    /// --wide-area-only), each change reported as it happens, until the deadline or a signal.
    private func runWatch(_ context: CommandContext, until deadline: Monotonic.Instant) throws -> ExitStatus {
        let verbose = context.globals.verbosity > 0
        let output = OutputLock()
        let note: @Sendable (String) -> Void = { line in if verbose { output.locked { context.note(line) } } }
        var watcher: WideAreaWatch?
        if let wideArea {
            let rounds = WideAreaWatch(plan: wideArea, roundBudget: .milliseconds(min(timeoutMs, 5000)),
                                       refreshOverride: wideAreaRefresh, note: note) { change in
                output.locked {
                    switch change {
                    case .added(let sighting): Self.report("added", sighting.beacon, sighting, context)
                    case .updated(let sighting): Self.report("updated", sighting.beacon, sighting, context)
                    case .removed(_, let last): Self.report("removed", last.beacon, nil, context)
                    }
                }
            }
            if wideAreaOnly {
                rounds.run(until: deadline)
                return .success
            }
            rounds.start(until: deadline)
            watcher = rounds
        }
        defer {
            watcher?.stop()
            watcher?.join()
        }
        var seen = Set<String>()
        _ = try LocalDiscovery.run(backend, until: deadline, note: note) { event in
            switch event {
            case .seen(let sighting):
                let isNew = seen.insert(sighting.key).inserted
                output.locked { Self.report(isNew ? "added" : "updated", sighting.beacon, sighting, context) }
            case .gone(let key, let beacon):
                seen.remove(key)
                if let beacon { output.locked { Self.report("removed", beacon, nil, context) } }
            }
            return true
        }
        return .success
    }

    private static func report(_ event: String, _ beacon: GatewayBeacon, _ sighting: Sighting?, _ context: CommandContext) {
        if context.globals.json {
            context.stdout.write(JSONValue.object([("event", .string(event)),
                                                   ("beacon", extended(beacon.json, with: sighting))]).compact() + "\n")
        } else {
            let mark = event == "added" ? "+" : event == "removed" ? "-" : "~"
            let url = beacon.endpoint?.wsUrl ?? "no usable address"
            context.print("\(mark) \(TerminalText.sanitize(beacon.title, maxScalars: 128))  \(TerminalText.sanitize(url, maxScalars: 256))")
        }
    }

    private static func extended(_ json: JSONValue, with sighting: Sighting?) -> JSONValue {
        guard case .object(var members) = json else { return json }
        members.append(("addresses", .array((sighting?.addresses ?? []).map(JSONValue.string))))
        members.append(("backend", sighting.map { .string($0.backend) } ?? .null))
        return .object(members)
    }
}

/// Serializes what the --watch threads write, so that lines never interleave.
final class OutputLock: Sendable {
    private let mutex = Mutex(())
    func locked(_ body: () -> Void) { mutex.withLock { _ in body() } }
}

/// The human rendering of one beacon. Every value from the network is sanitized.
enum DiscoveryText {
    static func render(_ beacon: GatewayBeacon, sighting: Sighting?, style: TextStyle) -> String {
        func clean(_ text: String) -> String { TerminalText.sanitize(text, maxScalars: 256) }
        var out = style.bold(clean(beacon.title)) + "\n"
        func line(_ label: String, _ value: String) {
            out += "  " + TextColumns.label(label, width: 11) + value + "\n"
        }
        if beacon.instanceName != beacon.title { line("instance", clean(beacon.instanceName)) }
        if let endpoint = beacon.endpoint {
            var url = clean(endpoint.wsUrl)
            if !endpoint.mayConnect { url += style.yellow("  (plaintext to a non-local host: needs wss://)") }
            line("url", url)
        } else {
            line("url", style.yellow("none: the beacon did not resolve to a usable host and port"))
        }
        if beacon.gatewayTls {
            if let pin = beacon.gatewayTlsFingerprintSha256 {
                line("tls", "yes, advertises sha256 \(clean(pin)) " + style.dim("(unauthenticated hint)"))
            } else {
                line("tls", "yes")
            }
        }
        if let sighting, !sighting.addresses.isEmpty { line("addresses", sighting.addresses.map(clean).joined(separator: ", ")) }
        if let lan = beacon.lanHost { line("lan host", clean(lan)) }
        if let tailnet = beacon.tailnetDns { line("tailnet", clean(tailnet)) }
        if let host = beacon.endpoint?.host, beacon.sshPort != nil || beacon.txt.value("sshPort") != nil {
            let port = beacon.sshPort.flatMap { $0 == 22 ? nil : $0 }
            line("ssh", "ssh " + (port.map { "-p \($0) " } ?? "") + clean(host))
        }
        line("domain", clean(beacon.domain))
        if let sighting { line("seen via", sighting.backend) }
        return out
    }
}
