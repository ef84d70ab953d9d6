// The candidates of one probe run turned into routes, in the order given: setup codes numbered
// as they come (their routes' labels say "setup code #n"), and what the caller should tell the
// user about them. Plus the rule that splits a run's time between a discovery phase and the race.

import ClawpairCore
import ClawpairSetupCode

/// The routes of a probe run's candidates (URLs, `host[:port]`, setup codes), in order.
public struct ProbeCandidateList: Sendable {
    /// Something to tell the user about a candidate whose routes are probed anyway.
    public enum Notice: Sendable, Equatable {
        /// A setup code carrying credentials was given where other users of the machine can see
        /// it (a command-line argument, in `ps` and shell history).
        case credentialsVisible
        /// Setup code number `code` (from 1) has expired.
        case expired(code: Int)
    }

    /// Every candidate's routes, in the order the candidates were added.
    public private(set) var routes: [ProbeRoute] = []
    /// How many setup codes were added.
    public private(set) var setupCodes = 0

    /// An empty list.
    public init() {}

    /// Adds the routes of one candidate (``ProbeCandidates/expand(_:setupCodeIndex:)``) and returns
    /// what to tell the user about it. `visible`: the text was a command-line argument rather than
    /// read from standard input or a file. `nowMs` is the wall clock for a setup code's expiry.
    public mutating func add(_ text: String, visible: Bool, nowMs: Int64) throws(ProbeCandidateError) -> [Notice] {
        let expanded = try ProbeCandidates.expand(text, setupCodeIndex: setupCodes)
        routes += expanded.routes
        guard case .setupCode(let hasCredentials) = expanded.kind else { return [] }
        setupCodes += 1
        var notices: [Notice] = []
        if visible && hasCredentials { notices.append(.credentialsVisible) }
        if let decoded = try? SetupCode.parse(text), decoded.isExpired(nowMs: nowMs) {
            notices.append(.expired(code: setupCodes))
        }
        return notices
    }
}

extension ProbeConfiguration {
    /// The longest discovery phase before a race (2 s).
    public static let maxDiscovery: Duration = .seconds(2)

    /// The part of ``timeout`` a discovery phase before the race may take: half of it in whole
    /// milliseconds, at most ``maxDiscovery``, so the race keeps the rest and the timeout still
    /// bounds the whole run.
    public var discoveryBudget: Duration { min(Self.maxDiscovery, .milliseconds(timeout.nanoseconds / 2_000_000)) }

    /// This configuration for the race after a discovery phase that took `spent`: the timeout is
    /// what is left of it, at least 1 ms.
    public func remaining(after spent: Duration) -> ProbeConfiguration {
        var rest = self
        rest.timeout = max(.milliseconds(1), timeout - spent)
        return rest
    }
}
