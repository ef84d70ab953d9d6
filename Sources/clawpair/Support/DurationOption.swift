import ClawpairCLIKit
import ClawpairCore
import ClawpairSetupCode

/// Duration options (`--timeout`, `--wait`): plain milliseconds or a duration with a unit.
enum DurationOption {
    /// The largest duration an option accepts: 10 minutes.
    static let maxMilliseconds: Int64 = 600_000

    /// The value of `--option` in milliseconds (`value` when not given): digits are milliseconds,
    /// anything else goes through `DurationText` (`3s`, `5m`); at most 10 minutes, and 0 only
    /// with `allowZero`. A bad value is a usage error naming the option.
    static func milliseconds(_ text: String?, option: String, default value: Int64, allowZero: Bool) throws -> Int64 {
        guard let text else { return value }
        let ms: Int64?
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            ms = Int64(text)
        } else {
            ms = DurationText.milliseconds(text)
        }
        guard let ms, ms <= maxMilliseconds, allowZero ? ms >= 0 : ms > 0 else {
            throw UsageError("invalid --\(option): \(text)",
                             hint: "give milliseconds (e.g. \(value)) or a duration with a unit (e.g. 3s), at most 10m")
        }
        return ms
    }
}

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
