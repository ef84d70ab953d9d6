// Setup codes: `base64url_nopad(UTF-8(compactJSON(payload)))` (`setup-codes.md` §1), minting G4
// codes (§2), and the entry points of the decoders (`SetupCodeDecode.swift`, lenient §3.1/§3.2;
// `StrictDecoder.swift`, the newest TS decoder §3.3).
//
// Checklist, adding a payload generation:
// 1. add the field(s) to `SetupCodePayload` in emission order and to `PayloadFields` reads;
// 2. teach the generation inference and access hint in `SetupCode.interpretPayload`
//    (`SetupCodeDecode.swift`) and `DecodedSetup.Generation` about it;
// 3. add encode and decode vectors (or local cases) in `EncodeTests.swift` / `DecodeTests.swift`.

import ClawpairCore

/// Encoding, minting and decoding of OpenClaw setup codes.
public enum SetupCode {
    /// The most routes a code carries (`url` plus fallbacks), and the most endpoints a decoder keeps.
    public static let maxRoutes = 8
    /// The largest input the decoders read, checked before any other work (64 KiB; real codes
    /// are a few hundred bytes).
    public static let maxInputBytes = 64 * 1024
    /// The prefix of the copyable command-text form (`oc-pair://<code>`), matched case-insensitively.
    public static let urlPrefix = "oc-pair://"
    /// The longest bootstrap token `make` accepts (gateways issue 43-character tokens; a longer
    /// one is a wrong file, not a token).
    public static let maxBootstrapTokenBytes = 512
    /// How long a bootstrap token lives upstream (10 minutes).
    public static let bootstrapTokenTTLMs: Int64 = 600_000

    /// Encodes a payload: unpadded base64url of its compact JSON in emission order.
    public static func encode(_ payload: SetupCodePayload) -> String {
        encode(json: payload.json)
    }

    /// Encodes any JSON value as a setup code, keeping its member order (for re-encoding a parsed payload).
    public static func encode(json: JSONValue) -> String {
        Base64URL.encode(json.compactBytes())
    }

    /// The `oc-pair://` command-text form of a code. QR images and the bare setup-code text use the code itself.
    public static func prefixed(_ code: String) -> String {
        urlPrefix + code
    }

