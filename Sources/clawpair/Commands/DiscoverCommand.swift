import ClawpairBrowse
import ClawpairCLIKit
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairWideArea

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
                + "without one; auto (the default) uses avahi when its daemon answers, else native (-v says which, and "
                + "for native how the run ended, the queries it sent and whether it waited because answers were lost).",
            "It ends as soon as the answer is complete, at the latest at --timeout; --first ends at the first gateway "
                + "resolved, --watch runs until --timeout or Ctrl-C. Wide-area domains come from --domain, else "
                + "discovery.wideArea.domain in OpenClaw's config, else $OPENCLAW_WIDE_AREA_DOMAIN. The man page "
                + "clawpair-discover(1) has the timing rules, the wide-area lookup and the tailnet fallback in full.",
            "While it searches, a spinner turns on standard error when that is a terminal; it erases itself before "
                + "the results. None with --json, --watch, -q or -v, or when standard error is not a terminal.",
        ],
        options: [
            .value("timeout", "MS", help: "Stop after this long at the latest, in ms or with a unit such as 3s (default 2000); bounds the whole run."),
            .value("backend", "BACKEND", help: "auto, avahi or native (default auto).",
                   completion: .values(GatewayBrowser.LocalBackend.allCases.map(\.rawValue))),
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
            .value("max-gateways", "N", help: "Keep at most N gateways in local. and in each wide-area domain (default "
                   + "2048; 512 through avahi-daemon, which allows a client 1,024 objects, two per gateway). When a bound "
                   + "cuts a list, a warning on standard error and \"truncated\" in --json say how many were seen."),
            .value("wide-area-refresh", "MS", help: "With --watch: browse the wide-area domains again every MS "
                   + "milliseconds instead of following their TTLs (for tests).", hidden: true),
        ],
        examples: [
            Example("clawpair discover", "List the gateways on this network"),
            Example("clawpair discover --first --json",
                    "The first gateway found, as JSON (exit status 3 when there is none)"),
            Example("clawpair discover --watch", "Watch gateways come and go (until Ctrl-C, or --timeout)"),
            Example("clawpair discover --wide-area-only --domain openclaw.internal --dns-server 100.100.100.100",
                    "Ask the tailnet's MagicDNS resolver for gateways in openclaw.internal"),
        ],
        sections: [
            .inManSource("WHEN IT ENDS"),
            .inManSource("WIDE-AREA DNS-SD"),
            .inManSource("TAILNET FALLBACK"),
            .inManSource("JSON OUTPUT"),
            .inManSource("LIMITS"),
        ],
        runner: DiscoverCommand.runner
    )

    /// What to browse; the timeout is --timeout's, or a year for --watch without one.
    let options: GatewayBrowser.Options
    let timeoutMs: Int
    let watch: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        // Digits are milliseconds; anything else a duration with a unit (3s, 1m), as other commands take.
        let timeout = try arguments.parsed("timeout", { text in
            let ms = DurationOption.isBareNumber(text) ? Int64(text) : DurationText.milliseconds(text)
            return ms.flatMap { (1...3_600_000).contains($0) ? Int($0) : nil }
        }, invalid: { text in
            UsageError("--timeout '\(TerminalText.sanitize(text, maxScalars: 32))' is not a time in milliseconds",
                       hint: "use e.g. --timeout 2000 or --timeout 3s (at most 1h)")
        })
        timeoutMs = timeout ?? 2000
        let backend: GatewayBrowser.LocalBackend = try arguments.choice("backend", noun: "backend", default: .auto)
        watch = arguments.flag("watch")
        try arguments.exclusive("first", "watch")
        try arguments.exclusive("local-only", "wide-area-only")
        let wideAreaRefresh = try arguments.integer("wide-area-refresh", in: 1...3_600_000, isNot: "a time in milliseconds")
        let maxGateways = try arguments.integer("max-gateways", in: 1...1_000_000, isNot: "a number from 1 to 1000000")
        try arguments.exclusive("local-only", "domain")
        let givenDomains = arguments.values("domain")
        for text in givenDomains {
            guard let domain = WideAreaDomain.normalize(text) else { throw UsageError("--domain is empty") }
            if WideAreaDomain.same(domain, "local.") {
                throw UsageError("--domain local. is the mDNS domain", hint: "mDNS is searched unless --wide-area-only")
            }
            guard (try? DNSName(domain)) != nil else {
                throw UsageError("--domain '\(TerminalText.sanitize(text, maxScalars: 64))' is not a DNS name",
                                 hint: "use e.g. --domain openclaw.internal")
            }
        }
        var servers: [DNSServerAddress] = []
        for server in try arguments.parsedValues("dns-server", isNot: "an IP address with an optional port",
                                                 hint: "use e.g. --dns-server 192.0.2.53, 192.0.2.53:5353 or [2001:db8::53]:53",
                                                 { DNSServerAddress.parse($0) }) where !servers.contains(server) {
            servers.append(server)
        }
        let wideAreaOnly = arguments.flag("wide-area-only")
        let domains = arguments.flag("local-only") ? [] : GatewayBrowser.configuredDomains(
            given: givenDomains, environment: context.environment, note: context.verboseNote)
        if wideAreaOnly && domains.isEmpty {
            throw UsageError("--wide-area-only needs a domain",
                             hint: "give --domain openclaw.internal, or set discovery.wideArea.domain or OPENCLAW_WIDE_AREA_DOMAIN")
        }
        // --watch runs until interrupted unless --timeout is given; a --watch round takes at most
        // --timeout (2 s by default), and at most 5 s.
        options = GatewayBrowser.Options(
            backend: backend, local: !wideAreaOnly, domains: domains, dnsServers: servers,
            timeout: watch && timeout == nil ? .seconds(365 * 86_400) : .milliseconds(timeoutMs),
            firstAnswer: arguments.flag("first"), wideAreaRefresh: wideAreaRefresh.map { .milliseconds($0) },
            wideAreaRoundTimeout: .milliseconds(min(timeoutMs, 5000)), maxGateways: maxGateways)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        var browser = GatewayBrowser(options: options)
        if watch {
            // Ctrl-C (SIGINT) or SIGTERM stops the watch through the browser's stop signal: it
            // returns within milliseconds and the command ends normally.
            browser = browser.stopping(on: TerminationSignals().stopSignal())
            do {
                try browser.watch(note: context.verboseNote, onTruncated: { cut in
                    if context.globals.json { context.printJSONLine(cut.json(event: "truncated")) } else { context.warn(Self.truncationWarning(cut)) }
                }) { event in
                    if context.globals.json { context.printJSONLine(event.json) } else { context.print(event.textLine) }
                    return true
                }
            } catch BrowseError.stopped {
                return .success
            }
            return .success
        }
        let spinner = Spinner.start("Searching for gateways", in: context)
        defer { spinner?.stop() }
        let scan = try browser.scan(note: context.verboseNote)
        spinner?.stop()
        // A dead DNS server is worth a word without -v (-v has it among the notes).
        for failure in scan.failedDomains where context.globals.verbosity == 0 {
            context.note(TerminalText.sanitize("warning: wide-area: \(failure.domain): \(failure.reason)",
                                               maxScalars: TerminalText.defaultMaxScalars))
        }
        for cut in scan.truncated { context.warn(Self.truncationWarning(cut)) }
        for short in scan.unfinished { context.warn(Self.unfinishedWarning(short, timeoutMs: timeoutMs)) }
        if context.globals.json && scan.gateways.isEmpty {
            // Nothing found is exit 3, so the document is a failure's: "ok": false and the error first.
            let hint = options.local ? "check that the gateway runs with discovery on and that this machine is on the same "
                + "network segment (mDNS does not cross routers); try --timeout 5000" : nil
            let shown = PresentedError(GeneralError(""), status: .notFound, message: scan.notFoundText(
                timeoutMs: timeoutMs, namingDomains: !(options.domains ?? []).isEmpty), hint: hint, code: "not-found")
            context.printJSON(JSONEnvelope.failure(shown, document: scan.json(timeoutMs: timeoutMs)))
            throw shown
        } else if context.globals.json {
            context.printJSON(scan.json(timeoutMs: timeoutMs))
        } else if scan.gateways.isEmpty {
            context.note(scan.notFoundText(timeoutMs: timeoutMs, namingDomains: !(options.domains ?? []).isEmpty))
        } else {
            // One block per gateway, a blank line between two.
            context.stdout.write(scan.gateways.map { $0.textBlock(paint: context.style.paint) }.joined(separator: "\n"))
        }
        guard scan.gateways.isEmpty else { return .success }
        if !context.globals.json && scan.localBackend == .avahi {
            // Under an mDNS flood avahi-daemon can saturate and report nothing (issue #25, "bounded").
            context.note("note: avahi-daemon reported no gateway; if the network is busy with mDNS traffic it may be "
                         + "saturated: try --backend native, which bounds its cache and says when it sees a flood")
        }
        if !context.globals.json && options.local {
            context.note("hint: check that the gateway runs with discovery on and that this machine is on the same "
                         + "network segment (mDNS does not cross routers); try --timeout 5000")
        }
        return .notFound
    }

    /// The warning for an answer the timeout cut short.
    static func unfinishedWarning(_ short: GatewayBrowser.Unfinished, timeoutMs: Int) -> String {
        "the \(timeoutMs) ms timeout ended the search before \(short.domain) was complete: \(short.unresolved) of the "
            + "\(short.seen) gateways it named were not resolved yet, so are not listed (try --timeout \(max(5000, timeoutMs * 2)))"
    }

    /// The warning for a list a bound cut.
    static func truncationWarning(_ cut: GatewayBrowser.Truncation) -> String {
        "\(cut.domain) named \(cut.seen) gateways; only \(cut.limit) were kept (raise the bound with --max-gateways)"
    }
}
