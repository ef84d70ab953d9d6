// A decoded setup input and a join URL for people (clawpair-setup-code-decode(1)): labelled rows
// in the order `setup-code decode` prints them, and the whole `--json` documents. Colour is the
// caller's: each marked part goes through `paint`. Every value taken from the input is sanitized.
import ClawpairCore

extension DecodedSetup {
    static func clean(_ text: String) -> String { TerminalText.sanitize(text, maxScalars: 512) }

    /// `redacted` followed by `note` (when there is one) in ``TextRole/dim``.
    static func redacted(_ redacted: String, note: String, paint: (TextRole, String) -> String) -> String {
        note.isEmpty ? redacted : redacted + paint(.dim, note)
    }

    /// Labelled rows for people: `Setup input`, `Gateway` and `Fallback N`, `TLS pin`, `Expires`
    /// (relative to `nowMs`; ``TextRole/bad`` when expired), the credentials (redacted unless
    /// `showSecrets`, each redaction followed by `secretNote` in ``TextRole/dim``), `Access`,
    /// `Dropped`, `Strict decoder` (``TextRole/warning`` when refused), `Note`, and with `verbose`
    /// the `Payload` (its secrets redacted likewise).
    public func textRows(nowMs: Int64, showSecrets: Bool, secretNote: String = "", verbose: Bool = false,
                         paint: (TextRole, String) -> String = { $1 }) -> [(label: String, value: String)] {
        let clean = Self.clean
        var rows: [(label: String, value: String)] = [("Setup input", "\(generation.summary), \(form.summary)")]
        for (index, endpoint) in endpoints.enumerated() {
            var facts = [endpoint.tls ? "TLS" : "plaintext"]
            if index == 0, tlsFingerprint != nil { facts.append("pinned") }
            let label = index == 0 ? "Gateway" : "Fallback \(index)"
            rows.append((label, "\(clean(endpoint.url))  (\(facts.joined(separator: ", ")))"))
        }
        if let pin = tlsFingerprint { rows.append(("TLS pin", "sha256 \(pin) (primary route only)")) }
        if let expiresAtMs {
            let absolute = WallClock.iso8601(ms: expiresAtMs) ?? "epoch ms \(expiresAtMs)"
            let relative = WallClock.relative(ms: expiresAtMs, now: nowMs)
            rows.append(("Expires", isExpired(nowMs: nowMs) ? paint(.bad, "expired \(relative)") + " (\(absolute))"
                                                             : "\(absolute) (\(relative))"))
        } else if bootstrapToken != nil {
            rows.append(("Expires", "not stated in the code (the gateway enforces its own expiry)"))
        }
        for (label, value) in [("Bootstrap token", bootstrapToken), ("Gateway token", token), ("Password", password)] {
            guard let value else { continue }
            rows.append((label, showSecrets ? clean(value) : Self.redacted(Redaction.redact(value), note: secretNote, paint: paint)))
        }
        rows.append(("Access", accessHint.summary))
        rows += dropped.map { ("Dropped", "\(clean($0.route)): \($0.reason.summary)") }
        switch strictCheck {
        case .accepted:
            rows.append(("Strict decoder", "accepted (current OpenClaw gateways and apps read it)"))
        case .rejected(let reason):
            rows.append(("Strict decoder",
                         paint(.warning, "refused") + ": \(clean(reason)); older and lenient decoders still read it"))
        }
        rows += notes.map { ("Note", clean($0)) }
        if verbose, let payload {
            rows.append(("Payload", clean(Self.redactingSecrets(payload, reveal: showSecrets).compact())))
        }
        return rows
    }

    /// The whole JSON document of clawpair-setup-code-decode(1): `ok` (true when `error` is nil),
    /// the members of ``jsonMembers(nowMs:showSecrets:)``, and `error` (the caller's error object,
    /// or null).
    public func json(nowMs: Int64, showSecrets: Bool, error: JSONValue? = nil) -> JSONValue {
        .object([("ok", .bool(error == nil))] + jsonMembers(nowMs: nowMs, showSecrets: showSecrets) + [("error", error ?? .null)])
    }
}

extension JoinLink {
    /// Labelled rows for people: `Setup input`, `Gateway`, `Join URL` (the shortcode redacted
    /// unless `showSecrets`, the redaction followed by `secretNote` in ``TextRole/dim``) and
    /// `What it is` (``explanation``).
    public func textRows(showSecrets: Bool, secretNote: String = "",
                         paint: (TextRole, String) -> String = { $1 }) -> [(label: String, value: String)] {
        [
            ("Setup input", "join URL (single use), not a setup code"),
            ("Gateway", "\(origin)\(contextPath ?? "")  (\(tls ? "TLS" : "plaintext, loopback only"))"),
            ("Join URL", showSecrets ? url : DecodedSetup.redacted(redactedURL, note: secretNote, paint: paint)),
            ("What it is", Self.explanation),
        ]
    }

    /// The whole JSON document of a join URL: `"ok": true`, the members of
    /// ``jsonMembers(showSecrets:)`` and `"error": null`.
    public func json(showSecrets: Bool) -> JSONValue {
        .object([("ok", .bool(true))] + jsonMembers(showSecrets: showSecrets) + [("error", .null)])
    }
}
