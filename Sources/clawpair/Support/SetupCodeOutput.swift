import ClawpairCLIKit
import ClawpairCore
import ClawpairSetupCode

/// The `--json` shape of a decoded setup code (documented in clawpair-setup-code-decode(1)).
enum SetupCodeJSON {
    static func decoded(_ setup: DecodedSetup, nowMs: Int64, showSecrets: Bool,
                        failure: (any ClawpairError)?) -> JSONValue {
        .object([("ok", .bool(failure == nil))] + setup.jsonMembers(nowMs: nowMs, showSecrets: showSecrets)
            + [("error", failure.map { errorObject($0) } ?? .null)])
    }

    /// The `--json` shape of a join URL.
    static func joinURL(_ join: JoinLink, showSecrets: Bool) -> JSONValue {
        .object([("ok", .bool(true))] + join.jsonMembers(showSecrets: showSecrets) + [("error", .null)])
    }

    /// The object printed when the input could not be decoded at all.
    static func failure(_ error: any ClawpairError, hint: String? = nil) -> JSONValue {
        .object([("ok", .bool(false)), ("error", errorObject(error, hint: hint))])
    }

    static func errorObject(_ error: any ClawpairError, hint: String? = nil) -> JSONValue {
        let code = (error as? SetupCodeError)?.code ?? (error as? JoinLinkError)?.code ?? "strict-refused"
        return .object([
            ("code", .string(code)),
            ("message", .string(error.message)),
            ("hint", (hint ?? ErrorPresentation.present(error).hint).map(JSONValue.string) ?? .null),
        ])
    }
}

/// The human rendering of a decoded setup code. Every value from the input is sanitized.
enum SetupCodeText {
    static let labelWidth = 17

    static func render(_ setup: DecodedSetup, context: CommandContext, showSecrets: Bool) -> String {
        let style = context.style
        var out = ""
        func line(_ label: String, _ value: String) {
            out += style.bold(TextColumns.label(label, width: labelWidth)) + value + "\n"
        }
        func clean(_ text: String) -> String { TerminalText.sanitize(text, maxScalars: 512) }

        line("Setup input", "\(setup.generation.summary), \(setup.form.summary)")
        for (index, endpoint) in setup.endpoints.enumerated() {
            var facts = [endpoint.tls ? "TLS" : "plaintext"]
            if index == 0, setup.tlsFingerprint != nil { facts.append("pinned") }
            line(index == 0 ? "Gateway" : "Fallback \(index)", "\(clean(endpoint.url))  (\(facts.joined(separator: ", ")))")
        }
        if let pin = setup.tlsFingerprint {
            line("TLS pin", "sha256 \(pin) (primary route only)")
        }
        if let expiresAtMs = setup.expiresAtMs {
            let absolute = WallClock.iso8601(ms: expiresAtMs) ?? "epoch ms \(expiresAtMs)"
            let relative = WallClock.relative(ms: expiresAtMs, now: context.nowMs)
            if setup.isExpired(nowMs: context.nowMs) {
                line("Expires", style.red("expired \(relative)") + " (\(absolute))")
            } else {
                line("Expires", "\(absolute) (\(relative))")
            }
        } else if setup.bootstrapToken != nil {
            line("Expires", "not stated in the code (the gateway enforces its own expiry)")
        }
        for (label, value) in [("Bootstrap token", setup.bootstrapToken), ("Gateway token", setup.token),
                               ("Password", setup.password)] {
            guard let value else { continue }
            line(label, showSecrets ? clean(value) : Redaction.redact(value) + style.dim(" (--show-secrets prints it)"))
        }
        line("Access", setup.accessHint.summary)
        for dropped in setup.dropped {
            line("Dropped", "\(clean(dropped.route)): \(dropped.reason.summary)")
        }
        switch setup.strictCheck {
        case .accepted:
            line("Strict decoder", "accepted (current OpenClaw gateways and apps read it)")
        case .rejected(let reason):
            line("Strict decoder", style.yellow("refused") + ": \(clean(reason)); older and lenient decoders still read it")
        }
        for note in setup.notes { line("Note", clean(note)) }
        if context.globals.verbosity > 0, let payload = setup.payload {
            line("Payload", clean(DecodedSetup.redactingSecrets(payload, reveal: showSecrets).compact()))
        }
        return out
    }

    /// The human explanation of a join URL.
    static func render(_ join: JoinLink, context: CommandContext, showSecrets: Bool) -> String {
        let style = context.style
        var out = ""
        func line(_ label: String, _ value: String) {
            out += style.bold(TextColumns.label(label, width: labelWidth)) + value + "\n"
        }
        line("Setup input", "join URL (single use), not a setup code")
        line("Gateway", "\(join.origin)\(join.contextPath ?? "")  (\(join.tls ? "TLS" : "plaintext, loopback only"))")
        line("Join URL", showSecrets ? join.url : join.redactedURL + style.dim(" (--show-secrets prints it)"))
        line("What it is", JoinLink.explanation)
        line("Redeem", "clawpair pair <join URL>")
        line("Note", "decode does not fetch the link: fetching it would use it up")
        return out
    }
}
