// How a gateway names itself on the LAN (discovery.md §1): the instance name, the host label,
// and the TXT `displayName`, for the current advertiser and for older builds.

/// Instance names, host labels and the TXT display name of a gateway beacon.
public enum BeaconIdentity {
    /// The service type, without a domain.
    public static let serviceType = "_openclaw-gw._tcp"
    /// The default gateway port (WebSocket and HTTP on one port).
    public static let defaultPort = 18789
    /// The environment variable that overrides the host label.
    public static let hostnameVariable = "OPENCLAW_MDNS_HOSTNAME"

    // Upstream's bonjour plugin entry (extensions/bonjour/index.ts) always passes
    // formatBonjourInstanceName(machineDisplayName), or the configured instanceName through the same
    // rule (extensions/bonjour/openclaw.plugin.json). The `${hostname} (OpenClaw)` in
    // extensions/bonjour/src/advertiser.ts is only that function's fallback when no name is passed,
    // which the plugin never does: the default here is the machine name, as upstream's.
    /// TS `formatBonjourInstanceName`: trimmed; empty → `OpenClaw`; kept as is when it contains
    /// `openclaw` in any case; otherwise ` (OpenClaw)` is appended (`My Mac` → `My Mac (OpenClaw)`).
    /// Cut to 63 UTF-8 bytes on a character boundary.
    public static func instanceName(_ machineName: String) -> String {
        let trimmed = Text.trim(machineName)
        let name: String
        if trimmed.isEmpty {
            name = "OpenClaw"
        } else if Text.lowerASCII(trimmed).contains("openclaw") {
            name = trimmed
        } else {
            name = trimmed + " (OpenClaw)"
        }
        return Text.truncateUTF8(name, maxBytes: 63)
    }

    /// The machine display name on Linux: the OS hostname minus a `.local` suffix, or
    /// `openclaw` when that leaves nothing.
    public static func machineDisplayName(osHostname: String) -> String {
        let name = Text.trim(Text.dropSuffixIgnoringASCIICase(Text.trim(osHostname), ".local"))
        return name.isEmpty ? "openclaw" : name
    }

    /// The TXT `displayName`: the instance name with whitespace collapsed and a trailing
    /// ` (OpenClaw)` removed (`My   Mac (OpenClaw)` → `My Mac`).
    public static func txtDisplayName(instanceName: String) -> String {
        let collapsed = Text.collapseWhitespace(instanceName)
        return Text.trim(Text.dropSuffixIgnoringASCIICase(collapsed, " (OpenClaw)"))
    }

    /// Whether `label` is a valid DNS host label: 1–63 ASCII letters, digits and `-`, with no
    /// hyphen at either end.
    public static func isValidHostLabel(_ label: String) -> Bool {
        let bytes = Array(label.utf8)
        guard (1...63).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else {
            return false
        }
        return bytes.allSatisfy { Text.isASCIIDigit($0) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == UInt8(ascii: "-") }
    }

    /// The current host label rule: `OPENCLAW_MDNS_HOSTNAME` when set, else the OS hostname's
    /// first label when it is a valid DNS label, else `openclaw`; then `.local` stripped, the
    /// part before the first dot kept, and cut to 63 UTF-8 bytes.
    public static func hostLabel(osHostname: String, environment: [String: String] = [:]) -> String {
        let candidate: String
        if let override = environment[hostnameVariable], !Text.trim(override).isEmpty {
            candidate = Text.trim(override)
        } else {
            let first = firstLabel(Text.dropSuffixIgnoringASCIICase(Text.trim(osHostname), ".local"))
            candidate = isValidHostLabel(first) ? first : "openclaw"
        }
        let label = Text.truncateUTF8(firstLabel(Text.dropSuffixIgnoringASCIICase(candidate, ".local")), maxBytes: 63)
        return label.isEmpty ? "openclaw" : label
    }

