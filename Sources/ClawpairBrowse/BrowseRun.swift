import ClawpairCore
import Synchronization

/// What a source tells the browser.
enum SourceMessage: Sendable, Equatable {
    /// A gateway was resolved, or its record or addresses changed.
    case seen(SourceReport)
    /// Every report of `backend` for `key` is withdrawn.
    case gone(key: String, backend: GatewayBrowser.Backend)
    /// A line for `-v`.
    case note(String)
    /// This mDNS backend answered (which one `auto` settled on).
    case answered(GatewayBrowser.Backend)
    /// A wide-area domain got no answer to its PTR question (`reason` says why).
    case failed(domain: String, reason: String)
    /// A limit cut what `domain` listed: `seen` instances, `limit` kept.
    case truncated(domain: String, seen: Int, limit: Int)
    /// The deadline ended a scan before the backend's answer was complete: `unresolved` of the
    /// `seen` instances in `domain` had not been resolved yet.
    case unfinished(domain: String, seen: Int, unresolved: Int)
}

/// One way of finding gateways, run on a thread of its own until the run's deadline.
protocol GatewaySource: Sendable {
    /// Browses, reporting through `context`, until `context.deadline`, until
    /// ``SourceContext/report(_:)`` returns false or until ``SourceContext/ending`` is raised
    /// (then at once). Clean-up that may wait until the results are out goes to `teardown`,
    /// which runs on the source's thread after its last message and before the run returns.
    func run(_ context: SourceContext, teardown: Teardown) throws
}

/// What a source gets from the run: its deadline, the clock, and the way to report.
final class SourceContext: Sendable {
    let deadline: Monotonic.Instant
    let clock: any MonotonicClock
    /// Set: each source ends at its first ``SourceMessage/seen(_:)``.
    let firstAnswer: Bool
    private let mailbox: Mailbox<BrowseRun.Message>
    private let stopFlag: Atomic<Bool>
    /// Raised when the run wants nothing more: a backend waiting for its socket or the daemon
    /// wakes and returns, instead of going on until its next answer or the deadline.
    let ending = StopSignal()

    init(deadline: Monotonic.Instant, clock: any MonotonicClock, firstAnswer: Bool, mailbox: Mailbox<BrowseRun.Message>) {
        self.deadline = deadline
        self.clock = clock
        self.firstAnswer = firstAnswer
        self.mailbox = mailbox
        stopFlag = Atomic(false)
    }

    /// Whether the run wants nothing more (it ended early, or failed).
    var stopped: Bool { stopFlag.load(ordering: .acquiring) }

    /// Whether there is time left and the run still listens.
    var goingOn: Bool { !stopped && clock.now < deadline }

    func stop() {
        stopFlag.store(true, ordering: .releasing)
        ending.stop()
    }

    /// Hands `message` to the browser; false when the source should stop now.
    @discardableResult
    func report(_ message: SourceMessage) -> Bool {
        guard !stopped else { return false }
        mailbox.put(.source(message))
        if case .seen = message, firstAnswer { return false }
        return true
    }

    func note(_ line: String) { report(.note(line)) }
}

/// Work put off until a source has handed over its results, run newest first, once. Confined
/// to the thread that made it.
final class Teardown {
    private var actions: [() -> Void] = []

    func add(_ action: @escaping () -> Void) { actions.append(action) }

    func run() {
        let pending = actions
        actions = []
        pending.reversed().forEach { $0() }
    }

    deinit { run() }
}

/// One run of the browser: every source on a ``BackgroundThread`` of its own, their messages
/// handed to the caller on the caller's thread, in the order they arrived; the threads are
/// joined before the run returns.
struct BrowseRun {
    enum Message: Sendable {
        case source(SourceMessage)
        /// A source returned (nil), or threw.
        case finished((any Error)?)
        /// The run's stop signal was raised.
        case stopped
    }

    /// The longest run: a longer timeout is cut to this, so that the deadline cannot overflow.
    static let maxTimeout: Duration = .seconds(100 * 365 * 86_400)

    let sources: [any GatewaySource]
    let clock: any MonotonicClock
    let timeout: Duration
    let firstAnswer: Bool
    /// Ends the run from any thread: ``run(_:)`` throws ``BrowseError/stopped(_:)`` at once.
    var stop: StopSignal? = nil

    /// Starts the sources and hands each message to `handle` until every source has finished
    /// or `handle` returns false. The sources still running are then told to end
    /// (``SourceContext/ending``): each backend returns from its wait at once (a wide-area query
    /// in flight too) and closes what it opened. The run returns only after every source thread
    /// has ended and run its teardown: nothing of it (an Avahi client, a socket, a thread) outlives
    /// the call. A source failure ends the run with that error, except in first-answer mode, where
    /// it counts only when no source answers.
    func run(_ handle: (SourceMessage) -> Bool) throws(BrowseError) {
        let mailbox = Mailbox<Message>()
        let timeout = min(max(self.timeout, .zero), Self.maxTimeout)
        let context = SourceContext(deadline: clock.now + timeout, clock: clock, firstAnswer: firstAnswer, mailbox: mailbox)
        let stopHandler = stop?.onStop { mailbox.put(.stopped) }
        var threads: [BackgroundThread] = []
        defer {
            stop?.removeHandler(stopHandler)
            context.stop()
            // Closed before the joins: a source putting into a full mailbox returns at once.
            mailbox.close()
            for thread in threads { thread.join() }
        }
        if let stop, stop.isStopped { throw .stopped(OperationStopped()) }
        for source in sources {
            threads.append(BackgroundThread {
                let teardown = Teardown()
                do {
                    try source.run(context, teardown: teardown)
                    mailbox.put(.finished(nil))
                } catch {
                    mailbox.put(.finished(error))
                }
                teardown.run()
            })
        }
        var running = sources.count
        var failure: (any Error)?
        while running > 0 {
            switch mailbox.take() {
            case .source(let message):
                if !handle(message) { return }
            case .stopped:
                throw .stopped(OperationStopped())
            case .finished(let error):
                running -= 1
                guard let error else { continue }
                if !firstAnswer { throw BrowseError(error) }
                failure = failure ?? error
            }
        }
        if let failure { throw BrowseError(failure) }
    }
}
