/// Hides secrets (setup codes, bootstrap tokens, device tokens, passwords) in human output.
///
/// A redacted value says only how long it was, so a user can tell an empty token from a
/// real one without the secret reaching a terminal, a scrollback buffer or a log.
public enum Redaction {
    /// The text printed in place of `secret`, e.g. `<redacted, 43 chars>`.
    public static func redact(_ secret: String) -> String {
        let count = secret.unicodeScalars.count
        return "<redacted, \(count) char\(count == 1 ? "" : "s")>"
    }

    /// `secret` itself when `reveal` is true, else its redacted form.
    public static func show(_ secret: String, reveal: Bool) -> String {
        reveal ? secret : redact(secret)
    }
}
