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
    /// and its query and fragment (`…/x?token=s#k` → `…/x?<redacted>`) hidden: echoing a rejected
    /// URL must not echo the password or token inside it (issue #25.10). Text without a
    /// `scheme://` comes back unchanged.
    public static func url(_ text: String) -> String {
        let chars = Array(text.unicodeScalars)
        guard let colon = (0..<max(0, chars.count - 2)).first(where: { chars[$0] == ":" && chars[$0 + 1] == "/" && chars[$0 + 2] == "/" })
        else { return text }
        let start = colon + 3
        let ends: Set<Unicode.Scalar> = ["/", "?", "#", "\\"]
        let end = chars[start...].firstIndex { ends.contains($0) } ?? chars.count
        var out = String.UnicodeScalarView()
        out.append(contentsOf: chars[..<start])
        var rest = start
        if let at = chars[start..<end].lastIndex(of: "@") {
            out.append(contentsOf: "<redacted>".unicodeScalars)
            rest = at
        }
        if let mark = chars[end...].firstIndex(where: { $0 == "?" || $0 == "#" }) {
            out.append(contentsOf: chars[rest..<mark])
            out.append(chars[mark])
            out.append(contentsOf: "<redacted>".unicodeScalars)
        } else {
            out.append(contentsOf: chars[rest...])
        }
        return String(out)
    }

    /// `secret` itself when `reveal` is true, else its redacted form.
    public static func show(_ secret: String, reveal: Bool) -> String {
        reveal ? secret : redact(secret)
    }
}
