#if canImport(Glibc)
import Glibc
#endif

/// SIGHUP taken as a request to re-read the config (systemd's `ExecReload=kill -HUP $MAINPID`)
/// instead of ending the process: blocked on creation, and ``pending()`` asks without waiting
/// whether one arrived. Create it on the main thread before other threads start.
public struct ReloadSignal: Sendable {
    private let set: sigset_t

    /// Blocks SIGHUP for the process and starts catching it (call on the main thread, before other threads start).
    public init() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGHUP)
        sigprocmask(SIG_BLOCK, &set, nil)
        self.set = set
    }

    /// Whether SIGHUP arrived since the last call.
    public func pending() -> Bool {
        var set = self.set
        var info = siginfo_t()
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        return sigtimedwait(&set, &info, &zero) == SIGHUP
    }
}
