import ClawpairCore

// Printing a value that holds a secret shows the secret redacted (``RedactedReflection``); a
// value that holds one of these (``PairedGateway``, ``OperatorCredential``,
// ``GatewaySessionOptions``) prints them redacted through them.

extension IssuedDeviceToken: RedactedReflection {
    /// The token redacted; role, scopes and time as they are.
    public var redactedFields: [(label: String, value: Any)] {
        [("token", Redaction.redact(token)), ("role", role), ("scopes", scopes), ("issuedAtMs", issuedAtMs as Any)]
    }
}

extension TokenRotation: RedactedReflection {
    /// The new token and the answer (which holds it) redacted.
    public var redactedFields: [(label: String, value: Any)] {
        [("deviceId", deviceId as Any), ("role", role as Any), ("token", Redaction.redact(token) as Any), ("scopes", scopes as Any),
         ("rotatedAtMs", rotatedAtMs as Any), ("tokenDelivery", tokenDelivery as Any), ("json", Redaction.redact(json.compact()))]
    }
}

extension SetupCodeResult: RedactedReflection {
    /// The setup code, its QR image, its join URL and the answer (which holds them) redacted.
    public var redactedFields: [(label: String, value: Any)] {
        [("setupCode", Redaction.redact(setupCode)), ("qrDataUrl", Redaction.redact(qrDataUrl) as Any), ("gatewayUrl", gatewayUrl as Any),
         ("gatewayUrls", gatewayUrls as Any), ("auth", auth as Any), ("urlSource", urlSource as Any), ("access", access as Any),
         ("accessDowngraded", accessDowngraded), ("setupId", setupId as Any), ("expiresAtMs", expiresAtMs as Any),
         ("joinUrl", Redaction.redact(joinUrl) as Any), ("json", Redaction.redact(json.compact()))]
    }
}

extension OperatorSecret: RedactedReflection {
    /// Which kind of secret, redacted.
    public var redactedFields: [(label: String, value: Any)] {
        switch self {
        case .token(let token): return [("token", Redaction.redact(token))]
        case .password(let password): return [("password", Redaction.redact(password))]
        }
    }
}
