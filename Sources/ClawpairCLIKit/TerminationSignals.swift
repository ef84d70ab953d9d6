#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import Synchronization

/// SIGINT and SIGTERM taken as events instead of killing the process, so a long-running
/// command (advertise, discover --watch) can clean up: they are blocked on creation and
/// ``pending()`` asks, without waiting, whether one arrived. Create it from the main thread
/// before any other thread starts (threads inherit the mask).
public struct TerminationSignals: Sendable {
    private let set: sigset_t
    private let received = SignalBox()

    /// The signal number ``stopSignal()``'s thread took, shared by copies.
    private final class SignalBox: Sendable {
        private let value = Atomic<Int32>(0)
        func store(_ signal: Int32) { value.store(signal, ordering: .releasing) }
        func load() -> Int32 { value.load(ordering: .acquiring) }
    }

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

    /// A ``StopSignal`` raised when SIGINT or SIGTERM arrives: a thread of its own waits for
    /// them (so the stop reaches the running call within milliseconds, however it waits) and
    /// records which one came in ``received``. Use it instead of ``pending()``, not beside it.
    public func stopSignal() -> StopSignal {
        let stop = StopSignal()
        let set = self.set
        let received = self.received
        BackgroundThread.detached {
            var waiting = set
            var signal: Int32 = 0
            guard sigwait(&waiting, &signal) == 0 else { return }
            received.store(signal)
            stop.stop()
        }
        return stop
    }

    /// The signal ``stopSignal()``'s thread took (0: none yet).
    public var receivedSignal: Int32 { received.load() }
}
