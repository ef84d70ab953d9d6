import ClawpairCLIKit
import ClawpairSetupCode

/// TLS fingerprint options (`--tls-fingerprint`, `--trust`).
enum FingerprintOption {
    /// The SHA-256 fingerprint of `--option`, normalized to 64 lowercase hex digits (nil when not
    /// given); anything else is a usage error naming the option.
    static func normalized(_ text: String?, option: String) throws -> String? {
        guard let text else { return nil }
        guard let normalized = TLSFingerprint.normalize(text) else {
            throw UsageError("invalid --\(option): not a SHA-256 fingerprint",
                             hint: "give 64 hex digits, with or without colons or a sha256: prefix")
        }
        return normalized
    }
}
