import ClawpairCore
import Foundation

// How tests wait: on the event they mean, never for a while.
//
// - A one-shot event is a ``StopSignal`` the code under test (or a test double) raises: wait with
//   ``StopSignal/wait(bound:)`` on a thread, ``StopSignal/raised(within:)`` in a task.
// - A state that changes step by step (a log, a list of events, a counter) lives in a
//   ``Watched`` value: every change wakes the waiters, which look at it again.
// - Time the code under test reads comes from an injected `ManualClock` the test moves.
// - Only a state nothing notifies of is polled, through ``eventually(within:_:)`` (or
//   ``eventuallyBlocking(within:_:)`` on a thread): the one place tests poll, so every remaining
//   poll is named at its call site with the reason there is no event to wait on.
//
// Every wait has a hang bound (``hangBound``, minutes): a loaded machine (two cores shared by
// several suites) can take many seconds to schedule a thread. It only keeps a broken test from
// hanging the suite; it is never a timing assertion.

/// How long a test waits for an event before it calls it a hang: 5 minutes.
public let hangBound: Duration = .seconds(300)

/// A mutex and condition variable for the waits below (Foundation's, which is `Sendable` only
/// by documentation).
private final class Gate: @unchecked Sendable {
    let condition = NSCondition()

    /// Runs `body` holding the lock.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// Wakes every waiter (after the state it looks at changed).
    func broadcast() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// The wall-clock time `bound` from now (what NSCondition waits until; a hang bound only).
    static func limit(_ bound: Duration) -> Date {
        Date().addingTimeInterval(Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18)
    }

    /// With the lock held: waits until `done()` holds or `limit` passed; whether it held.
    func waitLocked(until limit: Date, _ done: () -> Bool) -> Bool {
        while !done() {
            if !condition.wait(until: limit) { return done() }
        }
        return true
    }
}

/// Runs `body` on a thread of its own and hands back its result, so a blocking wait does not
/// hold a thread of the cooperative pool.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        BackgroundThread.detached { continuation.resume(returning: body()) }
    }
}

extension StopSignal {
    /// Blocks the calling thread until the signal is raised (true) or `bound` passed (false: a
    /// hang). Wakes at once at the stop, on a condition variable (no polling).
    @discardableResult
    public func wait(bound: Duration) -> Bool {
        guard !isStopped else { return true }
        let gate = Gate()
        let handler = onStop { gate.broadcast() }
        defer { removeHandler(handler) }
        let limit = Gate.limit(bound)
        return gate.locked { gate.waitLocked(until: limit) { isStopped } }
    }

    /// Suspends until the signal is raised (true) or `bound` passed (false: a hang), waiting on
    /// a thread of its own.
    public func raised(within bound: Duration = hangBound) async -> Bool {
        if isStopped { return true }
        return await onThread { self.wait(bound: bound) }
    }
}

/// A value that several threads change and a test waits on: each ``update(_:)`` wakes every
/// waiter, which looks at the value again. A log of what happened, the events so far, a count.
///
/// ```swift
/// let log = Watched<[String]>([])
/// connector.onAttempt = { url in log.update { $0.append("attempt \(url)") } }
/// #expect(log.wait { $0.contains("attempt ws://10.0.0.7:18789") })
/// ```
public final class Watched<Value: Sendable>: @unchecked Sendable {
    private let gate = Gate()
    /// Guarded by `gate`.
    private var current: Value
    /// Guarded by `gate`: bumped by each update.
    private var changes: UInt64 = 0

    /// A value starting at `value`.
    public init(_ value: Value) {
        current = value
    }

    /// The value now.
    public var value: Value { gate.locked { current } }

    /// Changes the value under the lock and wakes the waiters.
    @discardableResult
    public func update<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        gate.condition.lock()
        defer {
            changes &+= 1
            gate.condition.broadcast()
            gate.condition.unlock()
        }
        return try body(&current)
    }

    /// Blocks until `condition` holds for the value (true) or `bound` passed (false: a hang).
    /// `condition` runs outside the lock, on a copy, after each update: it may read this value
    /// (or others) again.
    @discardableResult
    public func wait(bound: Duration = hangBound, until condition: (Value) -> Bool) -> Bool {
        let limit = Gate.limit(bound)
        var (snapshot, seen) = gate.locked { (current, changes) }
        while !condition(snapshot) {
            guard gate.locked({ gate.waitLocked(until: limit) { changes != seen } }) else { return condition(value) }
            (snapshot, seen) = gate.locked { (current, changes) }
        }
        return true
    }

    /// Suspends until `condition` holds for the value (true) or `bound` passed (false: a hang),
    /// waiting on a thread of its own.
    public func wait(bound: Duration = hangBound, until condition: @escaping @Sendable (Value) -> Bool) async -> Bool {
        await onThread { self.wait(bound: bound, until: condition) }
    }
}

/// Suspends until the task is cancelled: what a stand-in handler that never finishes by itself
/// does (no polling of `Task.isCancelled`).
public func waitForCancellation() async {
    final class State: @unchecked Sendable {
        let lock = NSLock()
        var cancelled = false
        var continuation: CheckedContinuation<Void, Never>?
    }
    let state = State()
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.lock.lock()
            let cancelled = state.cancelled
            if !cancelled { state.continuation = continuation }
            state.lock.unlock()
            if cancelled { continuation.resume() }
        }
    } onCancel: {
        state.lock.lock()
        state.cancelled = true
        let continuation = state.continuation
        state.continuation = nil
        state.lock.unlock()
        continuation?.resume()
    }
}

/// The first reading of the look-again delays: 10 ms, doubled up to 500 ms.
private let firstPollDelay: Duration = .milliseconds(10)
private let longestPollDelay: Duration = .milliseconds(500)

/// THE place tests poll, for a state nothing notifies of: the kernel finishing duplicate address
/// detection, an external daemon's cache, processes outside the test's own children dying. Looks
/// at once, then again after 10 ms, 20 ms, … (at most every 500 ms) until `condition` holds
/// (true) or `bound` passed (false). Say at the call site why there is no event to wait on.
public func eventually<E: Error>(within bound: Duration = hangBound,
                                 _ condition: () async throws(E) -> Bool) async throws(E) -> Bool {
    let deadline = ContinuousClock.now + bound
    var delay = firstPollDelay
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: min(delay, deadline - ContinuousClock.now))
        delay = min(delay * 2, longestPollDelay)
    }
}

/// ``eventually(within:_:)`` for a thread that is not in a task (it blocks the thread between looks).
public func eventuallyBlocking<E: Error>(within bound: Duration = hangBound, _ condition: () throws(E) -> Bool) throws(E) -> Bool {
    let clock = SystemMonotonicClock()
    let deadline = clock.now + bound
    var delay = firstPollDelay
    while true {
        if try condition() { return true }
        guard clock.now < deadline else { return false }
        clock.sleep(until: min(deadline, clock.now + delay), unless: { false })
        delay = min(delay * 2, longestPollDelay)
    }
}
