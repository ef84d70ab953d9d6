// A short-lived helper program's standard output, bounded in time and size: what discovery's
// tailnet check and the advertiser's tailnet name hint both ask `tailscale status --json` for.

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and returns its standard output, never waiting or reading
/// without bound.
public enum BoundedCommand {
    /// Runs `arguments` (the program first, looked up on PATH unless it holds a slash; no shell)
    /// with standard input and error on /dev/null, the default signal mask and dispositions, in a
    /// process group of its own, and reads at most `maxBytes` of its standard output. Returns
    /// the output when the program exited 0 before `deadline` (on `clock`); nil when it could not
    /// start, exited otherwise, wrote more than `maxBytes`, outlived `deadline`, or `stop` was
    /// raised. In the last three cases its process group is killed and the program reaped
    /// before this returns; the wait wakes at once on the stop.
    public static func output(of arguments: [String], until deadline: Monotonic.Instant, maxBytes: Int,
                              clock: any MonotonicClock = SystemMonotonicClock(), stop: StopSignal? = nil) -> [UInt8]? {
        guard let program = arguments.first, stop?.isStopped != true else { return nil }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return nil }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        defer { close(readEnd) }
        let wake = stop.map(StopWakeup.init)

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

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { text in text.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = argv.withUnsafeBufferPointer { posix_spawnp(&pid, program, &actions, &attributes, $0.baseAddress!, environ) }
        close(writeEnd)
        guard spawned == 0 else { return nil }

        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var complete = false
        reading: while output.count <= maxBytes {
            guard clock.now < deadline, stop?.isStopped != true else { break }
            var descriptors = [PollDescriptor(readEnd, .readable)] + (wake?.pollDescriptor.map { [$0] } ?? [])
            // The wakeup turns readable only at the stop.
            guard let ready = try? Poll.wait(&descriptors, until: deadline, clock: clock), ready > 0,
                  stop?.isStopped != true else { break }
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
        // Reap it: at once if it is done, else (the deadline, the stop, too much output) kill its
        // group first (a SIGKILLed child is reaped at once). Its output can be closed a moment
        // before it exits: a few 5 ms naps until the deadline.
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { return nil }
            if !complete || output.count > maxBytes || clock.now >= deadline || stop?.isStopped == true {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
        let exitedZero = status & 0x7F == 0 && (status >> 8) & 0xFF == 0
        return complete && exitedZero && output.count <= maxBytes ? output : nil
    }
}
