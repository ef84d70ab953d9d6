#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import Synchronization

/// A single-threaded `poll(2)` loop: file descriptor readiness, timers on an injected
/// ``MonotonicClock``, and mailboxes through which other threads (the resolver) hand values
/// back. Everything registered with it runs on the thread that calls ``run(until:while:)``.
///
/// Handlers may register, deregister and schedule from inside callbacks; a registration
/// removed during a round is not called again in that round.
public final class EventLoop {
    /// A registered file descriptor.
    public struct Registration: Hashable, Sendable {
        let id: Int
    }

    /// A scheduled timer.
    public struct Timer: Hashable, Sendable {
        let id: Int
    }

    /// The clock timers and deadlines are read from.
    public let clock: any MonotonicClock

    private struct Watch {
        var fileDescriptor: Int32
        var interest: PollEvents
        var handler: (PollEvents) -> Void
    }

    private struct PendingTimer {
        var deadline: Monotonic.Instant
        var id: Int
        var body: () -> Void
    }

    private var watches: [Int: Watch] = [:]
    private var timers: [PendingTimer] = []
    private var mailboxHandlers: [Int: (any Sendable) -> Void] = [:]
    private var nextID = 0
    private let inbox: Inbox
    /// The stop signals ``run(until:while:)`` ends on, and their wake-up handlers.
    private var stops: [(signal: StopSignal, handler: StopSignal.Handler?)] = []

    /// A loop reading time from `clock` (default: `CLOCK_MONOTONIC`).
    public init(clock: any MonotonicClock = SystemMonotonicClock()) throws(TransportError) {
        self.clock = clock
        self.inbox = try Inbox()
    }

    deinit {
        for stop in stops { stop.signal.removeHandler(stop.handler) }
    }

    private func makeID() -> Int {
        nextID += 1
        return nextID
    }

    // MARK: File descriptors

    /// Calls `handler` with the ready events whenever `fileDescriptor` is ready for `interest`
    /// (errors and hang-ups are always reported). The loop does not own the descriptor.
    public func register(_ fileDescriptor: Int32, interest: PollEvents,
                         handler: @escaping (PollEvents) -> Void) -> Registration {
        let id = makeID()
        watches[id] = Watch(fileDescriptor: fileDescriptor, interest: interest, handler: handler)
        return Registration(id: id)
    }

    /// Changes what a registration waits for; an empty set pauses it.
    public func setInterest(_ registration: Registration, _ interest: PollEvents) {
        watches[registration.id]?.interest = interest
    }

    /// Stops watching (idempotent). Do this before closing the descriptor.
    public func deregister(_ registration: Registration) {
        watches[registration.id] = nil
    }

    // MARK: Timers

    /// Runs `body` once the clock reaches `deadline` (at the next round if it already has).
    @discardableResult
    public func schedule(at deadline: Monotonic.Instant, _ body: @escaping () -> Void) -> Timer {
        let id = makeID()
        timers.append(PendingTimer(deadline: deadline, id: id, body: body))
        return Timer(id: id)
    }

    /// Cancels a timer that has not fired (idempotent).
    public func cancel(_ timer: Timer) {
        timers.removeAll { $0.id == timer.id }
    }

    // MARK: Mailboxes

    /// A way for any thread to hand a value to `handler`, which runs on the loop's thread.
    public func makeMailbox<Value: Sendable>(_ handler: @escaping (Value) -> Void) -> Mailbox<Value> {
        let id = makeID()
        mailboxHandlers[id] = { value in
            if let value = value as? Value { handler(value) }
        }
        return Mailbox(id: id, inbox: inbox)
    }

    /// Drops a mailbox's handler; values delivered later are discarded.
    public func closeMailbox<Value>(_ mailbox: Mailbox<Value>) {
        mailboxHandlers[mailbox.id] = nil
    }

    // MARK: Stopping

    /// Makes ``run(until:while:)`` return as soon as `signal` is raised, from any thread: the
    /// raise wakes the loop's `poll` through its mailbox pipe. Whoever runs the loop then sees
    /// ``isStopped`` and ends its work with its "cancelled" outcome.
    public func stop(on signal: StopSignal) {
        guard !stops.contains(where: { $0.signal === signal }) else { return }
        let inbox = self.inbox
        let handler = signal.onStop { inbox.wake() }
        stops.append((signal, handler))
    }

    /// Whether a signal given to ``stop(on:)`` was raised.
    public var isStopped: Bool { stops.contains { $0.signal.isStopped } }

