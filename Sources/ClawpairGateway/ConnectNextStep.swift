// What a gateway recommends after refusing a `connect`: `details.recommendedNextStep`
// (upstream `packages/gateway-protocol/src/connect-error-details.ts`; /work/shared/spec
// upstream-2026-10.md §1.3). `retry_with_device_token` (with `canRetryWithDeviceToken`) drives the
// one bounded retry with the stored device token (GatewaySession, OperatorSession), and
// `wait_then_retry` a node bootstrap's steady retry (GatewayPairing); every value also decides the
// advice a refusal carries, so the words match what the gateway asks for.

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

    /// The advice for a refused credential when the gateway recommends this step; nil where the
    /// general advice for the refusal already fits (`update_auth_credentials`, `retry_with_device_token`).
    public var credentialAdvice: String? {
        switch self {
        case .updateAuthConfiguration:
            return "the gateway says its own auth configuration must change before this client can connect "
                + "(gateway.auth on the gateway host): ask its administrator; another credential will not help"
        case .reviewAuthConfiguration:
            return "the gateway asks for its auth configuration to be reviewed (gateway.auth on the gateway host): "
                + "ask its administrator"
        case .waitThenRetry:
            return "the gateway asks to wait, then try again (it may be limiting attempts)"
        case .updateAuthCredentials, .retryWithDeviceToken:
            return nil
        }
    }
}

extension GatewayErrorShape {
    /// The gateway's recommended next step (``ConnectNextStep``), when it sent a known one.
    public var recommendedNextStep: ConnectNextStep? { ConnectNextStep(self) }

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
