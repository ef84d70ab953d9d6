import ClawpairCore

// Happy Eyeballs version 2 (RFC 8305) for one host, as a pure state machine: inputs are
// resolver answers, timer expiries and connect outcomes; outputs are actions for a driver
// (`TCPDialer`) to carry out. It never reads a clock: every input comes with `now`, so tests
// walk it through time without sleeping.
//
// - §3: AAAA and A are asked at the same time. If A answers first, wait up to
//   `resolutionDelay` (50 ms) for AAAA before connecting; if AAAA answers first, start at once.
// - §4: addresses are interleaved by family, IPv6 first (`firstAddressFamilyCount` of them),
//   then alternating. Addresses that arrive later are merged into the untried ones, resuming
//   the alternation with the family not tried last.
// - §5: a new attempt starts every `connectionAttemptDelay` (250 ms) while earlier ones are
//   still pending, and at once when one fails. The first to connect wins; the others are
//   cancelled (their sockets closed).
//
// Every transition is one case of the exhaustive `switch (state, input)` in `handle(_:now:)`.

/// RFC 8305 timing and ordering knobs.
public struct HappyEyeballsConfiguration: Sendable, Equatable {
    /// §3 "Resolution Delay": how long to wait for AAAA once A has answered. Default 50 ms.
    public var resolutionDelay: Duration
    /// §5 "Connection Attempt Delay": the stagger between attempts. Default 250 ms (the RFC's
    /// recommendation; it allows 10 ms to 2 s).
    public var connectionAttemptDelay: Duration
    /// §4 "First Address Family Count": how many IPv6 addresses lead before alternating. Default 1.
    public var firstAddressFamilyCount: Int

    /// The RFC's recommended values unless given.
    public init(resolutionDelay: Duration = .milliseconds(50), connectionAttemptDelay: Duration = .milliseconds(250),
                firstAddressFamilyCount: Int = 1) {
        precondition(firstAddressFamilyCount >= 1, "at least one address of the preferred family leads")
        self.resolutionDelay = resolutionDelay
        self.connectionAttemptDelay = connectionAttemptDelay
        self.firstAddressFamilyCount = firstAddressFamilyCount
    }
}

/// The Happy Eyeballs state machine for one host name.
public struct HappyEyeballs: Sendable {
    /// Identifies one connection attempt (one address).
    public struct AttemptID: Hashable, Sendable, Comparable, CustomStringConvertible {
        /// The attempt's number.
        public let rawValue: Int
        /// The attempt with this number.
        public init(_ rawValue: Int) { self.rawValue = rawValue }
        /// Ordered by number (the order they started).
        public static func < (lhs: AttemptID, rhs: AttemptID) -> Bool { lhs.rawValue < rhs.rawValue }
        /// A readable form, for messages and logs.
        public var description: String { "#\(rawValue)" }
    }

    /// What happened.
    public enum Input: Sendable, Equatable {
        /// The resolver answered for a family (an empty list counts as a failure).
        case resolved(SocketAddress.Family, [SocketAddress])
        /// The resolver failed for a family.
        case resolutionFailed(SocketAddress.Family, TransportError)
        /// The timer from the last `setTimer` expired.
        case timerFired
        /// An attempt's socket connected.
        case attemptSucceeded(AttemptID)
        /// An attempt's socket failed to connect.
        case attemptFailed(AttemptID, TransportError)
        /// The caller gave up (overall deadline, or the race was won elsewhere).
        case cancel
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Equatable {
        /// Open a socket and start connecting to the address.
        case startAttempt(AttemptID, SocketAddress)
        /// Close that attempt's socket.
        case cancelAttempt(AttemptID)
        /// (Re)arm the single timer for this instant, replacing any earlier one.
        case setTimer(Monotonic.Instant)
        /// Disarm the timer.
        case cancelTimer
        /// Done: this attempt's socket is the connection.
        case connected(AttemptID, SocketAddress)
        /// Done: no address could be connected (the most telling error).
        case failed(TransportError)
    }

    private enum FamilyStatus: Sendable, Equatable {
        case pending
        case answered
        case failed(TransportError)
    }

