#if canImport(Glibc)
import Glibc
#endif

extension StopSignal {
    /// Blocks the calling thread until the signal is raised: on a condition variable that
    /// ``stop()`` wakes, so the thread sleeps without polling and wakes within microseconds of
    /// the stop. Returns at once when the signal is already raised.
    public func wait() {
        guard !isStopped else { return }
        let gate = WakeGate()
        let handler = onStop { gate.open() }
        gate.wait()
        removeHandler(handler)
    }
}

/// A one-shot gate on a POSIX mutex and condition variable: ``wait()`` blocks until ``open()``
/// (from any thread, before or after the wait).
final class WakeGate: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`.
    private var isOpen = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func open() {
        pthread_mutex_lock(mutex)
        isOpen = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    func wait() {
        pthread_mutex_lock(mutex)
        while !isOpen { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }
}
