import ClawpairCore

// Printing a value that holds a secret shows the secret redacted (``RedactedReflection``).

extension ConnectAuth: RedactedReflection {
    /// Each credential redacted.
    public var redactedFields: [(label: String, value: Any)] {
        [("token", Redaction.redact(token) as Any), ("deviceToken", Redaction.redact(deviceToken) as Any),
         ("bootstrapToken", Redaction.redact(bootstrapToken) as Any), ("password", Redaction.redact(password) as Any)]
    }
}

extension ConnectPayload: RedactedReflection {
    /// The signed token redacted; the other fields as they are.
    public var redactedFields: [(label: String, value: Any)] {
        [("version", version), ("deviceId", deviceId), ("clientId", clientId), ("clientMode", clientMode), ("role", role),
         ("scopes", scopes), ("signedAtMs", signedAtMs), ("token", Redaction.redact(token)), ("nonce", nonce),
         ("platform", platform as Any), ("deviceFamily", deviceFamily as Any), ("trustedBrokerProfileId", trustedBrokerProfileId as Any)]
    }
}

extension DeviceTokenCache.Entry: RedactedReflection {
    /// The token redacted; role, scopes and time as they are.
    public var redactedFields: [(label: String, value: Any)] {
        [("token", Redaction.redact(token)), ("role", role), ("scopes", scopes), ("updatedAtMs", updatedAtMs)]
    }
}

extension DeviceIdentity: CustomReflectable {
    /// The public fields only: the secret key never appears in `dump` or reflection.
    public var customMirror: Mirror {
        Mirror(self, children: ["deviceId": deviceId, "publicKey": publicKey, "createdAtMs": createdAtMs], displayStyle: .class)
    }
}