    private struct Connecting: Sendable {
        var untried: [SocketAddress]
        var inFlight: [AttemptID: SocketAddress] = [:]
        var ipv6: FamilyStatus
        var ipv4: FamilyStatus
        var timerArmed = false
        var lastStart: Monotonic.Instant?
        var lastFamily: SocketAddress.Family?
        var errors: [TransportError] = []

        var familyPending: Bool { ipv6 == .pending || ipv4 == .pending }
    }

    private enum State: Sendable {
        case resolving(ipv6: FamilyStatus, ipv4: FamilyStatus)
        case resolutionDelay(ipv4Addresses: [SocketAddress])
        case connecting(Connecting)
        case connected
        case failed
    }

    /// The configuration.
    public let configuration: HappyEyeballsConfiguration
    /// The host name, for error messages.
    public let host: String
    private var state: State = .resolving(ipv6: .pending, ipv4: .pending)
    private var nextAttempt = 0

    /// A machine for `host` waiting for both resolver answers.
    public init(host: String, configuration: HappyEyeballsConfiguration = HappyEyeballsConfiguration()) {
        self.host = host
        self.configuration = configuration
    }

    /// Whether a `connected` or `failed` action was emitted.
    public var isFinished: Bool {
        switch state {
        case .connected, .failed: return true
        case .resolving, .resolutionDelay, .connecting: return false
        }
    }

