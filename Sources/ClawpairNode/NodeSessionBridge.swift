// The hand-over between a node's ``GatewaySession`` (its own thread, events pushed to a handler
// that must not block) and the ``NodeHostRuntime`` (the runner's thread, pulling events with a
// timeout and making blocking requests). One mutex and one condition variable on
// CLOCK_MONOTONIC: an invoke request wakes the runtime at once, never after a poll slice.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairGateway

/// What the runner's thread waits for, fed by the session's thread.
final class NodeSessionBridge: @unchecked Sendable {
    /// The most gateway events that wait for the runtime; beyond it the oldest are dropped
    /// (each invoke has its own deadline, so an old one is of no use anyway).
    static let maxQueuedEvents = 1024

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var generation = 0
    private var lostGeneration = 0
    private var events: [NodeGatewayEvent] = []
    private var results: [Int: Result<JSONValue, GatewayError>] = [:]
    private var nextCall = 0
    private var ending: GatewayError??
    private var interrupted = false

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Changes the state and wakes every waiter.
    private func change(_ body: () -> Void) {
        locked {
            body()
            pthread_cond_broadcast(condition)
        }
    }

    /// Waits (the mutex held) while `blocked()` and before `deadline`.
    private func wait(until deadline: Monotonic.Instant, while blocked: () -> Bool) {
        while blocked() {
            let now = Monotonic.now
            guard now < deadline else { return }
            let target = deadline.nanoseconds
            var spec = timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000))
            _ = pthread_cond_timedwait(condition, mutex, &spec)
        }
    }

    // MARK: From the session's thread

    /// hello-ok: a new connection (generation) begins with an empty queue.
    func connected() {
        change {
            generation += 1
            events.removeAll()
        }
    }

    /// An event of the current connection.
    func push(_ event: NodeGatewayEvent) {
        change {
            if events.count >= Self.maxQueuedEvents { events.removeFirst() }
            events.append(event)
        }
    }

    /// The current connection ended.
    func lost() {
        change { lostGeneration = generation }
    }

    /// The session ended (nil: stopped).
    func end(_ error: GatewayError?) {
        change {
            lostGeneration = generation
            ending = .some(error)
        }
    }

    /// Wakes every wait (the runner was stopped).
    func interrupt() {
        change { interrupted = true }
    }

    // MARK: From the runner's thread

    /// What the runner's loop is waiting for.
    enum Next {
        /// Connection `generation` is up.
        case connected(generation: Int)
        /// The session ended.
        case ended(GatewayError?)
        /// Nothing before the deadline.
        case idle
    }

    /// Waits until a connection newer than `after` is up, the session ends, or `deadline`.
    func next(after: Int, until deadline: Monotonic.Instant) -> Next {
        locked {
            // Not ended by `interrupted`: a stopped session still reports its end, promptly.
            // A connection that came and went before this thread saw it is skipped.
            wait(until: deadline) { ending == nil && !(generation > after && lostGeneration < generation) }
            if let ending { return .ended(ending) }
            if generation > after, lostGeneration < generation { return .connected(generation: generation) }
            return .idle
        }
    }

    /// Whether connection `generation` has ended (or the runner was stopped).
    func isLost(_ generation: Int) -> Bool {
        locked { lostGeneration >= generation || interrupted }
    }

    /// The next event of connection `generation` within `timeout`; nil when none came; throws
    /// once that connection ended.
    func nextEvent(of generation: Int, timeout: Duration) throws(NodeConnectionFailure) -> NodeGatewayEvent? {
        let deadline = Monotonic.now + timeout
        let outcome = locked { () -> Result<NodeGatewayEvent?, NodeConnectionFailure> in
            wait(until: deadline) { events.isEmpty && lostGeneration < generation && !interrupted && self.generation == generation }
            if !events.isEmpty, self.generation == generation { return .success(events.removeFirst()) }
            if lostGeneration >= generation || self.generation != generation { return .failure(.lost(reason: "the connection ended")) }
            return .success(nil)
        }
        return try outcome.get()
    }

    /// Sends `method` through `session` and waits for its answer (or the stop).
    func request(_ session: GatewaySession, _ method: String, params: JSONValue,
                 timeout: Duration) throws(NodeConnectionFailure) -> JSONValue {
        let id = locked { () -> Int in
            nextCall += 1
            return nextCall
        }
        session.send(method, params: params, timeout: timeout) { [self] result in
            change { results[id] = result }
        }
        let result = locked { () -> Result<JSONValue, GatewayError>? in
            // The session answers every call (its own timeout, the connection's end, the stop);
            // the margin only bounds a wait nothing could end.
            wait(until: Monotonic.now + timeout + .seconds(1)) { results[id] == nil && !interrupted }
            return results.removeValue(forKey: id)
        }
        switch result {
        case .success(let payload): return payload
        case .failure(.rpcFailed(_, let shape)): throw .refused(code: shape.code, message: shape.message)
        case .failure(let error): throw .lost(reason: error.message)
        case nil: throw .lost(reason: "stopped")
        }
    }
}

/// One connection of a session as the runtime sees it.
final class SessionNodeConnection: NodeGatewayConnection {
    let bridge: NodeSessionBridge
    let session: GatewaySession
    let generation: Int

    init(bridge: NodeSessionBridge, session: GatewaySession, generation: Int) {
        self.bridge = bridge
        self.session = session
        self.generation = generation
    }

    func nextEvent(timeout: Duration) throws(NodeConnectionFailure) -> NodeGatewayEvent? {
        try bridge.nextEvent(of: generation, timeout: timeout)
    }

    func request(_ method: String, params: JSONValue, timeout: Duration) throws(NodeConnectionFailure) -> JSONValue {
        guard !bridge.isLost(generation) else { throw .lost(reason: "the connection ended") }
        return try bridge.request(session, method, params: params, timeout: timeout)
    }
}
