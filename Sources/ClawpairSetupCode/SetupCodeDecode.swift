// The lenient setup-input decoder (`setup-codes.md` §3.1 forms, §3.2 interpretation), as the
// Swift apps' `GatewayConnectDeepLink.fromSetupInput`, with the toolkit's §5 policy.
//
// Bounds: the input is capped at `SetupCode.maxInputBytes` before any work; at most
// `maxEmbeddedCandidates` tokens of pasted text are decoded; at most `maxRouteCandidates`
// entries of `urls` are parsed; at most `SetupCode.maxRoutes` endpoints are kept.
//
// Once a form yields a JSON object (forms #1, #2) or a recognized link/URL (#4, #5), that form
// is committed: its rejection (insecure host, expired, ...) is the answer, rather than "not a
// setup code". In pasted text (#3) a rejected candidate lets later candidates try; if none
// succeeds, the first candidate's rejection is the answer.

import ClawpairCore

extension SetupCode {
    /// How many code-shaped tokens of pasted text are decoded at most.
    public static let maxEmbeddedCandidates = 16
    /// How many `urls` entries are parsed at most; later ones are dropped as over the cap unparsed.
    public static let maxRouteCandidates = 32
    /// The shortest code-shaped token in pasted text (§3.1 #3).
    public static let minEmbeddedCandidateLength = 24

    /// Decodes setup input leniently without a clock: `expiresAtMs` is checked for shape but not
    /// compared with the time (see `decode(_:nowMs:)`).
    public static func parse(_ input: String) throws(SetupCodeError) -> DecodedSetup {
        try interpretInput(input, nowMs: nil)
    }

    /// Decodes setup input leniently and refuses an expired token (`expiresAtMs <= nowMs`).
    public static func decode(_ input: String, nowMs: Int64) throws(SetupCodeError) -> DecodedSetup {
        try interpretInput(input, nowMs: nowMs)
    }

    // MARK: Forms (§3.1)

