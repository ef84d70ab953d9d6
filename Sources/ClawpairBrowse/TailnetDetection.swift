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
    /// Runs it with standard input and error on /dev/null, the default signal mask and
    /// dispositions, in a process group of its own, and reads at most
    /// ``TailnetFallback/maxStatusBytes``. Returns the output when the command exited 0 before
    /// `deadline` (on `clock`); kills the group at the deadline, or at once when `stop` is raised
    /// (its wait wakes on the stop). `program` is looked up on PATH unless it holds a slash.
    static func run(until deadline: Monotonic.Instant, clock: any MonotonicClock = SystemMonotonicClock(),
                    stop: StopSignal? = nil, program: String = "tailscale") -> [UInt8]? {
        if stop?.isStopped == true { return nil }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        defer { close(readEnd) }
        guard let wake = StopWake(stop) else {
            close(writeEnd)
            return nil
        }
        defer { wake.close() }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
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

        let arguments: [UnsafeMutablePointer<CChar>?] = [program, "status", "--json"].map { text in
            text.withCString { strdup($0) }
        } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = arguments.withUnsafeBufferPointer { argv in
            posix_spawnp(&pid, program, &actions, &attributes, argv.baseAddress!, environ)
        }
        close(writeEnd)
        guard spawned == 0 else { return nil }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var complete = false
        reading: while output.count <= TailnetFallback.maxStatusBytes {
            guard clock.now < deadline, stop?.isStopped != true else { break }
            var descriptors = [PollDescriptor(readEnd, .readable), PollDescriptor(wake.readEnd, .readable)]
            guard let ready = try? Poll.wait(&descriptors, until: deadline, clock: clock), ready > 0,
                  descriptors[1].ready.isEmpty else { break }
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            switch count {
            case 0:
                complete = true
                break reading
            case ..<0:
                if errno == EINTR || errno == EAGAIN { continue }
                break reading
            default:
                output += buffer[..<count]
            }
        }
        // Reap it: at once if it is done, else at the deadline or the stop, killing its group then
        // (a SIGKILLed child is reaped at once).
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { return nil }
            if !complete || clock.now >= deadline || stop?.isStopped == true {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
        let exitedZero = status & 0x7F == 0 && (status >> 8) & 0xFF == 0
        return complete && exitedZero ? output : nil
    }
}

/// A pipe that becomes readable when a ``StopSignal`` is raised, so a poll wakes on the stop.
/// The stop's handler writes under the lock that ``close()`` takes, so it never writes to a
/// descriptor number that was closed and reused.
private final class StopWake: Sendable {
    private let ends: Mutex<(read: Int32, write: Int32)?>
    private let stop: StopSignal?
    private let handler: Mutex<StopSignal.Handler?> = Mutex(nil)
    let readEnd: Int32

    init?(_ stop: StopSignal?) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        readEnd = pipeEnds[0]
        ends = Mutex((pipeEnds[0], pipeEnds[1]))
        self.stop = stop
        let registered = stop?.onStop { [weak self] in self?.signal() }
        handler.withLock { $0 = registered }
    }

    private func signal() {
        ends.withLock { ends in
            guard let write = ends?.write else { return }
            var byte: UInt8 = 1
            _ = Glibc.write(write, &byte, 1)
        }
    }

    /// Forgets the stop's handler and closes the pipe (idempotent).
    func close() {
        stop?.removeHandler(handler.withLock { $0 })
        ends.withLock { ends in
            guard let open = ends else { return }
            _ = Glibc.close(open.read)
            _ = Glibc.close(open.write)
            ends = nil
        }
    }
}
