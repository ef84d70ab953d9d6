// When a newly minted setup code expires: a lifetime from now (gateways issue 10 minutes) or an
// absolute time, given as text the way a command line or a config file carries it, and the check
// that the result lies in the future (apps refuse expired codes).

import ClawpairCore

/// When a new setup code expires.
public enum SetupCodeExpiry: Sendable, Hashable {
    /// A lifetime from now, in milliseconds (positive).
    case lifetime(ms: Int64)
    /// An absolute expiry, in milliseconds since the epoch (non-negative).
    case at(ms: Int64)

    /// What gateways issue: ``SetupCode/bootstrapTokenTTLMs`` from now.
    public static let standard = SetupCodeExpiry.lifetime(ms: SetupCode.bootstrapTokenTTLMs)

    /// Why expiry text was refused, or the expiry is unusable. Messages are the caller's: the
    /// text came from options or fields whose names only the caller knows.
    public enum Problem: Error, Sendable, Equatable {
        /// Both a lifetime and an absolute time were given.
        case conflicting
        /// The lifetime text is not a positive duration (`10m`, `90s`, `1h30m`); the text as given.
        case invalidLifetime(String)
        /// The absolute time is not a non-negative integer of epoch milliseconds; the text as given.
        case invalidTime(String)
        /// The expiry (epoch ms) is at or before now.
        case notInFuture(expiresAtMs: Int64)
    }

    /// The expiry from optional lifetime text (a ``DurationText`` duration) and optional
    /// absolute-time text (epoch ms); ``standard`` when neither is given.
    public static func parse(lifetime: String?, at time: String?) throws(Problem) -> SetupCodeExpiry {
        switch (lifetime, time) {
        case (.some, .some):
            throw .conflicting
        case (let text?, nil):
            guard let ms = DurationText.milliseconds(text), ms > 0 else { throw .invalidLifetime(text) }
            return .lifetime(ms: ms)
        case (nil, let text?):
            guard let ms = Int64(text), ms >= 0 else { throw .invalidTime(text) }
            return .at(ms: ms)
        case (nil, nil):
            return .standard
        }
    }

    /// The expiry in epoch ms for a code minted at `nowMs` (a lifetime is added saturating).
    public func expiresAtMs(nowMs: Int64) -> Int64 {
        switch self {
        case let .lifetime(ms):
            let (sum, overflow) = nowMs.addingReportingOverflow(ms)
            return overflow ? Int64.max : sum
        case let .at(ms):
            return ms
        }
    }

    /// Throws ``Problem/notInFuture(expiresAtMs:)`` unless `expiresAtMs` is after `nowMs`.
    public static func checkInFuture(_ expiresAtMs: Int64, nowMs: Int64) throws(Problem) {
        if expiresAtMs <= nowMs { throw .notInFuture(expiresAtMs: expiresAtMs) }
    }
}

extension SetupCode {
    /// The setup input a scanned or pasted text carries, or nil when it is none: text that does
    /// not parse as setup input, and a bare gateway URL (which carries no credential), are not.
    public static func setupInput(in text: String?) -> DecodedSetup? {
        guard let text, let setup = try? SetupCode.parse(text), setup.form != .rawURL else { return nil }
        return setup
    }
}
