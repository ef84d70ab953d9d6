#if canImport(Glibc)
import Glibc
#endif

/// An unbounded first-in, first-out queue between threads: the browse threads put what they
/// learn, the thread that called the browser takes it, waiting while there is nothing.
///
/// Unbounded because every producer is bounded itself: a source stops at its deadline, and each
/// backend caps what it tracks (``AvahiLimits``, the mDNS cache, ``WideAreaBrowser/Limits``).
final class Mailbox<Message: Sendable>: @unchecked Sendable {
    // Guarded by `mutex`; the condition signals that `queue` is not empty.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Message] = []
    private var head = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Adds `message` and wakes the taker.
    func put(_ message: Message) {
        pthread_mutex_lock(mutex)
        queue.append(message)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The oldest message, waiting until there is one.
    func take() -> Message {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while head == queue.count { pthread_cond_wait(condition, mutex) }
        let message = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return message
    }
}
