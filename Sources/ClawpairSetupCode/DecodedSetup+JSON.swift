// The JSON and one-line descriptions of a decoded setup input and of a join URL: what
// `setup-code decode --json` prints (documented in clawpair-setup-code-decode(1)) and the names
// its text form shows. A program embedding the decoder gets the same shapes.

import ClawpairCore

extension DecodedSetup {
    /// The decoded input as JSON members in documented order, without `ok` and `error` (the
    /// caller's verdict). Secrets appear only when `showSecrets` is true.
    public func jsonMembers(nowMs: Int64, showSecrets: Bool) -> [(String, JSONValue)] {
        let endpoints: [JSONValue] = self.endpoints.enumerated().map { index, endpoint in
            .object([
                ("url", .string(endpoint.url)),
                ("host", .string(endpoint.host)),
                ("port", .int(Int64(endpoint.port))),
                ("tls", .bool(endpoint.tls)),
                ("contextPath", endpoint.contextPath.map(JSONValue.string) ?? .null),
                ("primary", .bool(index == 0)),
                ("tlsFingerprint", index == 0 ? tlsFingerprint.map(JSONValue.string) ?? .null : .null),
            ])
        }
        var credentials: [JSONValue] = []
        var secrets: [(String, JSONValue)] = []
        for (name, value) in [("bootstrapToken", bootstrapToken), ("token", token), ("password", password)] {
            guard let value else { continue }
            credentials.append(.string(name))
            secrets.append((name, .string(value)))
        }
        let strict: JSONValue
        switch strictCheck {
        case .accepted: strict = .object([("accepted", .bool(true)), ("reason", .null)])
        case .rejected(let reason): strict = .object([("accepted", .bool(false)), ("reason", .string(reason))])
        }
        return [
            ("form", .string(form.rawValue)),
            ("generation", .string(generation.rawValue)),
            ("endpoints", .array(endpoints)),
            ("dropped", .array(dropped.map { .object([("route", .string($0.route)), ("reason", .string($0.reason.rawValue))]) })),
            ("tlsFingerprint", tlsFingerprint.map(JSONValue.string) ?? .null),
            ("expiresAtMs", expiresAtMs.map(JSONValue.int) ?? .null),
            ("expiresAt", expiresAtMs.flatMap(WallClock.iso8601(ms:)).map(JSONValue.string) ?? .null),
            ("expired", .bool(isExpired(nowMs: nowMs))),
            ("credentials", .array(credentials)),
            ("access", .string(accessHint.rawValue)),
            ("strict", strict),
            ("notes", .array(notes.map(JSONValue.string))),
            ("secrets", showSecrets ? .object(secrets) : .null),
        ]
    }
}

extension DecodedSetup {
    /// `payload` with its credential values (`bootstrapToken`, `token`, `password`) replaced by
    /// their redacted form, unless `reveal` is true.
    public static func redactingSecrets(_ payload: JSONValue, reveal: Bool) -> JSONValue {
        guard !reveal, case .object(let members) = payload else { return payload }
        return .object(members.map { key, value in
            if ["bootstrapToken", "token", "password"].contains(key), case .string(let secret) = value {
                return (key, .string(Redaction.redact(secret)))
            }
            return (key, value)
        })
    }
}

extension DecodedSetup.Generation {
    /// A short human name ("G4 setup code (bootstrap token with expiry)").
    public var summary: String {
        switch self {
        case .g1: return "G1 setup code (shared gateway secret)"
        case .g2: return "G2 setup code (bootstrap token)"
        case .g3: return "G3 setup code (bootstrap token, fallback routes)"
        case .g4: return "G4 setup code (bootstrap token with expiry)"
        case .hostShape: return "host-shape setup payload"
        case .deepLink: return "openclaw://gateway deep link"
        case .rawURL: return "gateway URL"
        }
    }
}

extension DecodedSetup.Form {
    /// A short human name ("bare code").
    public var summary: String {
        switch self {
        case .code: return "bare code"
        case .prefixedCode: return "oc-pair:// code"
        case .rawJSON: return "raw JSON payload"
        case .embeddedCode: return "code found in pasted text"
        case .deepLink: return "deep link"
        case .rawURL: return "URL"
        }
    }
}

extension DroppedRoute.Reason {
    /// Why the route was dropped, for humans.
    public var summary: String {
        switch self {
        case .insecurePlaintextHost: return "plaintext ws:// to a host that is not on this network; needs wss://"
        case .invalidURL: return "not a valid gateway URL"
        case .duplicate: return "same endpoint as an earlier route"
        case .overCap: return "more than \(SetupCode.maxRoutes) routes; apps ignore the rest"
        case .pinWithoutTLS:
            return "plaintext route in a code that pins a TLS certificate; apps skip it (the pin is not moved to another route)"
        }
    }
}

extension JoinLink {
    /// What a join URL is, in one sentence (for explaining one to a person).
    public static let explanation = "a link minted by 'openclaw devices join-code': the gateway hands its node setup "
        + "code to the first request only; a used or expired link answers like an unknown one (about 10 minutes)"

    /// The join URL as JSON members (`form`, `joinUrl`, `secrets`), without `ok` and `error`. The
    /// shortcode appears only under `secrets`, and only when `showSecrets` is true.
    public func jsonMembers(showSecrets: Bool) -> [(String, JSONValue)] {
        [
            ("form", .string("join-url")),
            ("joinUrl", .object([
                ("url", .string(redactedURL)),
                ("origin", .string(origin)),
                ("host", .string(host)),
                ("port", .int(Int64(port))),
                ("tls", .bool(tls)),
                ("contextPath", contextPath.map(JSONValue.string) ?? .null),
                ("singleUse", .bool(true)),
            ])),
            ("secrets", showSecrets ? .object([("url", .string(url)), ("shortcode", .string(shortcode))]) : .null),
        ]
    }
}

extension SetupCode {
    /// A minted code as a JSON report: `setupCode`, `gatewayUrl`,
    /// `gatewayUrls` (with ≥2 routes), `expiresAtMs`, `expiresAt`, `tlsFingerprint` (when pinned).
    public static func mintedJSON(code: String, payload: SetupCodePayload) -> JSONValue {
        var members: [(String, JSONValue)] = [("setupCode", .string(code)), ("gatewayUrl", .string(payload.url))]
        if let all = payload.urls { members.append(("gatewayUrls", .array(all.map(JSONValue.string)))) }
        if let expiresAtMs = payload.expiresAtMs {
            members.append(("expiresAtMs", .int(expiresAtMs)))
            members.append(("expiresAt", WallClock.iso8601(ms: expiresAtMs).map(JSONValue.string) ?? .null))
        }
        if let pin = payload.tlsFingerprint { members.append(("tlsFingerprint", .string(pin))) }
        return .object(members)
    }
}