    static func interpretInput(_ input: String, nowMs: Int64?) throws(SetupCodeError) -> DecodedSetup {
        let size = input.utf8.count
        guard size <= maxInputBytes else { throw .inputTooLarge(bytes: size, limit: maxInputBytes) }
        let trimmed = TextRules.jsTrim(input)
        guard !trimmed.isEmpty else { throw .notAPayload("the input is empty") }
        var body = trimmed
        var prefixed = false
        if TextRules.hasPrefixASCIICaseInsensitive(trimmed, urlPrefix) {
            body = TextRules.jsTrim(TextRules.dropUTF8Prefix(trimmed, count: urlPrefix.utf8.count))
            prefixed = true
            guard !body.isEmpty else { throw .notAPayload("oc-pair:// is followed by no code") }
        }
        var notObjectDetail: String? = nil

        // #1 raw JSON.
        switch Result(catching: { () throws(JSONError) -> JSONValue in try JSONValue.parse(body) }) {
        case let .success(json):
            if case .object = json {
                return try interpretPayload(json, form: .rawJSON, nowMs: nowMs, strictCode: nil)
            }
            notObjectDetail = "the input is JSON \(json.typeDescription), not a setup payload object"
        case let .failure(error):
            if body.utf8.first == UInt8(ascii: "{") {
                notObjectDetail = "the input looks like setup JSON but is not valid JSON (\(error.description))"
            }
        }

        // #2 base64url code.
        if let json = decodeCodeObject(body) {
            return try interpretPayload(json, form: prefixed ? .prefixedCode : .code, nowMs: nowMs, strictCode: trimmed)
        } else if notObjectDetail == nil, (try? Base64URL.decode(body)) != nil, body.utf8.count >= 4 {
            notObjectDetail = "it decodes as base64 but not to a JSON object (a damaged or truncated code?)"
        }

        // #3 a code inside pasted text.
        var firstError: SetupCodeError? = nil
        for candidate in embeddedCandidates(in: body) where candidate != body {
            guard let json = decodeCodeObject(candidate) else { continue }
            do {
                return try interpretPayload(json, form: .embeddedCode, nowMs: nowMs, strictCode: candidate)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }

        // #4 deep link.
        if DeepLink.hasDeepLinkScheme(body) {
            return try DeepLink.interpret(body, nowMs: nowMs)
        }

        // #5 raw URL.
        for scheme in ["ws://", "wss://", "http://", "https://"]
            where TextRules.hasPrefixASCIICaseInsensitive(body, scheme) {
            return try interpretRawURL(body)
        }

        throw .notAPayload(notObjectDetail
            ?? "no setup code, setup JSON, openclaw://gateway link or ws:// / wss:// URL was found in the input")
    }

    /// #2: `text` as base64url (either alphabet, optional padding) → UTF-8 → JSON object.
    static func decodeCodeObject(_ text: String) -> JSONValue? {
        guard let bytes = try? Base64URL.decode(text), let json = try? JSONValue.parse(bytes),
              case .object = json else { return nil }
        return json
    }

    /// Characters trimmed from both ends of a pasted-text token (as the Swift apps do).
    private static func isSurroundingPunctuation(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "`", "'", "\"", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}", "(", ")", "[", "]", "{", "}", "<", ">",
             ".", ",", ";", ":", "!", "?":
            return true
        default:
            return TextRules.isJSWhitespace(s)
        }
    }

    /// #3: tokens of `text` (split on whitespace, punctuation trimmed, an `oc-pair://` prefix
    /// removed) that are ≥24 characters of `[A-Za-z0-9_=-]`, at most `maxEmbeddedCandidates`.
    static func embeddedCandidates(in text: String) -> [String] {
        var candidates: [String] = []
        var token = String.UnicodeScalarView()
        func flush() {
            defer { token = String.UnicodeScalarView() }
            guard candidates.count < maxEmbeddedCandidates, !token.isEmpty else { return }
            guard let first = token.firstIndex(where: { !isSurroundingPunctuation($0) }),
                  let last = token.lastIndex(where: { !isSurroundingPunctuation($0) }) else { return }
            var candidate = String(token[first...last])
            if TextRules.hasPrefixASCIICaseInsensitive(candidate, urlPrefix) {
                candidate = TextRules.dropUTF8Prefix(candidate, count: urlPrefix.utf8.count)
            }
            let bytes = candidate.utf8
            guard bytes.count >= minEmbeddedCandidateLength, bytes.allSatisfy({
                TextRules.isASCIIAlpha($0) || TextRules.isASCIIDigit($0) || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "-")
            }) else { return }
            candidates.append(candidate)
        }
        for s in text.unicodeScalars {
            if TextRules.isJSWhitespace(s) || s == "\u{85}" {
                flush()
                if candidates.count >= maxEmbeddedCandidates { break }
            } else {
                token.append(s)
            }
        }
        flush()
        return candidates
    }

    // MARK: Payload interpretation (§3.2)

    /// A URL-shape candidate: the text as given and what it parsed to.
    private struct RouteCandidate {
        var raw: String
        var parsed: ParsedGatewayURL?
    }

    /// Parses a payload URL leniently: trimmed; `ws:host`-style, user-info, a query or fragment
    /// and port 0 are invalid (the apps' "setup code rejects gateway URL metadata"); explicit
    /// default ports are kept (`wss://h:443` → 443, `ws://h:80` → 80, as the apps dial them).
    static func parsePayloadURL(_ raw: String) -> ParsedGatewayURL? {
        let trimmed = TextRules.jsTrim(raw)
        guard !trimmed.isEmpty, !SetupURL.isSchemeWithoutAuthority(trimmed),
              let parsed = SetupURL.parseGatewayURL(trimmed), !parsed.hasQueryOrFragment,
              parsed.literalPort != 0 else { return nil }
        return parsed
    }

    /// A host as given in a host-shape payload or deep link, canonicalized by the WHATWG host
    /// parser (bare IPv6 gets brackets first). `nil` when it is not a valid host.
    static func canonicalHost(_ raw: String) -> ParsedHost? {
        let trimmed = TextRules.jsTrim(raw)
        guard !trimmed.isEmpty, trimmed.utf8.count <= SetupURL.maxURLBytes else { return nil }
        var bytes = Array(trimmed.utf8)
        if bytes.contains(UInt8(ascii: ":")) && bytes.first != UInt8(ascii: "[") {
            bytes = [UInt8(ascii: "[")] + bytes + [UInt8(ascii: "]")]
        }
        return HostParser.parse(bytes)
    }

    static func interpretPayload(_ json: JSONValue, form: DecodedSetup.Form, nowMs: Int64?,
                                 strictCode: String?) throws(SetupCodeError) -> DecodedSetup {
        let url = try PayloadFields.optionalString(json, "url")
        let host = try PayloadFields.optionalString(json, "host")
        let bootstrapToken = try PayloadFields.optionalString(json, "bootstrapToken")
        let token = try PayloadFields.optionalString(json, "token")
        let password = try PayloadFields.optionalString(json, "password")
        let expiresAtMs = try PayloadFields.expiresAtMs(json)
        var fingerprintValue: String? = nil
        if let value = json["tlsFingerprint"] {
            switch value {
            case .null: break
            case let .string(s): fingerprintValue = s
            default: throw .invalidFingerprint(value.typeDescription)
            }
        }
        var urlsValue: [JSONValue]? = nil
        if let value = json["urls"] {
            switch value {
            case .null: break
            case let .array(elements): urlsValue = elements
            default: throw .invalidField(name: "urls", expected: "an array of URL strings, not \(value.typeDescription)")
            }
        }

        var kept: [SetupEndpoint] = []
        var dropped: [DroppedRoute] = []
        var pinned: (endpoint: SetupEndpoint, url: String)? = nil
        var advertised: [ParsedGatewayURL] = []
        let generation: DecodedSetup.Generation
        var notes: [String] = []

        if let url, !TextRules.jsTrim(url).isEmpty {
            // URL shape: `url`, then each `urls` entry not already listed.
            var candidates: [RouteCandidate] = []
            var seenRaw: Set<String> = []
            func add(_ raw: String) {
                let key = TextRules.jsTrim(raw)
                guard !seenRaw.contains(key) else { return }
                seenRaw.insert(key)
                guard candidates.count < maxRouteCandidates else {
                    dropped.append(DroppedRoute(route: raw, reason: .overCap))
                    return
                }
                candidates.append(RouteCandidate(raw: raw, parsed: parsePayloadURL(raw)))
            }
            add(url)
            for element in urlsValue ?? [] {
                guard case let .string(s) = element else {
                    // Not a string: kept in order as an invalid candidate, shown as its JSON.
                    if candidates.count < maxRouteCandidates {
                        candidates.append(RouteCandidate(raw: element.compact(), parsed: nil))
                    } else {
                        dropped.append(DroppedRoute(route: element.compact(), reason: .overCap))
                    }
                    continue
                }
                add(s)
            }
            var seenEndpoints: Set<SetupEndpoint> = []
            for (i, candidate) in candidates.enumerated() {
                guard let parsed = candidate.parsed else {
                    dropped.append(DroppedRoute(route: candidate.raw, reason: .invalidURL))
                    continue
                }
                advertised.append(parsed)
                let endpoint = SetupEndpoint(parsed: parsed)
                if i == 0 { pinned = (endpoint, candidate.raw) }
                let identity = SetupEndpoint(host: endpoint.host, explicitPort: endpoint.port, tls: endpoint.tls,
                                             contextPath: endpoint.contextPath)
                guard !seenEndpoints.contains(identity) else {
                    dropped.append(DroppedRoute(route: candidate.raw, reason: .duplicate))
                    continue
                }
                seenEndpoints.insert(identity)
                guard endpoint.tls || PlaintextPolicy.allowsPlaintext(host: endpoint.host) else {
                    dropped.append(DroppedRoute(route: candidate.raw, reason: .insecurePlaintextHost))
                    continue
                }
                guard kept.count < maxRoutes else {
                    dropped.append(DroppedRoute(route: candidate.raw, reason: .overCap))
                    continue
                }
                kept.append(endpoint)
            }
            if expiresAtMs != nil || fingerprintValue != nil {
                generation = .g4
            } else if urlsValue != nil {
                generation = .g3
            } else if bootstrapToken != nil {
                generation = .g2
            } else {
                generation = .g1
            }
        } else if let host, !TextRules.jsTrim(host).isEmpty {
            // Host shape: one endpoint; tls defaults to true.
            var tls = true
            if let value = json["tls"], !value.isNull {
                guard let b = value.boolValue else {
                    throw .invalidField(name: "tls", expected: "a Boolean, not \(value.typeDescription)")
                }
                tls = b
            }
            var port: Int? = nil
            if let value = json["port"], !value.isNull {
                guard let p = value.int64Value, p >= 1, p <= 65535 else {
                    throw .invalidField(name: "port", expected: "an integer from 1 to 65535")
                }
                port = Int(p)
            }
            guard let parsedHost = canonicalHost(host) else {
                throw .noEndpoint(dropped: [DroppedRoute(route: host, reason: .invalidURL)])
            }
            let endpoint = SetupEndpoint(host: parsedHost.bareForm, explicitPort: port, tls: tls)
            pinned = (endpoint, endpoint.url)
            if tls || PlaintextPolicy.allowsPlaintext(host: endpoint.host) {
                kept.append(endpoint)
            } else {
                dropped.append(DroppedRoute(route: host, reason: .insecurePlaintextHost))
            }
            if !tls, let parsed = SetupURL.parseGatewayURL("ws://" + endpoint.urlHost) { advertised.append(parsed) }
            generation = .hostShape
        } else {
            throw .noEndpoint(dropped: dropped)
        }

        // Step 3b: a TLS pin on a plaintext `url` rejects that route only; the pin is dropped with
        // it and never moves to a fallback (the apps' "rejected primary does not transfer TLS
        // fingerprint to fallback").
        if fingerprintValue != nil, let pinned, !pinned.endpoint.tls {
            if let index = kept.firstIndex(of: pinned.endpoint) {
                kept.remove(at: index)
                dropped.append(DroppedRoute(route: pinned.url, reason: .pinWithoutTLS))
            }
            guard !kept.isEmpty else { throw .fingerprintWithoutTLS(url: pinned.url) }
        }

        // Step 4: nothing left.
        guard let primary = kept.first else {
            if let insecure = dropped.first(where: { $0.reason == .insecurePlaintextHost }) {
                let host = parsePayloadURL(insecure.route)?.host.bareForm ?? insecure.route
                throw .insecurePlaintextHost(host: host)
            }
            throw .noEndpoint(dropped: dropped)
        }

        // Step 5: expiry.
        if let expiresAtMs, let nowMs, expiresAtMs <= nowMs {
            throw .expired(expiresAtMs: expiresAtMs, nowMs: nowMs)
        }

        // Step 6: the pin belongs to the `url` (or host) endpoint, which must be TLS.
        var tlsFingerprint: String? = nil
        if let fingerprintValue {
            guard let normalized = TLSFingerprint.normalize(fingerprintValue) else {
                throw .invalidFingerprint(fingerprintValue)
            }
            if let pinned {
                if pinned.endpoint == primary {
                    tlsFingerprint = normalized
                } else {
                    notes.append("the TLS pin belongs to \(pinned.url), which was not kept; it is not applied to other routes")
                }
            } else {
                notes.append("the TLS pin belongs to the invalid primary URL; it is not applied to fallback routes")
            }
        }

        // `publicOrigin` (newer gateways, beside a `url` carrying `controlUi.basePath`) is shown, never
        // dialed (only `url` and `urls` are routes).
        if case let .string(origin)? = json["publicOrigin"], !origin.isEmpty, origin.utf8.count <= SetupURL.maxURLBytes {
            notes.append("the payload names the gateway's public origin \(Redaction.url(origin)) (shown, not dialed)")
        }

        let hint: DecodedSetup.AccessHint
        switch generation {
        case .g4:
            hint = advertised.allSatisfy({ $0.tls || PlaintextPolicy.isLoopback(host: $0.host.bareForm) })
                ? .fullOrLimited : .limitedDowngraded
        case .g3: hint = .fullOrLimited
        case .g2: hint = .limited
        case .hostShape where bootstrapToken != nil:
            if expiresAtMs != nil {
                hint = advertised.allSatisfy({ PlaintextPolicy.isLoopback(host: $0.host.bareForm) })
                    ? .fullOrLimited : .limitedDowngraded
            } else {
                hint = .fullOrLimited
            }
        default: hint = (token != nil || password != nil) ? .sharedSecret : .noCredentials
        }

        let strictCheck: DecodedSetup.StrictCheck
        switch form {
        case .code, .prefixedCode, .embeddedCode:
            do {
                _ = try strictDecode(strictCode ?? "", nowMs: nowMs)
                strictCheck = form == .embeddedCode
                    ? .rejected(reason: "the strict TS decoder reads only the bare code, not the text around it "
                        + "(the code itself passes)")
                    : .accepted
            } catch {
                strictCheck = .rejected(reason: error.message)
            }
        default:
            strictCheck = .rejected(reason: "raw setup JSON is not a setup code; the strict TS decoder reads only "
                + "base64url codes")
        }

        return DecodedSetup(form: form, generation: generation, primary: primary, fallbacks: Array(kept.dropFirst()),
                            dropped: dropped, tlsFingerprint: tlsFingerprint, expiresAtMs: expiresAtMs,
                            bootstrapToken: bootstrapToken, token: token, password: password, payload: json,
                            strictCheck: strictCheck, accessHint: hint, notes: notes)
    }

    // MARK: Raw URL (#5)

    static func interpretRawURL(_ text: String) throws(SetupCodeError) -> DecodedSetup {
        guard let parsed = parsePayloadURL(text) else { throw .invalidURL(text) }
        let endpoint = SetupEndpoint(parsed: parsed)
        guard endpoint.tls || PlaintextPolicy.allowsPlaintext(host: endpoint.host) else {
            throw .insecurePlaintextHost(host: endpoint.host)
        }
        return DecodedSetup(form: .rawURL, generation: .rawURL, primary: endpoint, fallbacks: [], dropped: [],
                            tlsFingerprint: nil, expiresAtMs: nil, bootstrapToken: nil, token: nil, password: nil,
                            payload: nil,
                            strictCheck: .rejected(reason: "a gateway URL is not a setup code; it carries no bootstrap token"),
                            accessHint: .noCredentials, notes: [])
    }
}
