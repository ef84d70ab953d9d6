import ClawpairAdvertise
import ClawpairCLIKit
import ClawpairConfig
import ClawpairCore
import ClawpairDiscovery
import ClawpairSetupCode

/// `clawpair advertise`: publishes a gateway beacon through the system's avahi-daemon.
struct AdvertiseCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "advertise",
        abstract: "Advertise an OpenClaw gateway beacon on the local network through avahi-daemon",
        discussion: [
            "Registers _openclaw-gw._tcp with the instance name and TXT keys OpenClaw gateways use (role, "
                + "transport, displayName, lanHost, gatewayPort, gatewayTls, gatewayTlsSha256, gatewayDirectReachable, "
                + "and in full mode sshPort, tailnetDns, cliPath), and keeps it up until interrupted (SIGINT or SIGTERM), "
                + "then withdraws it so browsers see it leave at once.",
            "With --from-openclaw-config the beacon comes from the gateway's openclaw.json (CONFIG, else "
                + "$OPENCLAW_CONFIG_PATH, $OPENCLAW_STATE_DIR/openclaw.json or ~/.openclaw/openclaw.json): gateway.port "
                + "(OPENCLAW_GATEWAY_PORT overrides it), gateway.tls.enabled, gateway.bind, discovery.mdns.mode and the "
                + "bonjour plugin's instanceName (full mode: see FULL MODE in the man page). It is advertised only while the gateway answers its port (checked every "
                + "5 s), withdrawn after two failed checks and announced again when it answers; the TLS fingerprint is "
                + "the one the gateway serves. The file is re-read at every check and on SIGHUP.",
            "A taken name moves to Avahi's next one (\"Name #2\"), each rename reported; after --max-renames it stops "
                + "(name-conflict). OPENCLAW_MDNS_HOSTNAME=LABEL makes LABEL.local the SRV target and TXT lanHost and "
                + "publishes its addresses, as the gateway does. Needs a running avahi-daemon.",
        ],
        options: [
            .value("port", "PORT", help: "The gateway's WebSocket port (required without --from-openclaw-config)."),
            .flag("from-openclaw-config", help: "Take the beacon from the gateway's openclaw.json (CONFIG) and advertise "
                  + "only while the gateway answers."),
            .value("name", "NAME", help: "The instance name (default: this machine's hostname). As gateways do, \" (OpenClaw)\" is "
                   + "appended unless the name mentions OpenClaw, and it is cut to 63 bytes."),
            .value("display-name", "TEXT", help: "The TXT displayName (default: the instance name without its suffix)."),
            .flag("tls", help: "Advertise that the gateway serves TLS (gatewayTls=1)."),
            .value("tls-fingerprint", "SHA256", help: "The gateway certificate's SHA-256 (implies --tls); clients treat it "
                   + "as an unauthenticated hint."),
            .value("mode", "MODE", help: "minimal (default) or full (adds sshPort, tailnetDns, cliPath).",
                   completion: .values(BeaconMode.allCases.map(\.rawValue))),
            .value("ssh-port", "PORT", help: "The SSH port advertised in full mode (default 22)."),
            .value("tailnet-dns", "NAME", help: "The tailnet DNS name advertised in full mode."),
            .repeated("txt", "KEY=VALUE", help: "An extra TXT entry, or one that replaces a standard key."),
            .repeated("interface", "IFACE", help: "Advertise only on this interface (repeatable; default: all)."),
            .value("max-renames", "N", help: "Give up after N renames of a taken name (default 32)."),
        ],
        arguments: [ArgumentSpec("config", help: "The gateway's openclaw.json (with --from-openclaw-config).", optional: true,
                                 completion: .file)],
        examples: [
            Example("clawpair advertise --port 18789", "Advertise a plaintext gateway on this machine"),
            Example("clawpair advertise --from-openclaw-config", "Advertise the gateway of ~/.openclaw/openclaw.json while it answers"),
            Example("clawpair advertise --port 18789 --interface eth0", "Advertise on the wired LAN only (a multi-homed host)"),
            Example("clawpair advertise --port 18789 --tls-fingerprint \"$(cat fingerprint.txt)\" --mode full",
                    "Advertise a TLS gateway with its certificate fingerprint and SSH hints"),
        ],
        sections: [
            .inManSource("JSON OUTPUT"),
            .inManSource("FULL MODE"),
            .inManSource("NAME CONFLICTS"),
            .inManSource("INTERFACES AND HOST NAME"),
        ],
        runner: AdvertiseCommand.runner
    )

    let source: GatewayAdvertiser.Source
    let overrides: BeaconOverrides
    let interfaces: [AdvertiseInterface]
    let schedule: AdvertiserSchedule

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        let fingerprint = try arguments.parsed("tls-fingerprint", TLSFingerprint.normalize) { _ in
            UsageError("--tls-fingerprint is not a SHA-256 fingerprint",
                       hint: "give 64 hex digits, optionally as colon-separated pairs")
        }
        let txt = try arguments.parsedValues("txt", isNot: "KEY=VALUE", TXTPair.init(entry:))
        do {
            interfaces = try AdvertiseInterface.named(arguments.values("interface"))
        } catch {
            throw UsageError("--interface: \(error.message)", hint: error.hint)
        }
        schedule = AdvertiserSchedule(maxRenames: try arguments.wholeNumber("max-renames", in: 0...1000,
                                                                            default: AdvertiserSchedule.defaultMaxRenames))
        let hostLabel: String?
        do {
            hostLabel = try context.environment[BeaconIdentity.hostnameVariable].flatMap(AdvertiseHostName.label)
        } catch {
            throw UsageError(error.message, hint: error.hint)
        }
        overrides = BeaconOverrides(instanceName: arguments.value("name"), displayName: arguments.value("display-name"),
                                    fingerprint: fingerprint, txt: txt, hostLabel: hostLabel)
        if arguments.flag("from-openclaw-config") {
            for option in ["port", "tls", "mode", "ssh-port", "tailnet-dns"] where arguments.given(option) {
                throw UsageError("--\(option) cannot be combined with --from-openclaw-config", hint: "set it in the config file")
            }
            guard let path = arguments.positionals.first ?? OpenClawConfig.path(environment: context.environment) else {
                throw UsageError("no config path: HOME is not set", hint: "give the path of openclaw.json")
            }
            source = .config(path: path, environment: context.environment)
        } else {
            guard arguments.positionals.isEmpty else { throw UsageError("CONFIG is only read with --from-openclaw-config") }
            guard let port = try arguments.port("port") else { throw UsageError("--port is required", hint: "e.g. --port 18789") }
            let mode: BeaconMode = try arguments.choice("mode", noun: "mode", default: .minimal)
            let settings = AdvertiseSettings(port: port, tls: arguments.flag("tls") || fingerprint != nil, mode: mode,
                                             sshPort: try arguments.port("ssh-port"), tailnetDns: arguments.value("tailnet-dns"))
            source = .settings(settings)
            // A TXT entry that cannot fit is a usage error, found before anything is registered.
            do {
                _ = try ServicePlan.beacon(settings, health: GatewayHealth(answering: true), overrides: overrides,
                                           osHostname: "openclaw")
            } catch {
                throw UsageError("a TXT entry is longer than 255 bytes", hint: "shorten the value")
            }
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let signals = TerminationSignals()
        let hangup = ReloadSignal()
        let advertiser = try GatewayAdvertiser.gateway(source, overrides: overrides,
                                                       osHostname: HostName.current(fallback: "openclaw"),
                                                       interfaces: interfaces, schedule: schedule,
                                                       events: { report($0, context) })
        // SIGINT/SIGTERM raise the stop signal, which wakes the advertiser's wait at once.
        try advertiser.run(stopping: signals.stopSignal(), reload: { hangup.pending() })
        return .success
    }

    private func report(_ event: AdvertiserEvent, _ context: CommandContext) {
        guard !context.globals.json else { return context.printJSONLine(event.json) }
        for line in event.lines {
            switch line {
            case .output(let text): context.print(text)
            case .note(let text): context.note(text)
            case .warning(let text): context.warn(text)
            }
        }
        if case .registered = event { context.note(context.errorStyle.dim("Check it from another machine: clawpair discover")) }
        // The gateway's own Bonjour advertiser holding the config's instance name is the usual
        // squatter here: each would rename against the other.
        if case .renamed(_, _, 1, _) = event, case .config = source {
            context.note(context.errorStyle.dim("If the gateway advertises itself too, turn that off: OPENCLAW_DISABLE_BONJOUR=1 "
                + "in the gateway's environment (clawpair-advertise(1))."))
        }
    }
}
