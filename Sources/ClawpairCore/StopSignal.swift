#if canImport(Glibc)
import Glibc
#endif
import Synchronization

// The one way to stop something that lasts (a browse, a pairing wait, a probe race, a gateway
// session and its calls, advertising): raise a ``StopSignal`` from any thread, or cancel the
// task that awaits the call. Whatever waits wakes at once: an ``EventLoop`` that watches the
// signal is woken through its mailbox pipe, a thread blocked on a condition variable through a
// handler, a sleep within ``StopSignal/pollSlice``. The call then returns its own module's
// "cancelled" outcome (``OperationStopped``, `GatewayError.cancelled`, …), whose code is
// `cancelled`, never a timeout or a failure.

/// A one-way flag that stops long-running calls: once raised it stays raised, and raising it
/// wakes every call that watches it (each returns within milliseconds with a "cancelled"
/// outcome). Safe from any thread; raising it twice is harmless.
///
/// ```swift
/// let stop = StopSignal()
/// BackgroundThread.detached { sleep(3); stop.stop() }
/// try browser.watch(stop: stop) { event in print(event); return true }  // returns at the stop
/// ```
///
/// The `async` variants create one and raise it when their task is cancelled.
public final class StopSignal: Sendable {
    /// A handler registered with ``onStop(_:)``, to remove it again.
    public struct Handler: Sendable, Hashable {
        let id: Int
    }

    /// How often sleeps that cannot be woken directly look at the flag: 10 ms, well inside the
    /// 50 ms a stop may take.
    public static let pollSlice: Duration = .milliseconds(10)

    private let raised = Atomic<Bool>(false)
    private let handlers = Mutex<(next: Int, byID: [Int: @Sendable () -> Void])>((0, [:]))

    /// A signal not yet raised.
    public init() {}

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { raised.load(ordering: .acquiring) }

    /// Raises the signal and runs every registered handler once, on the calling thread.
    public func stop() {
        guard !raised.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let pending = handlers.withLock { state -> [@Sendable () -> Void] in
            defer { state.byID.removeAll() }
            return state.byID.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in pending { handler() }
    }

    /// Runs `handler` when the signal is raised (on the raising thread), or at once on this
    /// thread when it already is (then the result is nil). Handlers must not block.
    @discardableResult
    public func onStop(_ handler: @escaping @Sendable () -> Void) -> Handler? {
        let id: Int? = handlers.withLock { state in
            guard !raised.load(ordering: .acquiring) else { return nil }
            state.next += 1
            state.byID[state.next] = handler
            return state.next
        }
        guard let id else {
            handler()
            return nil
        }
        return Handler(id: id)
    }

    /// Forgets a handler (idempotent; nil is ignored).
    public func removeHandler(_ handler: Handler?) {
        guard let handler else { return }
        _ = handlers.withLock { $0.byID.removeValue(forKey: handler.id) }
    }

    /// A signal raised when either this one or `other` is.
    public func joined(with other: StopSignal?) -> StopSignal {
        guard let other else { return self }
        let both = StopSignal()
        let first = onStop { both.stop() }
        let second = other.onStop { both.stop() }
        // Forget the forwarding once `both` is raised, so a long-lived parent does not collect them.
        both.onStop { [weak self, weak other] in
            self?.removeHandler(first)
            other?.removeHandler(second)
        }
        return both
    }

    /// Waits until `clock` reaches `deadline` or the signal is raised, whichever comes first;
    /// true when it was raised. The clock's own sleep is used in slices of ``pollSlice``, so
    /// an injected clock (tests) still jumps instead of waiting.
    @discardableResult
    public func sleep(until deadline: Monotonic.Instant, clock: any MonotonicClock) -> Bool {
        while !isStopped {
            let now = clock.now
            guard now < deadline else { return false }
            clock.sleep(until: min(deadline, now + Self.pollSlice), unless: { self.isStopped })
        }
        return true
    }

    /// Throws ``OperationStopped`` when the signal is raised.
    public func check() throws(OperationStopped) {
        if isStopped { throw OperationStopped() }
    }

    /// Throws `error` (a module's own "cancelled" case) when the signal is raised.
    public func check<E: Error>(or error: @autoclosure () -> E) throws(E) {
        if isStopped { throw error() }
    }
}

/// The outcome of a call stopped through its ``StopSignal`` or by cancelling its task: not a
/// failure, and distinct from running out of time. Its ``code`` is `cancelled`, the code every
/// module's own "cancelled" case carries.
public struct OperationStopped: ClawpairError, Equatable {
    /// A stopped outcome.
    public init() {}

    /// `stopped before it finished`.
    public var message: String { "stopped before it finished" }
    /// `cancelled`.
    public var code: String { "cancelled" }
}