    /// Feeds one input at time `now`; returns the actions to perform, in order.
    public mutating func handle(_ input: Input, now: Monotonic.Instant) -> [Action] {
        switch (state, input) {
        // Nothing usable yet.
        case (.resolving(_, let ipv4), .resolved(.ipv6, let addresses)) where !addresses.isEmpty:
            return startConnecting(ipv6: addresses, ipv4: [], ipv6Status: .answered, ipv4Status: ipv4, now: now)
        case (.resolving(.pending, _), .resolved(.ipv4, let addresses)) where !addresses.isEmpty:
            state = .resolutionDelay(ipv4Addresses: addresses)
            return [.setTimer(now.advanced(by: configuration.resolutionDelay))]
        case (.resolving(let ipv6, _), .resolved(.ipv4, let addresses)) where !addresses.isEmpty:
            return startConnecting(ipv6: [], ipv4: addresses, ipv6Status: ipv6, ipv4Status: .answered, now: now)
        case (.resolving(let ipv6, let ipv4), .resolved(let family, _)):
            // An empty answer is a failure of that family.
            return resolvingFailed(family, .noAddresses(host: host), ipv6: ipv6, ipv4: ipv4)
        case (.resolving(let ipv6, let ipv4), .resolutionFailed(let family, let error)):
            return resolvingFailed(family, error, ipv6: ipv6, ipv4: ipv4)
        case (.resolving, .timerFired):
            return []
        case (.resolving, .attemptSucceeded(let id)):
            return [.cancelAttempt(id)]
        case (.resolving, .attemptFailed):
            return []
        case (.resolving, .cancel):
            state = .failed
            return [.failed(.cancelled)]

        // A answered, waiting briefly for AAAA.
        case (.resolutionDelay(let ipv4Addresses), .resolved(.ipv6, let addresses)):
            let status: FamilyStatus = addresses.isEmpty ? .failed(.noAddresses(host: host)) : .answered
            return [.cancelTimer] + startConnecting(ipv6: addresses, ipv4: ipv4Addresses, ipv6Status: status,
                                                    ipv4Status: .answered, now: now)
        case (.resolutionDelay(let ipv4Addresses), .resolutionFailed(.ipv6, let error)):
            return [.cancelTimer] + startConnecting(ipv6: [], ipv4: ipv4Addresses, ipv6Status: .failed(error),
                                                    ipv4Status: .answered, now: now)
        case (.resolutionDelay(let ipv4Addresses), .timerFired):
            return startConnecting(ipv6: [], ipv4: ipv4Addresses, ipv6Status: .pending, ipv4Status: .answered, now: now)
        case (.resolutionDelay, .resolved(.ipv4, _)), (.resolutionDelay, .resolutionFailed(.ipv4, _)):
            return []  // A already answered; a second answer is ignored.
        case (.resolutionDelay, .attemptSucceeded(let id)):
            return [.cancelAttempt(id)]
        case (.resolutionDelay, .attemptFailed):
            return []
        case (.resolutionDelay, .cancel):
            state = .failed
            return [.cancelTimer, .failed(.cancelled)]

        // Attempts under way.
        case (.connecting(var c), .resolved(let family, let addresses)):
            guard status(of: family, in: c) == .pending else { return [] }
            setStatus(addresses.isEmpty ? .failed(.noAddresses(host: host)) : .answered, of: family, in: &c)
            c.untried = merge(c.untried, adding: addresses, resumingAfter: c.lastFamily)
            var actions: [Action] = []
            if !c.untried.isEmpty && c.inFlight.isEmpty {
                // Nothing to stagger against: every earlier attempt already failed.
                if c.timerArmed {
                    c.timerArmed = false
                    actions.append(.cancelTimer)
                }
                actions += startNext(&c, now: now)
            } else if !c.timerArmed && !c.untried.isEmpty {
                let due = c.lastStart.map { $0.advanced(by: configuration.connectionAttemptDelay) } ?? now
                if due <= now {
                    actions += startNext(&c, now: now)
                } else {
                    c.timerArmed = true
                    actions.append(.setTimer(due))
                }
            }
            return actions + finishIfExhausted(c)
        case (.connecting(var c), .resolutionFailed(let family, let error)):
            guard status(of: family, in: c) == .pending else { return [] }
            setStatus(.failed(error), of: family, in: &c)
            c.errors.append(error)
            return finishIfExhausted(c)
        case (.connecting(var c), .timerFired):
            c.timerArmed = false
            guard !c.untried.isEmpty else {
                state = .connecting(c)
                return []
            }
            return startNext(&c, now: now)
        case (.connecting(var c), .attemptFailed(let id, let error)):
            guard c.inFlight.removeValue(forKey: id) != nil else { return [] }
            c.errors.append(error)
            if !c.untried.isEmpty {
                return (c.timerArmed ? [.cancelTimer] : []) + startNext(&c, now: now)
            }
            return finishIfExhausted(c)
        case (.connecting(let c), .attemptSucceeded(let id)):
            guard let address = c.inFlight[id] else { return [.cancelAttempt(id)] }
            state = .connected
            let losers = c.inFlight.keys.filter { $0 != id }.sorted().map(Action.cancelAttempt)
            return losers + (c.timerArmed ? [.cancelTimer] : []) + [.connected(id, address)]
        case (.connecting(let c), .cancel):
            state = .failed
            return c.inFlight.keys.sorted().map(Action.cancelAttempt) + (c.timerArmed ? [.cancelTimer] : []) + [.failed(.cancelled)]

        // Finished: late successes are closed, everything else ignored.
        case (.connected, .attemptSucceeded(let id)), (.failed, .attemptSucceeded(let id)):
            return [.cancelAttempt(id)]
        case (.connected, .resolved), (.connected, .resolutionFailed), (.connected, .timerFired),
             (.connected, .attemptFailed), (.connected, .cancel),
             (.failed, .resolved), (.failed, .resolutionFailed), (.failed, .timerFired),
             (.failed, .attemptFailed), (.failed, .cancel):
            return []
        }
    }

    // MARK: Helpers

    private mutating func resolvingFailed(_ family: SocketAddress.Family, _ error: TransportError,
                                          ipv6: FamilyStatus, ipv4: FamilyStatus) -> [Action] {
        let newIPv6 = family == .ipv6 ? .failed(error) : ipv6
        let newIPv4 = family == .ipv4 ? .failed(error) : ipv4
        if case .failed(let e6) = newIPv6, case .failed(let e4) = newIPv4 {
            state = .failed
            return [.failed(Self.mostTelling([e6, e4], host: host))]
        }
        state = .resolving(ipv6: newIPv6, ipv4: newIPv4)
        return []
    }

