// The newest strict TypeScript decoder (`decodePairingSetupCode`, `setup-codes.md` §3.3). Every
// code the toolkit mints must pass it; `DecodedSetup.strictCheck` reports what it would say.
//
// Quirks reproduced on purpose: the code after the prefix must be `[A-Za-z0-9_-]+`; Node's
// base64url decoder ignores one dangling final character; invalid UTF-8 becomes U+FFFD rather
// than an error; `url` and `bootstrapToken` are trimmed before use; `null` counts as present
// (and wrong) for `urls`, `expiresAtMs` and `tlsFingerprint`.

import ClawpairCore

extension SetupCode {
    /// Decodes `input` exactly as the newest strict TS decoder does, returning the payload it
    /// would return (`url` and `bootstrapToken` trimmed, `tlsFingerprint` normalized, no legacy
    /// `token`/`password`).
    ///
    /// - Parameter nowMs: the current time in epoch ms; `nil` skips only the expiry comparison
    ///   (the `expiresAtMs` shape is still checked).
    public static func strictDecode(_ input: String, nowMs: Int64?) throws(SetupCodeError) -> SetupCodePayload {
        guard input.utf8.count <= maxInputBytes else {
            throw .inputTooLarge(bytes: input.utf8.count, limit: maxInputBytes)
        }
        var code = TextRules.jsTrim(input)
        if TextRules.hasPrefixASCIICaseInsensitive(code, urlPrefix) {
            code = TextRules.dropUTF8Prefix(code, count: urlPrefix.utf8.count)
        }
        var bytes = Array(code.utf8)
        guard !bytes.isEmpty else { throw .notAPayload("the code is empty") }
        let isCodeCharacter: (UInt8) -> Bool = {
            TextRules.isASCIIAlpha($0) || TextRules.isASCIIDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
        guard bytes.allSatisfy(isCodeCharacter) else {
            throw .notAPayload("the strict decoder reads only a bare base64url code (A–Z a–z 0–9 - _), "
                + "without padding, spaces or surrounding text")
        }
        if bytes.count % 4 == 1 { bytes.removeLast() }
        let decoded: [UInt8]
        do {
            decoded = try Base64.decode(bytes: bytes, alphabet: .url, padding: .forbidden)
        } catch {
            throw .notAPayload("the code is not valid base64url")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(String(decoding: decoded, as: UTF8.self))
        } catch {
            throw .notAPayload("the code does not decode to JSON (\(error.description))")
        }
        guard case .object = json else {
            throw .notAPayload("the code decodes to \(json.typeDescription), not a setup payload object")
        }

        guard let url = nonEmptyTrimmed(json["url"]) else {
            throw .invalidField(name: "url", expected: "a non-empty string")
        }
        guard let bootstrapToken = nonEmptyTrimmed(json["bootstrapToken"]) else { throw .missingBootstrapToken }
        let normalizedURL = SetupURL.normalize(url, defaultScheme: .ws)
        guard normalizedURL == url else { throw .notNormalized(field: "url", value: url, normalized: normalizedURL) }

        var urls: [String]? = nil
        if let value = json["urls"] {
            guard case let .array(elements) = value, !elements.isEmpty else {
                throw .invalidField(name: "urls", expected: "a non-empty array of at most \(maxRoutes) URL strings")
            }
            guard elements.count <= maxRoutes else { throw .tooManyRoutes(count: elements.count, limit: maxRoutes) }
            var list: [String] = []
            for (i, element) in elements.enumerated() {
                guard case let .string(s) = element else {
                    throw .invalidField(name: "urls[\(i)]", expected: "a string, not \(element.typeDescription)")
                }
                let normalized = SetupURL.normalize(s, defaultScheme: .ws)
                guard normalized == s else { throw .notNormalized(field: "urls[\(i)]", value: s, normalized: normalized) }
                list.append(s)
            }
            urls = list
        }

        var expiresAtMs: Int64? = nil
        if let value = json["expiresAtMs"] {
            guard !value.isNull else { throw .invalidExpiry("null") }
            expiresAtMs = try PayloadFields.expiresAtMs(json)
            if let expiresAtMs, let nowMs, expiresAtMs <= nowMs {
                throw .expired(expiresAtMs: expiresAtMs, nowMs: nowMs)
            }
        }

        var tlsFingerprint: String? = nil
        if let value = json["tlsFingerprint"] {
            guard case let .string(s) = value else { throw .invalidFingerprint(value.typeDescription) }
            guard let normalized = TLSFingerprint.normalize(s) else { throw .invalidFingerprint(s) }
            tlsFingerprint = normalized
        }

        return SetupCodePayload(url: url, urls: urls, bootstrapToken: bootstrapToken, expiresAtMs: expiresAtMs,
                                tlsFingerprint: tlsFingerprint)
    }

    /// TS `normalizeOptionalString`: a string, trimmed, non-empty; otherwise `nil`.
    private static func nonEmptyTrimmed(_ value: JSONValue?) -> String? {
        guard case let .string(s)? = value else { return nil }
        let trimmed = TextRules.jsTrim(s)
        return trimmed.isEmpty ? nil : trimmed
    }
}
