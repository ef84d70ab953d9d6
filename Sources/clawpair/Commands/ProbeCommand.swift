import ClawpairBrowse
import ClawpairCLIKit
import ClawpairCore
import ClawpairDiscovery
import ClawpairGateway
import ClawpairProbe
import ClawpairSetupCode

/// `clawpair probe CANDIDATE...`: which of a gateway's routes works from here?
struct ProbeCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "probe",
        abstract: "Find which of a gateway's routes is reachable from here",
        discussion: [
            "Races the candidate routes the way RFC 8305 (Happy Eyeballs) races addresses: route n starts "
                + "--stagger after route n-1, or at once when route n-1 has already failed. Each route goes TCP "
                + "(itself Happy Eyeballs over the host's IPv6 and IPv4 addresses), then TLS for wss:// with the "
                + "certificate check, then the WebSocket upgrade, and passes only when the first message is the "
                + "gateway's connect.challenge event: that is what proves an OpenClaw gateway answers there. The "
                + "first route to pass wins (candidate order breaks ties) and the others are cancelled; --fastest "
                + "waits for every route and picks the lowest latency. --timeout bounds the whole run.",
            "A candidate is a ws:// or wss:// URL, a host[:port] (port 18789) or a setup code (- reads one from "
                + "standard input: arguments are visible to other users). Plaintext ws:// is dialed only to loopback, "
                + "private-LAN, link-local and .local hosts. A pin (the setup code's, --tls-fingerprint, --trust, or "
                + "the one stored for a paired gateway) must match the leaf certificate; without one it must verify "
                + "against the system roots. 'man clawpair-probe' has the rules in full (CANDIDATES, TLS, DISCOVERY).",
        ],
        options: [
            .value("stagger", "MS", help: "Delay between the starts of consecutive routes, in ms or with a unit (default 250)."),
            .value("timeout", "MS", help: "Limit for the whole run, in ms or with a unit such as 3s (default 5000)."),
            .flag("fastest", help: "Wait for every route and pick the one with the lowest latency, instead of the first to pass."),
            .flag("all", help: "Run every route to its end and list each one's outcome, reason and timings; the first to pass "
                      + "still wins (-v lists the routes too, but stops at the winner)."),
            .value("tls-fingerprint", "SHA256",
                   help: "Pin: the SHA-256 of the gateway's leaf certificate (any common spelling) that every wss:// route "
                       + "without a pin of its own must present."),
            .value("trust", "SHA256",
                   help: "Accept a certificate with this SHA-256 fingerprint, after you checked it belongs to your gateway "
                       + "(what a failed route prints); applies like --tls-fingerprint."),
            .flag("allow-insecure", help: "Also dial ws:// routes to hosts that need wss:// (public and tailnet addresses)."),
            .flag("discover", help: "Also race the gateway local discovery (mDNS) finds first (every one with --fastest or --all)."),
            .value("discover-backend", "BACKEND", help: "Discovery backend: auto (avahi-daemon when it answers, else the "
                       + "built-in querier), avahi or native (default auto).",
                   completion: .values(GatewayBrowser.LocalBackend.allCases.map(\.rawValue))),
        ],
        arguments: [ArgumentSpec("candidate", help: "A ws(s):// URL, host[:port], setup code, or - to read a setup code from standard input.",
                                 optional: true, repeated: true, completion: .hostname)],
        examples: [
            Example("clawpair probe - < code.txt", "Which route of this setup code works from here?"),
            Example("clawpair probe --all ws://192.168.1.20:18789 wss://gw.tail1234.ts.net", "Race two routes and show every outcome"),
            Example("clawpair probe --json - < code.txt | jq -r .url", "Print the winning URL for a script"),
            Example("clawpair probe --trust 5f1c...e9 wss://10.0.0.5:18789", "Accept a self-signed gateway certificate you checked"),
            Example("clawpair probe --discover --all", "Race every gateway on this network segment"),
        ],
        sections: [
            .inManSource("CANDIDATES"),
            .inManSource("TLS"),
            .inManSource("DISCOVERY"),
            .inManSource("REASONS"),
            .inManSource("JSON OUTPUT"),
        ],
        runner: ProbeCommand.runner
    )

    let candidates: [String]
    let configuration: ProbeConfiguration
    let showAll: Bool
    let fingerprint: String?
    let trust: String?
    let discover: GatewayBrowser.LocalBackend?

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        let backend = try arguments.parsed("discover-backend", { GatewayBrowser.LocalBackend(rawValue: $0) }) { text in
            UsageError("invalid --discover-backend: \(TerminalText.sanitize(text, maxScalars: 32))",
                       hint: "use auto, avahi or native")
        }
        if backend != nil && !arguments.flag("discover") { throw UsageError("--discover-backend needs --discover") }
        discover = arguments.flag("discover") ? backend ?? .auto : nil
        candidates = arguments.positionals
        guard !candidates.isEmpty || discover != nil else {
            throw UsageError("give at least one candidate: a ws:// or wss:// URL, host[:port] or setup code (- reads one from standard input)",
                             hint: "e.g. clawpair probe - < code.txt, or clawpair probe wss://gateway.example.com")
        }
        if candidates.filter({ $0 == "-" }).count > 1 {
            throw UsageError("standard input (-) can be read only once", hint: "give at most one '-' candidate")
        }
        let stagger = try DurationOption.milliseconds(arguments.value("stagger"), option: "stagger", default: 250, allowZero: true)
        let timeout = try DurationOption.milliseconds(arguments.value("timeout"), option: "timeout", default: 5000, allowZero: false)
        configuration = ProbeConfiguration(stagger: .milliseconds(stagger), timeout: .milliseconds(timeout),
                                           mode: arguments.flag("fastest") ? .fastest : arguments.flag("all") ? .all : .first,
                                           allowInsecure: arguments.flag("allow-insecure"))
        showAll = arguments.flag("all") || arguments.globals.verbosity > 0
        fingerprint = try FingerprintOption.normalized(arguments.value("tls-fingerprint"), option: "tls-fingerprint")
        trust = try FingerprintOption.normalized(arguments.value("trust"), option: "trust")
    }

    /// Runs local discovery for at most `budget` and returns a route per gateway found (in the
    /// order `discover` lists them), skipping beacons without a usable endpoint. It ends once the
    /// answer is complete, not at the first gateway resolved: a first answer may hold one address
    /// family of a dual-stack gateway, and the route's dial tries every address it carries.
    func discoverRoutes(_ backend: GatewayBrowser.LocalBackend, budget: Duration, stop: StopSignal,
                        context: CommandContext) throws -> [ProbeRoute] {
        let browser = GatewayBrowser(options: .init(backend: backend, domains: [], timeout: budget)).stopping(on: stop)
        let found = try browser.scan(note: context.verboseNote).gateways.compactMap { gateway -> ProbeRoute? in
            guard let endpoint = gateway.beacon.endpoint else { return nil }
            return ProbeCandidates.discovered(instance: gateway.beacon.instanceName, host: endpoint.host, port: endpoint.port,
                                              tls: endpoint.tls, addresses: gateway.addresses)
        }
        // In first mode without --all, the gateway discovery lists first, as before.
        let routes = configuration.mode == .first && !showAll ? Array(found.prefix(1)) : found
        context.verboseNote("discovery found \(routes.count) gateway route(s)")
        return routes
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        var list = ProbeCandidateList()
        for candidate in candidates {
            guard let text = candidate != "-" ? candidate : try context.readText(
                prompting: "Paste the setup code, then press Ctrl-D:", limit: SetupCode.maxInputBytes) else {
                throw GeneralError("standard input is not UTF-8 text", hint: "pipe in the setup code itself")
            }
            let notices: [ProbeCandidateList.Notice]
            do {
                notices = try list.add(text, visible: candidate != "-", nowMs: context.nowMs)
            } catch .unrecognized(let shown) {
                throw UsageError("'\(shown)' is not a ws:// or wss:// URL, host[:port] or setup code",
                                 hint: GatewayAddress.bracketed(text).map { "an IPv6 address goes in brackets: clawpair probe '\($0)' or 'ws://\($0):18789'" }
                                     ?? "e.g. clawpair probe wss://gateway.example.com ws://192.168.1.20:18789")
            } catch .setupCode(let error) {
                throw ContextualError(candidate == "-" ? "the setup code on standard input" : "candidate '\(ProbeCandidates.redacted(text))'", error)
            }
            for notice in notices {
                switch notice {
                case .credentialsVisible:
                    context.warn("a setup code was given on the command line, where other users can see it (ps, shell "
                                 + "history); pipe it in instead: clawpair probe -")
                case .expired(let code): context.note("note: setup code #\(code) has expired; probing its routes anyway")
                }
            }
        }
        // Ctrl-C or SIGTERM stops discovery or the race at once, with the `cancelled` outcome (after
        // standard input was read: a Ctrl-C at the paste prompt still ends the process as before).
        let stop = TerminationSignals().stopSignal()
        var routes = list.routes
        var configuration = self.configuration
        if let backend = discover {
            let budget = configuration.discoveryBudget
            let started = Monotonic.now
            routes += try discoverRoutes(backend, budget: budget, stop: stop, context: context)
            configuration = configuration.remaining(after: Monotonic.now - started)
            if routes.isEmpty {
                throw GeneralError("no gateway found within \(budget.nanoseconds / 1_000_000) ms of discovery", hint:
                    "check that the gateway advertises (openclaw plugins enable bonjour) on this network segment, or "
                    + "give its URL, host[:port] or setup code", status: .notFound)
            }
        }
        if let fingerprint { ProbeCandidates.applyPin(fingerprint, source: .caller, to: &routes) }
        if let trust { ProbeCandidates.applyPin(trust, source: .trust, to: &routes) }
        // A paired gateway's route is pinned to the fingerprint stored for it; an unreadable registry adds no pins.
        if routes.contains(where: { $0.tls && $0.pin == nil }), let home = try? GatewayCLI.home(context) {
            GatewayRegistry(home: home).snapshot().pinPaired(&routes)
        }
        if routes.count > ProbeOutput.maxRoutes {
            throw UsageError("too many routes (\(routes.count)); at most \(ProbeOutput.maxRoutes) can be raced")
        }

        // A spinner on a terminal after 300 ms, as operator commands and discover have (issue #24 §13).
        let spinner = Spinner.start(routes.count == 1 ? "Probing \(TerminalText.sanitize(routes[0].url, maxScalars: 120))"
                                        : "Probing \(routes.count) routes", in: context, delay: Spinner.gatewayDelay)
        let raced = Result { () throws(TransportError) -> ProbeReport in
            try Prober.run(routes: routes, configuration: configuration, stop: stop)
        }
        spinner?.stop()
        // Stopped: "stopped before it finished", code cancelled, as a stopped discovery says.
        if case .failure(.cancelled) = raced { throw OperationStopped() }
        let report = try raced.get()
        if context.globals.json {
            context.printJSON(report.json(configuration: self.configuration, trustCommand: ProbeOutput.trustCommand,
                                          pinSourceName: ProbeOutput.pinSourceName))
        } else {
            ProbeOutput.printText(report, showAll: showAll, context: context)
        }
        if report.winner == nil {
            context.report(GeneralError(report.failureSummary, hint: ProbeOutput.failureHint(report),
                                        status: ErrorPresentation.status(of: report)))
        }
        return ErrorPresentation.status(of: report)
    }
}