    // MARK: Running

    /// Runs rounds of timers, mailbox deliveries and `poll(2)` until `shouldContinue` returns
    /// false or the clock reaches `deadline`. Returns normally in both cases.
    /// Also returns once a signal given to ``stop(on:)`` is raised.
    public func run(until deadline: Monotonic.Instant?, while shouldContinue: () -> Bool) throws(TransportError) {
        while shouldContinue() && !isStopped {
            fireDueTimers()
            drainInbox()
            guard shouldContinue(), !isStopped else { return }
            if let deadline, clock.now >= deadline { return }
            try pollOnce(deadline: deadline)
            drainInbox()
        }
    }

    private func fireDueTimers() {
        let now = clock.now
        let due = timers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        guard !due.isEmpty else { return }
        let dueIDs = Set(due.map(\.id))
        timers.removeAll { dueIDs.contains($0.id) }
        for timer in due { timer.body() }
    }

    private func drainInbox() {
        for (id, value) in inbox.take() {
            mailboxHandlers[id]?(value)
        }
    }

    /// When the loop must wake: the earliest timer or `deadline`; nil to wait indefinitely.
    private func wakeTime(deadline: Monotonic.Instant?) -> Monotonic.Instant? {
        guard let earliest = timers.map(\.deadline).min() else { return deadline }
        return deadline.map { min($0, earliest) } ?? earliest
    }

    private func pollOnce(deadline: Monotonic.Instant?) throws(TransportError) {
        let active = watches.filter { !$0.value.interest.isEmpty }.sorted { $0.key < $1.key }
        var descriptors = [PollDescriptor(inbox.fileDescriptor, .readable)]
        for (_, watch) in active { descriptors.append(PollDescriptor(watch.fileDescriptor, watch.interest)) }
        do {
            // Saturating: a deadline from a peer's duration may sit at the far end of the clock.
            try Poll.wait(&descriptors, until: wakeTime(deadline: deadline), clock: clock)
        } catch {
            throw .system(error)
        }
        if !descriptors[0].ready.isEmpty { inbox.clearWakeup() }
        for (index, (id, watch)) in active.enumerated() {
            let revents = descriptors[index + 1].ready
            guard !revents.isEmpty, let current = watches[id], current.fileDescriptor == watch.fileDescriptor else { continue }
            current.handler(revents)
        }
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}

/// A thread-safe handle that delivers values to a handler on an ``EventLoop``'s thread.
public struct Mailbox<Value: Sendable>: Sendable {
    let id: Int
    let inbox: Inbox

    /// Queues `value` and wakes the loop. Safe from any thread; a value delivered after the
    /// mailbox was closed, or after the loop is gone, is dropped.
    public func deliver(_ value: Value) {
        inbox.post(id: id, value: value)
    }
}

/// The cross-thread queue behind mailboxes, with a self-pipe to wake `poll`. Owns the pipe, so a
/// resolver thread finishing after the loop is gone still writes to a valid descriptor.
final class Inbox: Sendable {
    /// The read end, which the loop polls.
    let fileDescriptor: Int32
    private let writeEnd: Int32
    private let queue = Mutex<[(Int, any Sendable)]>([])

    init() throws(TransportError) {
        var ends: [Int32] = [-1, -1]
        do {
            try Syscall.retrying("pipe") { pipe(&ends) }
            for fd in ends {
                let flags = try Syscall.retrying("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
                try Syscall.retrying("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
                try Syscall.retrying("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
            }
        } catch {
            for fd in ends where fd >= 0 { _ = Glibc.close(fd) }
            throw .system(error)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        _ = Glibc.close(fileDescriptor)
        _ = Glibc.close(writeEnd)
    }

    func post(id: Int, value: any Sendable) {
        queue.withLock { $0.append((id, value)) }
        wake()
    }

    /// Wakes the loop's `poll` without a value.
    func wake() {
        var byte: UInt8 = 1
        let fd = writeEnd
        // A full pipe (would-block) already means "wake up"; nothing else can fail here.
        _ = try? Syscall.nonBlocking("write(wakeup pipe)") { Glibc.write(fd, &byte, 1) }
    }

    func take() -> [(Int, any Sendable)] {
        queue.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }

    func clearWakeup() {
        var bytes = [UInt8](repeating: 0, count: 64)
        let fd = fileDescriptor
        while case .done(let count)? = try? Syscall.nonBlocking("read(wakeup pipe)", {
            bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        }), count > 0 {}
    }
}
