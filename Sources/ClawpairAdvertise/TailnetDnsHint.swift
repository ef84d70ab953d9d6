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

    /// Runs `tailscale status --json` (`program` in place of tailscale) with standard input and
    /// error on /dev/null, in a process group of its own; returns its output when it exited 0
    /// before `deadline` with at most ``maxStatusBytes``, else nil (at the deadline its group is
    /// killed and reaped).
    /// `program` is looked up on PATH unless it holds a slash.
    public static func runStatus(program: String = "tailscale", deadline: Monotonic.Instant,
                                 clock: any MonotonicClock = SystemMonotonicClock()) -> [UInt8]? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = [program, "status", "--json"].map { text in text.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { posix_spawnp(&pid, program, &actions, &attributes, $0.baseAddress!, environ) }
        close(ends[1])
        guard spawned == 0 else { return nil }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var complete = false
        while output.count <= maxStatusBytes, clock.now < deadline {
            var descriptors = [PollDescriptor(ends[0], .readable)]
            guard let ready = try? Poll.wait(&descriptors, until: deadline, clock: clock), ready > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count == 0 {
                complete = true
                break
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            output += buffer[..<count]
        }
        // Reap it: at once when it is done; otherwise (the deadline, too much output) kill its group first.
        var status: Int32 = 0
        if !complete || output.count > maxStatusBytes {
            kill(-pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return nil
        }
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { return nil }
            if clock.now >= deadline {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
        let exitedZero = status & 0x7F == 0 && (status >> 8) & 0xFF == 0
        return exitedZero ? output : nil
    }
}
