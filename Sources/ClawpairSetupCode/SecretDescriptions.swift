import ClawpairCore

// Printing a value that holds a secret shows the secret redacted (``RedactedReflection``).

extension SetupCodePayload: RedactedReflection {
    /// The bootstrap token, token and password redacted; the routes, expiry and pin as they are.
    public var redactedFields: [(label: String, value: Any)] {
        [("url", url), ("urls", urls as Any), ("bootstrapToken", Redaction.redact(bootstrapToken) as Any),
         ("token", Redaction.redact(token) as Any), ("password", Redaction.redact(password) as Any),
         ("expiresAtMs", expiresAtMs as Any), ("tlsFingerprint", tlsFingerprint as Any)]
    }
}

extension DecodedSetup: RedactedReflection {
    /// The bootstrap token, token, password and the payload (which holds them) redacted.
    public var redactedFields: [(label: String, value: Any)] {
        [("form", form), ("generation", generation), ("primary", primary), ("fallbacks", fallbacks), ("dropped", dropped),
         ("tlsFingerprint", tlsFingerprint as Any), ("expiresAtMs", expiresAtMs as Any),
         ("bootstrapToken", Redaction.redact(bootstrapToken) as Any), ("token", Redaction.redact(token) as Any),
         ("password", Redaction.redact(password) as Any), ("payload", Redaction.redact(payload?.compact()) as Any),
         ("strictCheck", strictCheck), ("accessHint", accessHint), ("notes", notes)]
    }
}