    private mutating func startConnecting(ipv6: [SocketAddress], ipv4: [SocketAddress], ipv6Status: FamilyStatus,
                                          ipv4Status: FamilyStatus, now: Monotonic.Instant) -> [Action] {
        var c = Connecting(untried: Self.interleave(first: Self.unique(ipv6), second: Self.unique(ipv4),
                                                    leading: configuration.firstAddressFamilyCount),
                           ipv6: ipv6Status, ipv4: ipv4Status)
        for case .failed(let error) in [ipv6Status, ipv4Status] { c.errors.append(error) }
        if c.untried.isEmpty { return finishIfExhausted(c) }
        return startNext(&c, now: now)
    }

    /// Starts the first untried address and arms the attempt timer.
    private mutating func startNext(_ c: inout Connecting, now: Monotonic.Instant) -> [Action] {
        let address = c.untried.removeFirst()
        nextAttempt += 1
        let id = AttemptID(nextAttempt)
        c.inFlight[id] = address
        c.lastStart = now
        c.lastFamily = address.family
        var actions: [Action] = [.startAttempt(id, address)]
        if !c.untried.isEmpty || c.familyPending {
            c.timerArmed = true
            actions.append(.setTimer(now.advanced(by: configuration.connectionAttemptDelay)))
        } else if c.timerArmed {
            c.timerArmed = false
            actions.append(.cancelTimer)
        }
        state = .connecting(c)
        return actions
    }

    /// Stores `c`, failing when nothing is left to try or wait for.
    private mutating func finishIfExhausted(_ c: Connecting) -> [Action] {
        if c.untried.isEmpty && c.inFlight.isEmpty && !c.familyPending {
            state = .failed
            return (c.timerArmed ? [.cancelTimer] : []) + [.failed(Self.mostTelling(c.errors, host: host))]
        }
        state = .connecting(c)
        return []
    }

    private func status(of family: SocketAddress.Family, in c: Connecting) -> FamilyStatus {
        family == .ipv6 ? c.ipv6 : c.ipv4
    }

    private func setStatus(_ status: FamilyStatus, of family: SocketAddress.Family, in c: inout Connecting) {
        if family == .ipv6 { c.ipv6 = status } else { c.ipv4 = status }
    }

    /// The error to report: the last connect error if any attempt was made, else the last
    /// resolution error that is not a bare "no addresses".
    static func mostTelling(_ errors: [TransportError], host: String) -> TransportError {
        if let connect = errors.last(where: { if case .connectFailed = $0 { return true } else { return false } }) {
            return connect
        }
        if let resolution = errors.last(where: { if case .noAddresses = $0 { return false } else { return true } }) {
            return resolution
        }
        return errors.last ?? .noAddresses(host: host)
    }

    static func unique(_ addresses: [SocketAddress]) -> [SocketAddress] {
        var seen = Set<SocketAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }

    /// §4 ordering: `leading` of `first`, then alternate starting with `second`.
    static func interleave(first: [SocketAddress], second: [SocketAddress], leading: Int) -> [SocketAddress] {
        var out = Array(first.prefix(leading))
        var a = first.dropFirst(leading)[...], b = second[...]
        var takeSecond = true
        while !a.isEmpty || !b.isEmpty {
            if takeSecond, let next = b.first {
                out.append(next)
                b = b.dropFirst()
            } else if let next = a.first {
                out.append(next)
                a = a.dropFirst()
            } else if let next = b.first {
                out.append(next)
                b = b.dropFirst()
            }
            takeSecond.toggle()
        }
        return out
    }

    /// Merges late addresses into the untried list, alternating families and starting with
    /// the family other than the one tried last (§4).
    private func merge(_ untried: [SocketAddress], adding new: [SocketAddress], resumingAfter last: SocketAddress.Family?) -> [SocketAddress] {
        let all = Self.unique(untried + new)
        let v6 = all.filter { $0.family == .ipv6 }, v4 = all.filter { $0.family == .ipv4 }
        switch last {
        case .ipv6?: return Self.interleave(first: v4, second: v6, leading: 1)
        case .ipv4?: return Self.interleave(first: v6, second: v4, leading: 1)
        case nil: return Self.interleave(first: v6, second: v4, leading: configuration.firstAddressFamilyCount)
        }
    }
}
