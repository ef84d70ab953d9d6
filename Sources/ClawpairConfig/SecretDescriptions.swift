import ClawpairCore

// Printing a value that holds a secret shows the secret redacted (``RedactedReflection``).

extension ConfiguredGatewayAuth: RedactedReflection {
    /// Which kind of secret, redacted.
    public var redactedFields: [(label: String, value: Any)] {
        switch self {
        case .token(let token): return [("token", Redaction.redact(token))]
        case .password(let password): return [("password", Redaction.redact(password))]
        }
    }
}