    /// The older rule (kept for comparison with old gateways): the host label is
    /// `OPENCLAW_MDNS_HOSTNAME` or `openclaw`, never the OS hostname, and the instance name is
    /// always `<label> (OpenClaw)`.
    public static func legacyIdentity(osHostname: String, environment: [String: String] = [:])
        -> (instanceName: String, hostname: String, lanHost: String) {
        var label = "openclaw"
        if let override = environment[hostnameVariable], !Text.trim(override).isEmpty {
            label = firstLabel(Text.dropSuffixIgnoringASCIICase(Text.trim(override), ".local"))
            if label.isEmpty { label = "openclaw" }
        }
        return ("\(label) (OpenClaw)", label, "\(label).local")
    }

    /// The part before the first dot.
    static func firstLabel(_ name: String) -> String {
        String(name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}

/// Display-name rules of the Apple apps (`GatewayDiscoveryText`, discovery.md §3). The toolkit's
/// own output follows the CLI rule (``GatewayBeacon/displayName``); these serve to recognise the
/// local machine's gateway and to match what the apps show.
public enum AppleDisplayName {
    /// Collapses whitespace, removes ` (OpenClaw)` and a trailing ` (N)`
    /// (`Peter's   Mac (OpenClaw) (2)` → `Peter's Mac`).
    public static func prettify(_ name: String) -> String {
        var text = Text.collapseWhitespace(name)
        text = dropTrailingCounter(text)
        while let range = text.firstRange(of: " (OpenClaw)") ?? text.firstRange(of: "(OpenClaw)") {
            text.removeSubrange(range)
        }
        return Text.collapseWhitespace(dropTrailingCounter(Text.collapseWhitespace(text)))
    }

    /// ` (2)`, ` (13)` at the end, removed.
    private static func dropTrailingCounter(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.last == UInt8(ascii: ")"), let open = bytes.lastIndex(of: UInt8(ascii: "(")),
              open >= 1, bytes[open - 1] == UInt8(ascii: " "), open + 1 < bytes.count - 1,
              bytes[(open + 1)..<(bytes.count - 1)].allSatisfy(Text.isASCIIDigit) else { return text }
        return String(decoding: bytes[..<(open - 1)], as: UTF8.self)
    }

    /// The title used when a service has no TXT name: the prettified name minus a trailing
    /// `-gateway`/` gateway`, `_` and `-` as spaces, each word starting with a capital
    /// (`studio-london-gateway` → `Studio London`). Letters after the first keep their case.
    public static func fallbackTitle(serviceName: String) -> String {
        var text = prettify(serviceName)
        for suffix in ["-gateway", " gateway", "_gateway"] where Text.hasSuffixIgnoringASCIICase(text, suffix) {
            text = Text.dropSuffixIgnoringASCIICase(text, suffix)
            break
        }
        text = String(text.map { $0 == "_" || $0 == "-" ? " " : $0 })
        let words = Text.collapseWhitespace(text).split(separator: " ")
        return words.map { word in word.prefix(1).uppercased() + word.dropFirst() }.joined(separator: " ")
    }

    /// The name shown for a service: the trimmed TXT `displayName` when not blank, else the
    /// fallback title of the `\DDD`-decoded service name.
    public static func displayName(serviceName: String, txt: TXTRecord) -> String {
        if let name = txt.trimmedValue("displayName") { return name }
        return fallbackTitle(serviceName: BonjourEscapes.decode(serviceName))
    }

    /// Cut to 63 UTF-8 bytes on a character boundary (40 × `é` → 31 characters).
    public static func truncatedToDNSLabel(_ text: String) -> String { Text.truncateUTF8(text, maxBytes: 63) }

    /// Identities under which the apps store a gateway's TLS pin.
    public enum StableID {
        /// `<type>|<domain>|<decoded name, whitespace collapsed>`.
        public static func bonjour(type: String, domain: String, name: String) -> String {
            "\(type)|\(domain)|\(Text.collapseWhitespace(BonjourEscapes.decode(name)))"
        }
        /// `wide-area|<domain>|<instance>`.
        public static func wideArea(domain: String, instance: String) -> String { "wide-area|\(domain)|\(instance)" }
        /// `tailscale-serve|<dnsname lowercased>`.
        public static func tailscaleServe(dnsName: String) -> String { "tailscale-serve|\(dnsName.lowercased())" }
        /// `manual|<host lowercased>|<port>`.
        public static func manual(host: String, port: Int) -> String { "manual|\(host.lowercased())|\(port)" }
    }
}
