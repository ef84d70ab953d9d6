import ClawpairCore

// A setup code found where it was not expected (a scanned image, a pasted text) is a secret
// until it expires: what to tell the person who found it.

extension DecodedSetup {
    /// ``SetupCodeError/expired(expiresAtMs:nowMs:)`` when the code has expired at `nowMs`; nil
    /// while it is valid or when it has no expiry (the value ``checkNotExpired(nowMs:)`` throws).
    public func expiryFailure(nowMs: Int64) -> SetupCodeError? {
        guard isExpired(nowMs: nowMs), let expiresAtMs else { return nil }
        return .expired(expiresAtMs: expiresAtMs, nowMs: nowMs)
    }

    /// `this is an OpenClaw setup code, a secret: whoever has it can pair with the gateway`,
    /// followed by ` until it expires in 9m` or ` (it expired 2m ago)` when the code has an
    /// expiry (``WallClock/relative(ms:now:)``); no final period.
    public func secretWarning(nowMs: Int64) -> String {
        let warning = "this is an OpenClaw setup code, a secret: whoever has it can pair with the gateway"
        guard let expiresAtMs else { return warning }
        let when = WallClock.relative(ms: expiresAtMs, now: nowMs)
        return warning + (isExpired(nowMs: nowMs) ? " (it expired \(when))" : " until it expires \(when)")
    }
}
