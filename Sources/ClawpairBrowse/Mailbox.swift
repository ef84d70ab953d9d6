#if canImport(Glibc)
import Glibc
#endif

/// A bounded first-in, first-out queue between threads: the browse threads put what they
/// learn, the thread that called the browser takes it.
///
/// Bounded, because a hostile network can make a backend report without end (a record that
/// flaps) while the taker is slow (its output blocked on a pipe): a full mailbox makes the
/// sources wait, as a direct write would. Once the taker is gone (``close()``), puts return at
/// once and their messages are dropped, so no source waits for a reader that will never come.
final class Mailbox<Message: Sendable>: @unchecked Sendable {
    /// The most messages held by default.
    static var defaultCapacity: Int { 4096 }

    let capacity: Int
    // Guarded by `mutex`. `notEmpty` wakes the taker, `notFull` the putters.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let notEmpty = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let notFull = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Message] = []
    private var head = 0
    private var closed = false

    init(capacity: Int = Mailbox.defaultCapacity) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(notEmpty, nil)
        pthread_cond_init(notFull, nil)
    }

    deinit {
        pthread_cond_destroy(notFull)
        pthread_cond_destroy(notEmpty)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        notEmpty.deallocate()
        notFull.deallocate()
    }

    private var count: Int { queue.count - head }

    /// Adds `message`, waiting while the mailbox is full; drops it once the mailbox is closed.
    func put(_ message: Message) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count >= capacity && !closed { pthread_cond_wait(notFull, mutex) }
        guard !closed else { return }
        queue.append(message)
        pthread_cond_signal(notEmpty)
    }

    /// The oldest message, waiting until there is one.
    func take() -> Message {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == 0 { pthread_cond_wait(notEmpty, mutex) }
        let message = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        pthread_cond_signal(notFull)
        return message
    }

    /// No more takes: wakes every waiting put and drops what they and later puts bring.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        queue.removeAll()
        head = 0
        pthread_cond_broadcast(notFull)
        pthread_mutex_unlock(mutex)
    }
}
