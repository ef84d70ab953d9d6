// TXT `tailnetDns` the way upstream's gateway fills it (openclaw/openclaw):
// src/gateway/server-discovery-runtime.ts resolves it once at start with
// `resolveTailnetDnsHint({ enabled: tailscaleMode !== "off" })`, tailscaleMode being
// `gateway.tailscale.mode` ("off" by default, "serve", "funnel"); src/gateway/server-discovery.ts
// `resolveTailnetDnsHint`: `OPENCLAW_TAILNET_DNS` (trimmed, a trailing dot dropped), else, when
// enabled, src/infra/tailscale.ts `getTailnetHostname`: `tailscale status --json` (1.5 s),
// `Self.DNSName` without its trailing dot, else the first `Self.TailscaleIPs` entry, else nothing.
// The bonjour plugin puts it in the TXT only in full mode (extensions/bonjour/src/advertiser.ts).
// The environment part stays in AdvertiseSettings; here: the status output and running the command.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairConfig
import ClawpairCore
import Synchronization

/// The tailnet name a gateway advertises in TXT `tailnetDns`, from `tailscale status --json`, as
/// upstream's gateway derives it when Tailscale is on in its config (`gateway.tailscale.mode`
/// `serve` or `funnel`).
public enum TailnetDnsHint {
    /// Returns the output of `tailscale status --json` when the command exited 0, else nil.
    public typealias StatusLookup = @Sendable () -> [UInt8]?

    /// How long the command may take (upstream: 1.5 s).
    public static let statusBudget: Duration = .milliseconds(1500)
    /// The most of its output read (it lists every peer).
    public static let maxStatusBytes = 4 << 20
    /// The longest name or address accepted (a DNS name's limit).
    public static let maxNameBytes = 253

    /// The hint in `tailscale status --json` output: `Self.DNSName` without its trailing dot, else
    /// the first `Self.TailscaleIPs` entry; nil when neither is there, the output is not such a
    /// document, or the value is not a plain DNS name or address. Text around the JSON object
    /// (a warning line) is skipped, as upstream does.
    public static func name(statusJSON: [UInt8]) -> String? {
        guard statusJSON.count <= maxStatusBytes,
              let start = statusJSON.firstIndex(of: UInt8(ascii: "{")),
              let end = statusJSON.lastIndex(of: UInt8(ascii: "}")), start < end,
              let status = try? JSON5.parse(statusJSON[start...end]) else { return nil }
        let me = status["Self"]
        if var dns = me?["DNSName"]?.stringValue, !dns.isEmpty {
            if dns.hasSuffix(".") { dns.removeLast() }
            return plain(dns)
        }
        if case .array(let addresses)? = me?["TailscaleIPs"], case .string(let first)? = addresses.first {
            return plain(first)
        }
        return nil
    }

    /// `text` when it is a DNS name or an IP address (letters, digits, `.`, `-`, `:`), at most
    /// ``maxNameBytes`` long; else nil.
    static func plain(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maxNameBytes,
              text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                                                  || $0 == "." || $0 == "-" || $0 == ":") }) else { return nil }
        return text
    }

    /// A lookup that runs `tailscale status --json` (`program` in place of the `tailscale` of
    /// PATH) within `budget`, and keeps the answer for `validity`, so that the advertiser's periodic re-reads
    /// of the config do not run the command each time (upstream resolves it once per start).
    public static func cachedLookup(program: String = "tailscale", budget: Duration = statusBudget,
                                    validity: Duration = .seconds(60),
                                    clock: any MonotonicClock = SystemMonotonicClock()) -> StatusLookup {
        let cache = Mutex<(output: [UInt8]?, at: Monotonic.Instant)?>(nil)
        return {
            let now = clock.now
            if let kept = cache.withLock({ $0 }), now - kept.at < validity { return kept.output }
            let output = runStatus(program: program, deadline: now + budget, clock: clock)
            cache.withLock { $0 = (output, clock.now) }
            return output
        }
    }

    /// Runs `tailscale status --json` (`program` in place of tailscale, looked up on PATH unless
    /// it holds a slash) through ``BoundedCommand/output(of:until:maxBytes:clock:stop:)``: its
    /// output when it exited 0 before `deadline` with at most ``maxStatusBytes``, else nil (at the
    /// deadline its group is killed and reaped).
    public static func runStatus(program: String = "tailscale", deadline: Monotonic.Instant,
                                 clock: any MonotonicClock = SystemMonotonicClock()) -> [UInt8]? {
        BoundedCommand.output(of: [program, "status", "--json"], until: deadline, maxBytes: maxStatusBytes, clock: clock)
    }
}
