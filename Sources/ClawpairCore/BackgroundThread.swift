#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Blocking work on its own POSIX thread: a browse, a DNS round, a spinner.
///
/// Plain pthreads rather than Dispatch or Swift concurrency: linking libdispatch or the
/// concurrency runtime costs every command their load-time constructors (see ``Monotonic``).
/// When no thread can be made, the work runs on the calling thread before `init` returns, so
/// callers never need a second code path.
///
/// ```swift
/// let worker = BackgroundThread { browseUntilDeadline() }
/// doOtherWork()
/// worker.join()
/// ```
///
/// A thread that is never joined is detached when its `BackgroundThread` goes away: it ends on
/// its own and the system frees it then.
public final class BackgroundThread: Sendable {
    /// The work, kept alive until the thread has taken it.
    private final class Job: Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    /// The thread; nil when the work already ran on the calling thread.
    private let handle: pthread_t?
    /// Set once the thread was joined or detached.
    private let released = Atomic<Bool>(false)

    /// Starts `work` on a new thread (`stackSize` bytes of stack when given, else the system's
    /// default); runs it on the calling thread when no thread can be made.
    public init(stackSize: Int? = nil, _ work: @escaping @Sendable () -> Void) {
        handle = Self.spawn(stackSize: stackSize, work)
        if handle == nil { work() }
    }

    private init(started: pthread_t) {
        handle = started
    }

    /// Starts `work` on a new thread; nil, with `work` not run, when no thread can be made
    /// (for work that must not run on the calling thread, such as a loop that waits to be stopped).
    public static func start(stackSize: Int? = nil, _ work: @escaping @Sendable () -> Void) -> BackgroundThread? {
        spawn(stackSize: stackSize, work).map { BackgroundThread(started: $0) }
    }

    /// pthread_create with `work`; nil when it failed.
    private static func spawn(stackSize: Int?, _ work: @escaping @Sendable () -> Void) -> pthread_t? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN))) }
        let context = Unmanaged.passRetained(Job(work)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().work()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    /// Starts `work` on a thread nobody waits for; as `init`, it runs on the calling thread when
    /// no thread can be made.
    public static func detached(stackSize: Int? = nil, _ work: @escaping @Sendable () -> Void) {
        BackgroundThread(stackSize: stackSize, work).detach()
    }

    /// Whether the work runs on a thread of its own (false: it already ran in `init`).
    public var isThread: Bool { handle != nil }

    /// Waits until the work has finished. Later calls, and calls after ``detach()``, return at once.
    public func join() {
        guard let handle, !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(handle, nil)
    }

    /// Lets the thread end on its own, without anyone waiting for it.
    public func detach() {
        guard let handle, !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_detach(handle)
    }

    deinit { detach() }
}
