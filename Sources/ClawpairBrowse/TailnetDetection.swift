import ClawpairCore
import ClawpairWideArea
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Whether this machine is on a tailnet, for the wide-area fallback to MagicDNS
/// (discovery.md §7): `tailscale status --json` (the `tailscale` of PATH) exits 0 within
/// ``TailnetFallback/statusBudget`` and lists an IPv4 address in `Self.TailscaleIPs` (100.64/10
/// preferred; Headscale and custom ranges count too: ``TailnetFallback/selfTailnetIPv4(statusJSON:)``).
/// The answer is kept for ``validity``, so a long watch notices Tailscale coming and going
/// without running the CLI every round. The probe is injectable. A stop (the browse's
/// ``StopSignal``) ends the status command at once: it is killed and reaped, and no answer is kept.
public final class TailnetDetection: Sendable {
    /// Runs the status command until `deadline`, or until `stop` is raised (then it ends the
    /// command at once and returns nil); its standard output when it exited 0, else nil.
    public typealias Probe = @Sendable (_ deadline: Monotonic.Instant, _ stop: StopSignal?) -> [UInt8]?

    /// How long an answer is kept.
    public static let validity: Duration = .seconds(60)
    private let probe: Probe
    /// The time the answer's age and the probe's budget are read from.
    public let clock: any MonotonicClock
    private let cache = Mutex<(address: String?, at: Monotonic.Instant)?>(nil)

    /// Asks `probe`, by default `tailscale status --json` (the `tailscale` of PATH, timed by
    /// `clock`).
    public init(probe: Probe? = nil, clock: any MonotonicClock = SystemMonotonicClock()) {
        self.probe = probe ?? { TailscaleStatus.run(until: $0, clock: clock, stop: $1) }
        self.clock = clock
    }

    /// This machine's tailnet IPv4 address, or nil when it has none (or Tailscale did not say
    /// so before `deadline`, or `stop` was raised: then nothing is kept and the next call asks again).
    public func address(deadline: Monotonic.Instant, stop: StopSignal? = nil) -> String? {
        let now = clock.now
        if let cached = cache.withLock({ $0 }), now - cached.at < Self.validity { return cached.address }
        if stop?.isStopped == true { return nil }
        let output = probe(min(deadline, now + TailnetFallback.statusBudget), stop)
        if stop?.isStopped == true { return nil }
        let address = output.flatMap { TailnetFallback.selfTailnetIPv4(statusJSON: $0) }
        cache.withLock { $0 = (address, clock.now) }
        return address
    }
}

/// `tailscale status --json`, bounded in time and size.
enum TailscaleStatus {
    /// Runs it through ``BoundedCommand/output(of:until:maxBytes:clock:stop:)``, reading at most
    /// ``TailnetFallback/maxStatusBytes``: the output when the command exited 0 before `deadline`
    /// (on `clock`); its group is killed at the deadline, or at once when `stop` is raised.
    /// `program` is looked up on PATH unless it holds a slash.
    static func run(until deadline: Monotonic.Instant, clock: any MonotonicClock = SystemMonotonicClock(),
                    stop: StopSignal? = nil, program: String = "tailscale") -> [UInt8]? {
        BoundedCommand.output(of: [program, "status", "--json"], until: deadline, maxBytes: TailnetFallback.maxStatusBytes,
                              clock: clock, stop: stop)
    }
}
