// When a session to a gateway connects again, and when it decides the gateway went silent.
//
// Upstream's GatewayClient (shared/spec/upstream-2026-10.md §2.3): exponential backoff capped at
// 30 s, reset to 250 ms after a protocol restart; a close 1012 ("gateway protocol upgraded" /
// service restart) reconnects at once; the tick watch closes with 4000 "tick timeout" after 2x
// hello-ok.policy.tickIntervalMs of silence (30 000 ms when absent). The policy is a value; the
// schedule is a state machine on instants a caller passes in, so tests drive it with an injected
// clock and a fixed jitter draw.

import ClawpairCore

/// How a ``GatewaySession`` reconnects: bounded exponential backoff with jitter, reset after a
/// stable connection, immediate after a `1012` close, and the tick-silence watch.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The delay before the first reconnect (and after a reset): 250 ms, as upstream's client.
    public var initialDelay: Duration
    /// The longest delay: 30 s, upstream's cap.
    public var maxDelay: Duration
    /// Each failed attempt multiplies the delay by this (at least 1).
    public var multiplier: Double
    /// The share of each delay drawn at random and taken off it (0 = none, 1 = anywhere between
    /// 0 and the delay), so that many clients of a restarted gateway do not reconnect at once.
    public var jitter: Double
    /// A connection that lasted this long counts as stable: the next delay starts again at
    /// ``initialDelay``.
    public var stableAfter: Duration
    /// WebSocket close codes after which the session reconnects at once, with the backoff reset:
    /// `1012` (service restart; upstream's "gateway protocol upgraded").
    public var immediateCloseCodes: Set<UInt16>
    /// Silence longer than this many tick intervals closes the connection (2).
    public var tickSilenceFactor: Int
    /// The close code the tick watch sends (4000, "tick timeout"); one RFC 6455 forbids on the
    /// wire is sent as 4000.
    public var tickTimeoutCloseCode: UInt16
    /// The tick interval assumed when hello-ok names none (30 s).
    public var defaultTickInterval: Duration
    /// The most attempts in a row that fail before the session gives up; nil: never.
    public var maxConsecutiveFailures: Int?
    /// While the gateway holds a pairing request for this device (device approval pending), the
    /// delay between attempts: a steady pace, so the session is back within it once an operator
    /// approves; nil: the backoff (upstream: capped at 30 s).
    public var approvalRetryDelay: Duration?
    /// Whether a certificate that no longer matches the pin is retried (the gateway may have
    /// renewed it, and a pin stored in the registry meanwhile is picked up by the next attempt)
    /// rather than ending the session. The certificate is never accepted either way.
    public var retriesChangedCertificate: Bool
    /// Codes (``GatewayError/code``) of refusals that are retried by the backoff instead of
    /// ending the session: say `operator-access-denied`, which an administrator may lift while a
    /// watch runs (upstream's clients keep retrying on it).
    public var retriedRefusals: Set<String>

    /// Upstream's behaviour, with 20 % jitter and a stable connection after 60 s.
    public init(initialDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(30), multiplier: Double = 2,
                jitter: Double = 0.2, stableAfter: Duration = .seconds(60), immediateCloseCodes: Set<UInt16> = [1012],
                tickSilenceFactor: Int = 2, tickTimeoutCloseCode: UInt16 = 4000, defaultTickInterval: Duration = .seconds(30),
                maxConsecutiveFailures: Int? = nil, approvalRetryDelay: Duration? = nil, retriesChangedCertificate: Bool = false,
                retriedRefusals: Set<String> = []) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.stableAfter = stableAfter
        self.immediateCloseCodes = immediateCloseCodes
        self.tickSilenceFactor = tickSilenceFactor
        self.tickTimeoutCloseCode = tickTimeoutCloseCode
        self.defaultTickInterval = defaultTickInterval
        self.maxConsecutiveFailures = maxConsecutiveFailures
        self.approvalRetryDelay = approvalRetryDelay
        self.retriesChangedCertificate = retriesChangedCertificate
        self.retriedRefusals = retriedRefusals
    }

    /// The delay after `failures` failed attempts in a row (0: the first reconnect), before
    /// jitter: ``initialDelay`` × ``multiplier``^failures, at most ``maxDelay``.
    public func baseDelay(afterFailures failures: Int) -> Duration {
        let initial = max(initialDelay, .zero)
        let cap = max(maxDelay, initial)
        var delay = Double(initial.nanoseconds)
        let factor = max(multiplier, 1)
        for _ in 0..<max(0, min(failures, 64)) {
            delay *= factor
            if delay >= Double(cap.nanoseconds) { return cap }
        }
        return min(.nanoseconds(Int64(delay)), cap)
    }

    /// ``baseDelay(afterFailures:)`` less its jittered share: `draw` is a random number in
    /// 0..<1 (tests pass a fixed one).
    public func delay(afterFailures failures: Int, draw: Double) -> Duration {
        let base = baseDelay(afterFailures: failures)
        let share = min(max(jitter, 0), 1) * min(max(draw, 0), 1)
        return .nanoseconds(Int64(Double(base.nanoseconds) * (1 - share)))
    }

    /// How long the gateway may stay silent on a connection whose hello-ok announced
    /// `tickIntervalMs` (nil: ``defaultTickInterval``): ``tickSilenceFactor`` times it, with
    /// the gateway's number clamped to 1 ms…1 day.
    public func silenceLimit(tickIntervalMs: Int64?) -> Duration {
        let tick = tickIntervalMs.map { Duration.milliseconds(min(max($0, 1), 86_400_000)) } ?? defaultTickInterval
        return tick * max(1, tickSilenceFactor)
    }
}

