#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM taken as events instead of killing the process, so a long-running
/// command (advertise, discover --watch) can clean up: they are blocked on creation and
/// ``pending()`` asks, without waiting, whether one arrived. Create it from the main thread
/// before any other thread starts (threads inherit the mask).
public struct TerminationSignals: Sendable {
    private let set: sigset_t

    public init() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_BLOCK, &set, nil)
        self.set = set
    }

    /// The signal that arrived (SIGINT or SIGTERM), or nil.
    public func pending() -> Int32? {
        var set = self.set
        var info = siginfo_t()
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        let signal = sigtimedwait(&set, &info, &zero)
        return signal > 0 ? signal : nil
    }
}
