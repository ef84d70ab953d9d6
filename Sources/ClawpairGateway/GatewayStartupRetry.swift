// A gateway that is still starting answers `connect` with a retryable `UNAVAILABLE` whose
// `details.reason` is `startup-sidecars` and a `retryAfterMs` (`docs/gateway/protocol/handshake.md`;
// upstream's GatewayClient closes 1013 "gateway starting" and connects again after that delay).
// ``GatewayStartupRetry/run(within:clock:attempt:)`` waits that out within the caller's overall
// limit: one loop, on an injected clock, so its schedule is tested without sleeping.

import ClawpairCore

/// Waiting out a gateway that is still starting.
public enum GatewayStartupRetry {
    /// The delay a gateway may ask for is clamped to this range (a peer's number is hostile).
    public static let retryAfterRange: ClosedRange<Duration> = .milliseconds(100) ... .seconds(5)

    /// The delay `shape` asks for when it is the "gateway still starting" answer (`UNAVAILABLE`
    /// with `details.reason` `startup-sidecars`, top-level or in details `retryAfterMs`, 1 s when
    /// absent), clamped to ``retryAfterRange``; nil for any other error.
    public static func retryAfter(_ shape: GatewayErrorShape) -> Duration? {
        guard shape.code == "UNAVAILABLE", shape.details?["reason"]?.stringValue == "startup-sidecars" else { return nil }
        let asked = shape.retryAfterMs ?? shape.details?["retryAfterMs"]?.int64Value ?? 1000
        let clamped = min(max(asked, 0), 60_000)
        return min(max(.milliseconds(clamped), retryAfterRange.lowerBound), retryAfterRange.upperBound)
    }

    /// Runs `attempt` until it returns or throws anything but ``GatewayError/gatewayStarting(retryAfter:_:)``;
    /// after each such answer sleeps the delay it asked for and tries again, as long as the next
    /// try starts before `limit` has passed since the first. When the limit would be overrun the
    /// last ``GatewayError/gatewayStarting(retryAfter:_:)`` is thrown. `stopped` ends a sleep early
    /// (then that error is thrown too).
    public static func run<T>(within limit: Duration, clock: any MonotonicClock = SystemMonotonicClock(),
                              stopped: () -> Bool = { false },
                              attempt: () throws(GatewayError) -> T) throws(GatewayError) -> T {
        let deadline = clock.now + limit
        while true {
            do {
                return try attempt()
            } catch {
                guard case .gatewayStarting(let retryAfter, _) = error, clock.now + retryAfter < deadline, !stopped() else { throw error }
                clock.sleep(until: clock.now + retryAfter, unless: stopped)
                if stopped() { throw error }
            }
        }
    }
}
