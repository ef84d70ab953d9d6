import ClawpairCLIKit
import ClawpairCore
import ClawpairSetupCode

/// The `--json` shape of a decoded setup code (documented in clawpair-setup-code-decode(1)).
enum SetupCodeJSON {
    static func decoded(_ setup: DecodedSetup, nowMs: Int64, showSecrets: Bool,
                        failure: (any ClawpairError)?) -> JSONValue {
        let endpoints: [JSONValue] = setup.endpoints.enumerated().map { index, endpoint in
            .object([
                ("url", .string(endpoint.url)),
                ("host", .string(endpoint.host)),
                ("port", .int(Int64(endpoint.port))),
                ("tls", .bool(endpoint.tls)),
                ("contextPath", endpoint.contextPath.map(JSONValue.string) ?? .null),
                ("primary", .bool(index == 0)),
                ("tlsFingerprint", index == 0 ? setup.tlsFingerprint.map(JSONValue.string) ?? .null : .null),
            ])
        }
        let dropped: [JSONValue] = setup.dropped.map {
            .object([("route", .string($0.route)), ("reason", .string($0.reason.rawValue))])
        }
        var credentials: [JSONValue] = []
        var secrets: [(String, JSONValue)] = []
        for (name, value) in [("bootstrapToken", setup.bootstrapToken), ("token", setup.token), ("password", setup.password)] {
            guard let value else { continue }
            credentials.append(.string(name))
            secrets.append((name, .string(value)))
        }
        let strict: JSONValue
        switch setup.strictCheck {
        case .accepted: strict = .object([("accepted", .bool(true)), ("reason", .null)])
        case .rejected(let reason): strict = .object([("accepted", .bool(false)), ("reason", .string(reason))])
        }
        return .object([
            ("ok", .bool(failure == nil)),
            ("form", .string(setup.form.rawValue)),
            ("generation", .string(setup.generation.rawValue)),
            ("endpoints", .array(endpoints)),
            ("dropped", .array(dropped)),
            ("tlsFingerprint", setup.tlsFingerprint.map(JSONValue.string) ?? .null),
            ("expiresAtMs", setup.expiresAtMs.map(JSONValue.int) ?? .null),
            ("expiresAt", setup.expiresAtMs.flatMap(WallClock.iso8601(ms:)).map(JSONValue.string) ?? .null),
            ("expired", .bool(setup.isExpired(nowMs: nowMs))),
            ("credentials", .array(credentials)),
            ("access", .string(setup.accessHint.rawValue)),
            ("strict", strict),
            ("notes", .array(setup.notes.map(JSONValue.string))),
            ("secrets", showSecrets ? .object(secrets) : .null),
            ("error", failure.map(errorObject) ?? .null),
        ])
    }

    /// The object printed when the input could not be decoded at all.
    static func failure(_ error: SetupCodeError) -> JSONValue {
        .object([("ok", .bool(false)), ("error", errorObject(error))])
    }

    static func errorObject(_ error: any ClawpairError) -> JSONValue {
        let code = (error as? SetupCodeError)?.code ?? "strict-refused"
        return .object([
            ("code", .string(code)),
            ("message", .string(error.message)),
            ("hint", ErrorPresentation.present(error).hint.map(JSONValue.string) ?? .null),
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

        line("Setup input", "\(generationName(setup.generation)), \(formName(setup.form))")
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
            line("Dropped", "\(clean(dropped.route)): \(reasonText(dropped.reason))")
        }
        switch setup.strictCheck {
        case .accepted:
            line("Strict decoder", "accepted (current OpenClaw gateways and apps read it)")
        case .rejected(let reason):
            line("Strict decoder", style.yellow("refused") + ": \(clean(reason)); older and lenient decoders still read it")
        }
        for note in setup.notes { line("Note", clean(note)) }
        if context.globals.verbosity > 0, let payload = setup.payload {
            line("Payload", clean(redactingSecrets(payload, reveal: showSecrets).compact()))
        }
        return out
    }

    /// The payload with credential values replaced by their redacted form (for `-v`).
    static func redactingSecrets(_ payload: JSONValue, reveal: Bool) -> JSONValue {
        guard !reveal, case .object(let members) = payload else { return payload }
        return .object(members.map { key, value in
            if ["bootstrapToken", "token", "password"].contains(key), case .string(let secret) = value {
                return (key, .string(Redaction.redact(secret)))
            }
            return (key, value)
        })
    }

    static func generationName(_ generation: DecodedSetup.Generation) -> String {
        switch generation {
        case .g1: return "G1 setup code (shared gateway secret)"
        case .g2: return "G2 setup code (bootstrap token)"
        case .g3: return "G3 setup code (bootstrap token, fallback routes)"
        case .g4: return "G4 setup code (bootstrap token with expiry)"
        case .hostShape: return "host-shape setup payload"
        case .deepLink: return "openclaw://gateway deep link"
        case .rawURL: return "gateway URL"
        }
    }

    static func formName(_ form: DecodedSetup.Form) -> String {
        switch form {
        case .code: return "bare code"
        case .prefixedCode: return "oc-pair:// code"
        case .rawJSON: return "raw JSON payload"
        case .embeddedCode: return "code found in pasted text"
        case .deepLink: return "deep link"
        case .rawURL: return "URL"
        }
    }

    static func reasonText(_ reason: DroppedRoute.Reason) -> String {
        switch reason {
        case .insecurePlaintextHost: return "plaintext ws:// to a host that is not on this network; needs wss://"
        case .invalidURL: return "not a valid gateway URL"
        case .duplicate: return "same endpoint as an earlier route"
        case .overCap: return "more than \(SetupCode.maxRoutes) routes; apps ignore the rest"
        }
    }
}
