// What `clawpair advertise --from-openclaw-config` takes from the gateway's own config file and
// environment, read the way the gateway reads them (openclaw/openclaw):
// - port: `OPENCLAW_GATEWAY_PORT`, else `gateway.port`, else 18789 (src/config/paths.ts,
//   resolveGatewayPort);
// - TLS: `gateway.tls.enabled === true` (src/infra/tls/gateway.ts); the fingerprint is the
//   SHA-256 of the certificate the gateway serves, observed by the health probe;
// - bind: `gateway.bind`, default `loopback`; `custom` dials `gateway.customBindHost`; the TXT key
//   `gatewayDirectReachable=1` when the bind is not loopback (src/gateway/server.impl.ts:
//   `gatewayDirectReachable: !isLoopbackHost(bindHost)`);
// - mode: `discovery.mdns.mode` minimal (default), full or off (src/gateway/server-discovery-runtime.ts);
// - instance name: the bonjour plugin's `instanceName` (`plugins.entries.bonjour.config.instanceName`,
//   extensions/bonjour/index.ts), else the machine name;
// - full mode: `OPENCLAW_SSH_PORT` (else 22), `openclaw` on PATH (the same defaults as the
//   gateway's; BeaconIdentity+FullMode.swift); `tailnetDns` from `OPENCLAW_TAILNET_DNS`, else, when
//   `gateway.tailscale.mode` is `serve` or `funnel`, from `tailscale status --json`
//   (TailnetDnsHint.swift: src/gateway/server-discovery.ts resolveTailnetDnsHint).
// `canvasPort` is retired upstream and never advertised.

import ClawpairConfig
import ClawpairCore
import ClawpairDiscovery

/// Why an advertisement cannot be planned from an OpenClaw config.
public enum AdvertiseSettingsError: ClawpairError, Equatable {
    /// The config file is not there.
    case noConfig(path: String)
    /// `discovery.mdns.mode` is `off`: the gateway's owner asked for no multicast.
    case mdnsOff(path: String)
    /// A key holds a value of the wrong kind or range.
    case invalid(path: String, key: String, reason: String)

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .noConfig(let path): return "no OpenClaw config at \(path)"
        case .mdnsOff(let path): return "discovery.mdns.mode is \"off\" in \(path): the gateway's owner asked for no mDNS"
        case let .invalid(path, key, reason): return "\(key) in \(path) \(reason)"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .noConfig: return "give the path of the gateway's openclaw.json (or set OPENCLAW_CONFIG_PATH or OPENCLAW_STATE_DIR)"
        case .mdnsOff:
            return "set discovery.mdns.mode to \"minimal\" or \"full\"; to turn off only the gateway's own advertiser, "
                + "set OPENCLAW_DISABLE_BONJOUR=1 in the gateway's environment"
        case .invalid: return "fix the value in the config file"
        }
    }
}

/// An advertisement planned from the gateway's config: the beacon's inputs and where the
/// gateway listens (what the health probe dials).
public struct AdvertiseSettings: Sendable, Equatable {
    /// The gateway's port (the SRV port and TXT `gatewayPort`).
    public var port: Int
    /// Whether the gateway serves TLS (`wss://`).
    public var tls: Bool
    /// The host the health probe dials: `127.0.0.1`, or `gateway.customBindHost` with `bind: custom`.
    public var probeHost: String
    /// The gateway binds a non-loopback address (TXT `gatewayDirectReachable=1`).
    public var directlyReachable: Bool
    /// minimal or full.
    public var mode: BeaconMode
    /// The bonjour plugin's instance name, if configured.
    public var instanceName: String?
    /// Full mode: the SSH port.
    public var sshPort: Int?
    /// Full mode: the tailnet DNS name.
    public var tailnetDns: String?
    /// Full mode: the CLI path.
    public var cliPath: String?

    /// Settings given field by field (without a config file).
    public init(port: Int, tls: Bool = false, probeHost: String = "127.0.0.1", directlyReachable: Bool = true,
                mode: BeaconMode = .minimal, instanceName: String? = nil, sshPort: Int? = nil,
                tailnetDns: String? = nil, cliPath: String? = nil) {
        self.port = port
        self.tls = tls
        self.probeHost = probeHost
        self.directlyReachable = directlyReachable
        self.mode = mode
        self.instanceName = instanceName
        self.sshPort = sshPort
        self.tailnetDns = tailnetDns
        self.cliPath = cliPath
    }

