// The setup-code payload (`setup-codes.md` §2) and its JSON form in emission order.

import ClawpairCore

/// A URL-shape setup payload. Fields are emitted in this order (absent ones skipped):
/// `url`, `urls`, `bootstrapToken`, `token`, `password`, `expiresAtMs`, `tlsFingerprint`.
///
/// G4 codes (what the toolkit mints) use `url`, `urls?`, `bootstrapToken`, `expiresAtMs`,
/// `tlsFingerprint?`; `token`/`password` exist for decoding and re-encoding legacy G1/G2 codes.
public struct SetupCodePayload: Sendable, Equatable {
    /// The primary gateway URL (normalized form in codes the gateway or toolkit mints).
    public var url: String
    /// Ordered routes, `urls[0] == url`; present only with ≥2 routes.
    public var urls: [String]?
    /// The one-time bootstrap token (G2+).
    public var bootstrapToken: String?
    /// Legacy shared gateway token (G1).
    public var token: String?
    /// Legacy shared gateway password (G1).
    public var password: String?
    /// Epoch ms when the bootstrap token expires (G4).
    public var expiresAtMs: Int64?
    /// SHA-256 of the primary endpoint's certificate, 64 lowercase hex (G4, `wss://` only).
    public var tlsFingerprint: String?

    /// Creates a payload.
    public init(url: String, urls: [String]? = nil, bootstrapToken: String? = nil, token: String? = nil,
                password: String? = nil, expiresAtMs: Int64? = nil, tlsFingerprint: String? = nil) {
        self.url = url
        self.urls = urls
        self.bootstrapToken = bootstrapToken
        self.token = token
        self.password = password
        self.expiresAtMs = expiresAtMs
        self.tlsFingerprint = tlsFingerprint
    }

    /// The payload as a JSON object in emission order.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("url", .string(url))]
        if let urls { members.append(("urls", .array(urls.map { .string($0) }))) }
        if let bootstrapToken { members.append(("bootstrapToken", .string(bootstrapToken))) }
        if let token { members.append(("token", .string(token))) }
        if let password { members.append(("password", .string(password))) }
        if let expiresAtMs { members.append(("expiresAtMs", .int(expiresAtMs))) }
        if let tlsFingerprint { members.append(("tlsFingerprint", .string(tlsFingerprint))) }
        return .object(members)
    }

    /// Reads a URL-shape payload object, checking field types (no URL or policy checks; that is
    /// the decoder's job). `null` counts as absent for optional fields, as in the Swift apps.
    public init(json: JSONValue) throws(SetupCodeError) {
        guard case .object = json else { throw .notAPayload("the JSON is \(json.typeDescription), not an object") }
        guard let url = try PayloadFields.optionalString(json, "url") else {
            throw .invalidField(name: "url", expected: "a string")
        }
        self.url = url
        self.urls = try PayloadFields.optionalStringArray(json, "urls")
        self.bootstrapToken = try PayloadFields.optionalString(json, "bootstrapToken")
        self.token = try PayloadFields.optionalString(json, "token")
        self.password = try PayloadFields.optionalString(json, "password")
        self.expiresAtMs = try PayloadFields.expiresAtMs(json)
        self.tlsFingerprint = try PayloadFields.optionalString(json, "tlsFingerprint")
    }
}

/// Typed reads of payload fields shared by the payload model and the lenient decoder.
enum PayloadFields {
    /// JavaScript's `Number.MAX_SAFE_INTEGER` (2^53 − 1): the largest `expiresAtMs` accepted.
    static let maxSafeInteger: Int64 = 9_007_199_254_740_991

    static func optionalString(_ json: JSONValue, _ name: String) throws(SetupCodeError) -> String? {
        guard let value = json[name] else { return nil }
        switch value {
        case .null: return nil
        case let .string(s): return s
        default: throw .invalidField(name: name, expected: "a string, not \(value.typeDescription)")
        }
    }

    static func optionalStringArray(_ json: JSONValue, _ name: String) throws(SetupCodeError) -> [String]? {
        guard let value = json[name] else { return nil }
        switch value {
        case .null: return nil
        case let .array(elements):
            var out: [String] = []
            for element in elements {
                guard case let .string(s) = element else {
                    throw .invalidField(name: name, expected: "an array of strings")
                }
                out.append(s)
            }
            return out
        default: throw .invalidField(name: name, expected: "an array of URL strings, not \(value.typeDescription)")
        }
    }

    /// A non-negative safe integer (JavaScript `Number.isSafeInteger`, so `1.7e12` counts), or
    /// `nil` when absent/null.
    static func expiresAtMs(_ json: JSONValue) throws(SetupCodeError) -> Int64? {
        guard let value = json["expiresAtMs"] else { return nil }
        switch value {
        case .null: return nil
        case let .int(i):
            guard i >= 0 else { throw .invalidExpiry("a negative number (\(i))") }
            guard i <= maxSafeInteger else { throw .invalidExpiry("a number above 2^53 − 1 (\(i))") }
            return i
        case let .double(d):
            guard d.isFinite, d == d.rounded(.towardZero) else { throw .invalidExpiry("a non-integer number") }
            guard d >= 0 else { throw .invalidExpiry("a negative number") }
            guard d <= Double(maxSafeInteger) else { throw .invalidExpiry("a number above 2^53 − 1") }
            return Int64(d)
        default:
            throw .invalidExpiry(value.typeDescription)
        }
    }
}