    /// Mints a G4 setup code the way the toolkit emits them, failing closed.
    ///
    /// - Each URL is normalized (§4) with `defaultScheme` for bare hosts; an invalid one (port 0
    ///   included) is `invalidURL`, one with a query or fragment `urlMetadata`. A `ws://` URL
    ///   without a port gets `:18789` (the TS client would dial 80, the apps 18789); `wss://`
    ///   keeps 443 implicit, as the normalized form the strict decoder requires drops it. Routes that dial the same endpoint (after normalization, `ws://h` and
    ///   `ws://h:18789` included) are removed, keeping the first; more than
    ///   `maxRoutes` is `tooManyRoutes`; none is `noEndpoint`.
    /// - A plaintext URL must pass the §5 host policy (`insecurePlaintextHost`, whose `hint` is
    ///   the refusal message) and must not be on port 80 (`plaintextPort80`).
    /// - `tlsFingerprint` is normalized (§6, `invalidFingerprint`) and allowed only when the primary
    ///   URL is `wss://` (`fingerprintWithoutTLS`).
    /// - `bootstrapToken` must be non-empty (`emptyToken`), one word of at most
    ///   `maxBootstrapTokenBytes` without whitespace or control characters (`invalidField`);
    ///   `expiresAtMs` must be a non-negative safe integer (`invalidExpiry`).
    /// - `urls` is emitted only with ≥2 routes. The result is checked with `strictDecode` before it
    ///   is returned, so every minted code passes the newest strict TS decoder.
    public static func make(urls: [String], bootstrapToken: String, expiresAtMs: Int64, tlsFingerprint: String? = nil,
                            defaultScheme: SetupURL.Scheme) throws(SetupCodeError) -> (code: String, payload: SetupCodePayload) {
        let trimmedToken = TextRules.jsTrim(bootstrapToken)
        guard !trimmedToken.isEmpty else { throw .emptyToken }
        guard trimmedToken == bootstrapToken else {
            throw .invalidField(name: "bootstrapToken", expected: "a token without leading or trailing whitespace")
        }
        let tokenBytes = bootstrapToken.utf8.count
        guard tokenBytes <= maxBootstrapTokenBytes else {
            throw .invalidField(name: "bootstrapToken",
                                expected: "at most \(maxBootstrapTokenBytes) bytes, not \(tokenBytes) (is it the right file?)")
        }
        if let bad = bootstrapToken.unicodeScalars.first(where: { $0.value < 0x21 || $0.value == 0x7F }) {
            let lines = bootstrapToken.split(whereSeparator: \.isNewline).count
            throw .invalidField(name: "bootstrapToken", expected: bad == "\n" || bad == "\r"
                ? "one line, not \(lines) lines (is it the right file?)"
                : "a single word without spaces or control characters")
        }
        guard expiresAtMs >= 0, expiresAtMs <= PayloadFields.maxSafeInteger else {
            throw .invalidExpiry("\(expiresAtMs)")
        }
        guard !urls.isEmpty else { throw .noEndpoint(dropped: []) }
        guard urls.count <= 64 else { throw .tooManyRoutes(count: urls.count, limit: maxRoutes) }

        var routes: [String] = []
        var seen: Set<SetupEndpoint> = []
        for raw in urls {
            guard var parsed = SetupURL.parseForNormalization(raw, defaultScheme: defaultScheme) else {
                throw .invalidURL(raw)
            }
            guard !parsed.hasQueryOrFragment else { throw .urlMetadata(url: raw) }
            guard parsed.literalPort != 0 else { throw .invalidURL(raw) }
            // A port-less ws:// URL is dialed on 80 by the TS client and on 18789 by the apps:
            // write the port the gateway listens on, so every client dials the same one.
            if !parsed.tls && parsed.literalPort == nil { parsed.literalPort = SetupEndpoint.defaultPlaintextPort }
            let normalized = parsed.normalized
            // Two spellings that dial the same endpoint (`ws://h` and `ws://h:18789`) are one route.
            let dialed = SetupEndpoint(host: parsed.host.bareForm, explicitPort: parsed.whatwgPort, tls: parsed.tls,
                                       contextPath: parsed.pathname == "/" ? nil : parsed.pathname)
            let identity = SetupEndpoint(host: dialed.host, explicitPort: dialed.port, tls: dialed.tls,
                                         contextPath: dialed.contextPath)
            if !parsed.tls {
                guard PlaintextPolicy.allowsPlaintext(host: parsed.host.bareForm) else {
                    throw .insecurePlaintextHost(host: parsed.host.bareForm)
                }
                guard parsed.literalPort != 80 else { throw .plaintextPort80(url: raw) }
            }
            guard seen.insert(identity).inserted else { continue }
            routes.append(normalized)
        }
        guard routes.count <= maxRoutes else { throw .tooManyRoutes(count: routes.count, limit: maxRoutes) }
        guard let primary = routes.first else { throw .noEndpoint(dropped: []) }

        var fingerprint: String? = nil
        if let tlsFingerprint {
            guard let normalized = TLSFingerprint.normalize(tlsFingerprint) else {
                throw .invalidFingerprint(tlsFingerprint)
            }
            guard primary.hasPrefix("wss://") else { throw .fingerprintWithoutTLS(url: primary) }
            fingerprint = normalized
        }

        let payload = SetupCodePayload(url: primary, urls: routes.count >= 2 ? routes : nil,
                                       bootstrapToken: bootstrapToken, expiresAtMs: expiresAtMs,
                                       tlsFingerprint: fingerprint)
        let code = encode(payload)
        let checked = try strictDecode(code, nowMs: nil)
        guard checked == payload else {
            throw .notNormalized(field: "payload", value: payload.json.compact(), normalized: checked.json.compact())
        }
        return (code, payload)
    }
}
