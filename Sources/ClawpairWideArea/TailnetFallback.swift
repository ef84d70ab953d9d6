// The tailnet fallback of discovery.md §7: when a wide-area domain lists nothing through the
// configured resolvers (typically because Tailscale split DNS for it is missing), and this
// machine is on a tailnet, ask Tailscale's MagicDNS resolver directly. Only 100.100.100.100 is
// trusted: probing peers would let the fastest responder become the DNS-SD authority.
import ClawpairConfig
import ClawpairCore

/// The rules and budgets of the tailnet fallback. Detection itself (running
/// `tailscale status --json`) is the caller's, so the rule is testable without Tailscale.
public enum TailnetFallback {
    /// Tailscale's MagicDNS resolver, the only server the fallback asks.
    public static let magicDNS = DNSServerAddress(family: .ipv4, bytes: [100, 100, 100, 100], scopeID: 0, scopeText: nil, port: 53)
    /// How long `tailscale status --json` may take (upstream: 0.7 s).
    public static let statusBudget: Duration = .milliseconds(700)
    /// The PTR question's budget (upstream: `dig +time=1 +tries=1`).
    public static let pointerBudget: Duration = .seconds(1)
    /// Each SRV, TXT and address question's budget (upstream: 0.2 s).
    public static let resolveBudget: Duration = .milliseconds(200)
    /// The most of `tailscale status --json` read (it lists every peer).
    public static let maxStatusBytes = 4 << 20

    /// Whether `text` is an IPv4 address in 100.64.0.0/10 (RFC 6598 shared space, where
    /// Tailscale numbers its nodes).
    public static func isTailnetIPv4(_ text: String) -> Bool {
        guard let address = DNSServerAddress.parse(text), address.family == .ipv4,
              address.host == text else { return false }
        return address.bytes[0] == 100 && address.bytes[1] & 0xC0 == 64
    }

    /// This machine's tailnet IPv4 address from `Self.TailscaleIPs` of `tailscale status --json`
    /// output: the first 100.64/10 address, else the first IPv4 address it lists at all (a
    /// Headscale or custom-range tailnet: openclaw#27398; the addresses Tailscale reports for this
    /// machine are trusted, peers' never); nil when there is none, when `BackendState` says the
    /// client is not running, or the output is not such a document.
    public static func selfTailnetIPv4(statusJSON: [UInt8]) -> String? {
        guard statusJSON.count <= maxStatusBytes, let status = try? JSON5.parse(statusJSON),
              case .array(let addresses)? = status["Self"]?["TailscaleIPs"] else { return nil }
        // A stopped or logged-out client may still list its addresses: only a running one counts.
        if let state = status["BackendState"]?.stringValue, state != "Running" { return nil }
        for case .string(let address) in addresses where isTailnetIPv4(address) { return address }
        for case .string(let address) in addresses {
            if let parsed = DNSServerAddress.parse(address), parsed.family == .ipv4, parsed.host == address { return address }
        }
        return nil
    }

    /// Whether to ask MagicDNS for a domain: its browse through `servers` found no gateway,
    /// MagicDNS is not among those servers already, and `onTailnet()` (asked last, because it
    /// runs `tailscale status --json`) says this machine has a tailnet address.
    public static func applies(found: Int, servers: [DNSServerAddress], onTailnet: () -> Bool) -> Bool {
        guard found == 0, !servers.contains(where: { $0.family == .ipv4 && $0.bytes == magicDNS.bytes }) else {
            return false
        }
        return onTailnet()
    }

    /// A browser that asks only MagicDNS, with the upstream budgets.
    public static func browser(serviceType: String, maxInstances: Int? = nil, stop: StopSignal? = nil,
                               note: @escaping @Sendable (String) -> Void = { _ in }) -> WideAreaBrowser {
        var options = UnicastDNSClient.Options()
        options.perQuery = pointerBudget
        var limits = WideAreaBrowser.Limits()
        limits.resolveQueryBudget = resolveBudget
        if let maxInstances { limits.maxInstances = maxInstances }
        return WideAreaBrowser(client: UnicastDNSClient(servers: [magicDNS], options: options, stop: stop, note: note),
                               serviceType: serviceType, limits: limits)
    }
}
