import ClawpairCore

// The race between candidate routes, RFC 8305-style, as a pure state machine with an injected
// clock (every input carries `now`; tests pass instants instead of sleeping).
//
// - Route n starts `stagger` after route n−1, or at once when route n−1 (or every running
//   route) has already failed.
// - `first` mode: the first route to pass wins. Successes reported in the same event-loop
//   round are settled together and the lowest route index wins (candidate order breaks ties).
// - `fastest` mode: every route runs to its end; the lowest latency wins, ties to the lower index.
// - `all` mode: every route runs to its end, so each outcome is real; the first to pass wins.
// - On finishing, every running route is cancelled. The deadline finishes the race too.
//
// All transitions are the one exhaustive `switch (state, input)` in `handle(_:now:)`.

import ClawpairTransport

/// The candidate race.
public struct ProbeRace: Sendable {
    /// How the winner is chosen.
    public enum Mode: String, Sendable, Equatable {
        /// The first route to pass (candidate order breaks ties).
        case first
        /// The route with the lowest latency, after all have finished.
        case fastest
        /// The first route to pass, after all have finished: every route's outcome is its own,
        /// none is cut short as `cancelled`.
        case all
    }

    /// What happened.
    public enum Input: Sendable, Equatable {
        /// Begin.
        case start
        /// The stagger timer expired.
        case timerFired
        /// Route `index` passed, `latency` after it started.
        case succeeded(Int, latency: Duration)
        /// Route `index` failed (or was not dialable).
        case failed(Int)
        /// The round in which the first success arrived has ended (`first` mode).
        case settle
        /// The run's time limit passed.
        case deadline
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Equatable {
        /// Start probing route `index`.
        case startCandidate(Int)
        /// Stop route `index` (it lost, or time ran out).
        case cancelCandidate(Int)
        /// (Re)arm the stagger timer for this instant.
        case setTimer(Monotonic.Instant)
        /// Disarm the stagger timer.
        case cancelTimer
        /// Feed `.settle` once the current event-loop round has ended.
        case settleAfterThisRound
        /// Done: the winning route, or nil when none passed.
        case finish(winner: Int?)
    }

    private struct Racing: Sendable {
        var next = 0
        var running: Set<Int> = []
        var lastStarted: Int?
        var successes: [(index: Int, latency: Duration)] = []
        /// When the armed timer is due; the next start is scheduled from this, not from the
        /// moment the timer was handled, so a late wake-up does not push every later start back.
        var timerDue: Monotonic.Instant?
        var settling = false

        var timerArmed: Bool { timerDue != nil }
    }

    private enum State: Sendable {
        case idle
        case racing(Racing)
        case finished
    }

    /// The number of routes.
    public let count: Int
    /// The delay between route starts.
    public let stagger: Duration
    /// How the winner is chosen.
    public let mode: Mode
    private var state: State = .idle

    /// A race over `count` routes.
    public init(count: Int, stagger: Duration, mode: Mode) {
        precondition(count >= 0 && stagger >= .zero, "a race needs a non-negative count and stagger")
        self.count = count
        self.stagger = stagger
        self.mode = mode
    }

    /// Whether `finish` was emitted.
    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Feeds one input at `now`; returns the actions to perform, in order.
    public mutating func handle(_ input: Input, now: Monotonic.Instant) -> [Action] {
        switch (state, input) {
        case (.idle, .start):
            var racing = Racing()
            guard count > 0 else {
                state = .finished
                return [.finish(winner: nil)]
            }
            return startNext(&racing, now: now)
        case (.idle, .deadline):
            state = .finished
            return [.finish(winner: nil)]
        case (.idle, .timerFired), (.idle, .succeeded), (.idle, .failed), (.idle, .settle):
            return []

        case (.racing(var r), .timerFired):
            let due = r.timerDue ?? now
            r.timerDue = nil
            guard !r.settling, r.next < count else {
                state = .racing(r)
                return []
            }
            return startNext(&r, now: now, scheduledAt: min(due, now))
        case (.racing(var r), .failed(let index)):
            guard r.running.remove(index) != nil else { return [] }
            var actions: [Action] = []
            if !r.settling, r.next < count, index == r.lastStarted || r.running.isEmpty {
                if r.timerArmed {
                    r.timerDue = nil
                    actions.append(.cancelTimer)
                }
                actions += startNext(&r, now: now)
            }
            if r.running.isEmpty && r.next >= count && !r.settling {
                return actions + conclude(r)
            }
            state = .racing(r)
            return actions
        case (.racing(var r), .succeeded(let index, let latency)):
            guard r.running.remove(index) != nil else { return [] }
            r.successes.append((index, latency))
            switch mode {
            case .first:
                if r.settling {
                    state = .racing(r)
                    return []
                }
                r.settling = true
                state = .racing(r)
                return [.settleAfterThisRound]
            case .fastest, .all:
                if r.running.isEmpty && r.next >= count { return conclude(r) }
                state = .racing(r)
                return []
            }
        case (.racing(let r), .settle):
            return r.settling ? conclude(r) : []
        case (.racing(let r), .deadline):
            return conclude(r)
        case (.racing, .start):
            return []

        case (.finished, _):
            return []
        }
    }

    /// Starts the next route. `scheduledAt` is when this start was due (the timer's deadline),
    /// `now` when nothing was scheduled; the following start is due `stagger` after it.
    private mutating func startNext(_ r: inout Racing, now: Monotonic.Instant, scheduledAt: Monotonic.Instant? = nil) -> [Action] {
        let index = r.next
        r.next += 1
        r.running.insert(index)
        r.lastStarted = index
        var actions: [Action] = [.startCandidate(index)]
        if r.next < count {
            let due = (scheduledAt ?? now).advanced(by: stagger)
            r.timerDue = due
            actions.append(.setTimer(due))
        }
        state = .racing(r)
        return actions
    }

    private mutating func conclude(_ r: Racing) -> [Action] {
        state = .finished
        let winner: Int?
        switch mode {
        case .first:
            winner = r.successes.map(\.index).min()
        case .fastest:
            winner = r.successes.min { ($0.latency, $0.index) < ($1.latency, $1.index) }?.index
        case .all:
            winner = r.successes.first?.index
        }
        return r.running.sorted().map(Action.cancelCandidate) + (r.timerArmed ? [.cancelTimer] : []) + [.finish(winner: winner)]
    }
}
