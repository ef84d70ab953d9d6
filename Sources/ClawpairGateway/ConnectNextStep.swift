// What a gateway recommends after refusing a `connect`: `details.recommendedNextStep`
// (upstream `packages/gateway-protocol/src/connect-error-details.ts`; /work/shared/spec
// upstream-2026-10.md §1.3). `retry_with_device_token` (with `canRetryWithDeviceToken`) drives the
// one bounded retry with the stored device token (GatewaySession, OperatorSession), and
// `wait_then_retry` a node bootstrap's steady retry (GatewayPairing) and, for a refused credential,
// the advice to wait. Upstream's gateway picks the step from the refusal's reason
// (resolveUnauthorizedHandshakeContext, as joyhousebot's port shows it): a token or password missing
// (or none configured on the gateway) → update_auth_configuration; a mismatch →
// update_auth_credentials; rate limited → wait_then_retry; anything else →
// review_auth_configuration. So the configuration to update is usually the client's own: the
// detail code, not the step, tells when the gateway's administrator must act.

/// A gateway's recommended next step after a refused `connect`.
public enum ConnectNextStep: String, Sendable, Equatable, CaseIterable {
    /// Connect again with the device token stored for this gateway.
    case retryWithDeviceToken = "retry_with_device_token"
    /// The gateway's own auth configuration must change before this client can get in.
    case updateAuthConfiguration = "update_auth_configuration"
    /// The credential is wrong or stale: a new one is needed.
    case updateAuthCredentials = "update_auth_credentials"
    /// Wait, then try again (a pending approval, or attempts being limited).
    case waitThenRetry = "wait_then_retry"
    /// The gateway's auth configuration should be reviewed by its administrator.
    case reviewAuthConfiguration = "review_auth_configuration"

    /// The step `shape` recommends (`details.recommendedNextStep`), nil when absent or unknown.
    public init?(_ shape: GatewayErrorShape) {
        guard let text = shape.details?["recommendedNextStep"]?.stringValue, let step = ConnectNextStep(rawValue: text) else {
            return nil
        }
        self = step
    }
}

extension GatewayErrorShape {
    /// The gateway's recommended next step (``ConnectNextStep``), when it sent a known one.
    public var recommendedNextStep: ConnectNextStep? { ConnectNextStep(self) }

    /// Advice for a refused credential that the general "pass the gateway's token" does not
    /// give: the gateway is limiting attempts (`AUTH_RATE_LIMITED`, or `wait_then_retry`), or it
    /// has no shared token or password configured at all (`AUTH_TOKEN_NOT_CONFIGURED`,
    /// `AUTH_PASSWORD_NOT_CONFIGURED`), which only its administrator can change. Nil otherwise.
    public var credentialAdvice: String? {
        if recommendedNextStep == .waitThenRetry || detailCode == "AUTH_RATE_LIMITED" {
            return "the gateway is limiting attempts after failed ones: wait a while, then try again with the right credential"
        }
        if let detail = detailCode, detail.hasPrefix("AUTH_"), detail.hasSuffix("_NOT_CONFIGURED") {
            return "the gateway has no shared token or password configured (gateway.auth on the gateway host): its "
                + "administrator must set one, or pair this device with a setup code"
        }
        return nil
    }

    /// Whether this refusal calls for the one retry with the stored device token, by upstream's
    /// trigger (`shouldRetryGatewayWithDeviceToken`, `packages/gateway-client`): the gateway says
    /// `canRetryWithDeviceToken: true`, or recommends `retry_with_device_token`, or the detail code
    /// is `AUTH_TOKEN_MISMATCH`. The retry's own conditions (a shared token was sent, a device token
    /// is stored, the endpoint is trusted, once only) are the caller's.
    public var invitesDeviceTokenRetry: Bool {
        details?["canRetryWithDeviceToken"]?.boolValue == true || recommendedNextStep == .retryWithDeviceToken
            || detailCode == "AUTH_TOKEN_MISMATCH"
    }
}