/// Why a connection of a session ended, as the reconnect schedule sees it.
public enum SessionDisconnect: Sendable, Equatable {
    /// The gateway closed the WebSocket with this code.
    case closed(code: UInt16)
    /// The attempt or connection failed otherwise (unreachable, refused, silent, dropped).
    case failed
    /// Someone asked for a reconnect now (a beacon reappeared, the routes changed).
    case requested
    /// The gateway holds a pairing request for this device: ``ReconnectPolicy/approvalRetryDelay``
    /// when set (not counted as a failure), else as ``failed``.
    case awaitingApproval
}

/// The reconnect state of one session: call ``connected(at:)`` on hello-ok and
/// ``disconnected(_:at:draw:)`` when a connection or attempt ends; the latter says how long to
/// wait. A value driven by the instants the caller passes (the injected clock).
public struct ReconnectSchedule: Sendable, Equatable {
    /// The policy followed.
    public let policy: ReconnectPolicy
    /// Failed attempts since the last stable connection (or reset).
    public private(set) var failures = 0
    /// When the current connection got hello-ok, while it is up.
    public private(set) var connectedAt: Monotonic.Instant?

    /// A schedule with no failures yet.
    public init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// The connection got hello-ok at `instant`.
    public mutating func connected(at instant: Monotonic.Instant) {
        connectedAt = instant
    }

    /// The connection (or the attempt) ended at `instant` for `reason`; returns the delay before
    /// the next attempt, or nil when ``ReconnectPolicy/maxConsecutiveFailures`` is reached.
    /// A stable connection (up for ``ReconnectPolicy/stableAfter``) resets the backoff first;
    /// a close with an immediate code or a requested reconnect resets it and returns zero.
    public mutating func disconnected(_ reason: SessionDisconnect, at instant: Monotonic.Instant, draw: Double) -> Duration? {
        if let since = connectedAt {
            // A connection that got hello-ok ends: the attempt itself succeeded.
            if instant - since >= policy.stableAfter { failures = 0 }
            connectedAt = nil
        }
        switch reason {
        case .requested:
            failures = 0
            return .zero
        case .closed(let code) where policy.immediateCloseCodes.contains(code):
            failures = 0
            return .zero
        case .awaitingApproval where policy.approvalRetryDelay != nil:
            return max(policy.approvalRetryDelay ?? .zero, .zero)
        case .closed, .failed, .awaitingApproval:
            if let limit = policy.maxConsecutiveFailures, failures >= limit { return nil }
            let delay = policy.delay(afterFailures: failures, draw: draw)
            failures += 1
            return delay
        }
    }
}
