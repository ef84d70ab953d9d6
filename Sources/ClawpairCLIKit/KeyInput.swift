#if canImport(Glibc)
import Glibc
#endif
internal import CProcessShims

/// Single keys from a terminal on standard input, for a command that runs until stopped
/// (`devices watch`): while it lives, the terminal delivers each key at once without echoing
/// it (canonical mode and echo off; Ctrl-C and Ctrl-\ still signal). The saved mode comes back
/// on ``restore()`` and in `deinit`, so every exit path that unwinds restores it; the callers
/// take SIGINT/SIGTERM as events (``TerminationSignals``) and unwind. Ctrl-Z (SIGTSTP) puts the
/// terminal back before the process stops, and `fg` (SIGCONT) turns key mode on again, so a
/// stopped command never leaves the shell without echo. Confined to one thread.
public final class KeyInput {
    private let fd: Int32
    private var saved: termios
    private var active = true

    /// Keys from `fd`, or nil when it is not a terminal (then there are no keys, and nothing
    /// about the terminal changes) or its mode cannot be set.
    public init?(fd: Int32 = 0) {
        guard isatty(fd) == 1 else { return nil }
        var mode = termios()
        guard tcgetattr(fd, &mode) == 0 else { return nil }
        saved = mode
        self.fd = fd
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &mode) == 0 else { return nil }
        _ = CProcessShims_restoreTerminalOnStop(fd, &saved, &mode)
    }

    deinit { restore() }

    /// The terminal's descriptor, for a loop that sleeps in poll(2) until a key comes.
    public var fileDescriptor: Int32 { fd }

    /// Puts the terminal back as it was; later calls do nothing.
    public func restore() {
        guard active else { return }
        active = false
        CProcessShims_releaseTerminalOnStop()
        var mode = saved
        _ = tcsetattr(fd, TCSANOW, &mode)
    }

    /// The keys typed since the last call (at most `limit` bytes), without waiting.
    public func available(limit: Int = 16) -> [UInt8] {
        guard active else { return [] }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) == 1, entry.revents & Int16(POLLIN) != 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer.prefix(count)) : []
    }
}