    /// The settings of the parsed config `config` (read from `path`, named in errors) under
    /// `environment` (the advertiser's, standing in for the gateway's). In full mode without
    /// `OPENCLAW_TAILNET_DNS`, when the config turns Tailscale on (`gateway.tailscale.mode` serve
    /// or funnel), `tailnetStatus` gives `tailscale status --json` for ``tailnetDns``
    /// (``TailnetDnsHint/name(statusJSON:)``); it is not asked otherwise.
    public init(config: JSONValue, path: String, environment: [String: String],
                tailnetStatus: TailnetDnsHint.StatusLookup? = nil) throws(AdvertiseSettingsError) {
        let gateway = config["gateway"]
        if let text = environment["OPENCLAW_GATEWAY_PORT"].map(JSText.trim), !text.isEmpty,
           let value = Int(text.prefix { $0.isASCII && $0.isNumber }), value > 0 {
            guard value <= 65_535 else { throw .invalid(path: path, key: "OPENCLAW_GATEWAY_PORT", reason: "is not a port (1-65535)") }
            port = value
        } else if let value = gateway?["port"], !value.isNull {
            guard let number = value.int64Value, (1...65_535).contains(number) else {
                throw .invalid(path: path, key: "gateway.port", reason: "is not a port (1-65535)")
            }
            port = Int(number)
        } else {
            port = BeaconIdentity.defaultPort
        }
        tls = gateway?["tls"]?["enabled"]?.boolValue == true
        let bind = gateway?["bind"]?.stringValue ?? "loopback"
        let custom = gateway?["customBindHost"]?.stringValue.map(JSText.trim) ?? ""
        if bind == "custom", !custom.isEmpty {
            probeHost = custom
            directlyReachable = !Self.isLoopback(custom)
        } else {
            probeHost = "127.0.0.1"
            directlyReachable = !(bind == "loopback" || bind == "auto")
        }
        switch config["discovery"]?["mdns"]?["mode"]?.stringValue ?? "minimal" {
        case "off": throw .mdnsOff(path: path)
        case "full": mode = .full
        case "minimal": mode = .minimal
        default: throw .invalid(path: path, key: "discovery.mdns.mode", reason: "is not \"off\", \"minimal\" or \"full\"")
        }
        let tailscale: Bool
        switch gateway?["tailscale"]?["mode"]?.stringValue ?? "off" {
        case "off": tailscale = false
        case "serve", "funnel": tailscale = true
        default: throw .invalid(path: path, key: "gateway.tailscale.mode", reason: "is not \"off\", \"serve\" or \"funnel\"")
        }
        let named = config["plugins"]?["entries"]?["bonjour"]?["config"]?["instanceName"]?.stringValue.map(JSText.trim)
        instanceName = named?.isEmpty == false ? named : nil
        if mode == .full {
            sshPort = BeaconIdentity.defaultSSHPort(environment: environment)
            let dns = environment["OPENCLAW_TAILNET_DNS"].map(JSText.trim) ?? ""
            if !dns.isEmpty {
                tailnetDns = dns.hasSuffix(".") ? String(dns.dropLast()) : dns
            } else if tailscale, let status = tailnetStatus?() {
                tailnetDns = TailnetDnsHint.name(statusJSON: status)
            }
            cliPath = BeaconIdentity.defaultCLIPath(environment: environment)
        }
    }

    /// The settings of the config file at `path`; throws when it is missing, unreadable or holds
    /// values the gateway would not accept. `tailnetStatus`: as in ``init(config:path:environment:tailnetStatus:)``.
    public static func load(path: String, environment: [String: String],
                            tailnetStatus: TailnetDnsHint.StatusLookup? = nil) throws(ClawpairErrorBox) -> AdvertiseSettings {
        guard let document = try OpenClawConfig.document(path: path) else {
            throw ClawpairErrorBox(AdvertiseSettingsError.noConfig(path: path))
        }
        do {
            return try AdvertiseSettings(config: document, path: path, environment: environment, tailnetStatus: tailnetStatus)
        } catch {
            throw ClawpairErrorBox(error)
        }
    }

    /// The beacon these settings describe on a machine called `osHostname`, with `fingerprint`
    /// (the served certificate's SHA-256) when TLS is on and it is known.
    public func beacon(osHostname: String, fingerprint: String?, environment: [String: String] = [:]) -> BeaconAdvertisement {
        let host = osHostname.lowercased().hasSuffix(".local") ? String(osHostname.dropLast(6)) : osHostname
        return BeaconAdvertisement(BeaconOptions(
            instanceName: instanceName, machineName: host,
            hostname: environment[BeaconIdentity.hostnameVariable].flatMap { JSText.trim($0).isEmpty ? nil : $0 },
            osHostname: osHostname, gatewayPort: port, gatewayTls: tls,
            gatewayTlsFingerprintSha256: tls ? fingerprint : nil, directlyReachable: directlyReachable,
            mode: mode, tailnetDns: tailnetDns, sshPort: sshPort, cliPath: cliPath))
    }

    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        return lower == "localhost" || lower.hasPrefix("127.") || lower == "::1" || lower == "[::1]"
    }
}
