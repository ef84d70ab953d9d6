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

    /// `text` with the userinfo of a URL in it (`wss://admin:hunter2@host` → `wss://<redacted>@host`)
    /// hidden: echoing a rejected URL must not echo the password inside it. Text without a
    /// `scheme://…@` authority comes back unchanged.
    public static func url(_ text: String) -> String {
        let chars = Array(text.unicodeScalars)
        guard let colon = (0..<max(0, chars.count - 2)).first(where: { chars[$0] == ":" && chars[$0 + 1] == "/" && chars[$0 + 2] == "/" })
        else { return text }
        let start = colon + 3
        let ends: Set<Unicode.Scalar> = ["/", "?", "#", "\\"]
        let end = chars[start...].firstIndex { ends.contains($0) } ?? chars.count
        guard let at = chars[start..<end].lastIndex(of: "@") else { return text }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: chars[..<start])
        out.append(contentsOf: "<redacted>".unicodeScalars)
        out.append(contentsOf: chars[at...])
        return String(out)
    }

    /// `secret` itself when `reveal` is true, else its redacted form.
    public static func show(_ secret: String, reveal: Bool) -> String {
        reveal ? secret : redact(secret)
    }
}
