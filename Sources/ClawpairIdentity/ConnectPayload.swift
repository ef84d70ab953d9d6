// The v2/v3/v4 connect signature payloads (identity-and-handshake.md §6, upstream
// `packages/gateway-client/src/device-auth.ts`, re-exported by `src/gateway/device-auth.ts`).
//
//   v2|deviceId|client.id|client.mode|role|scopesCsv|signedAtMs|token|nonce
//   v3|deviceId|client.id|client.mode|role|scopesCsv|signedAtMs|token|nonce|platform|deviceFamily
//   v4|<n>:deviceId|<n>:client.id|<n>:client.mode|<n>:role|<n>:<scope count>|<n>:scope…|<n>:signedAtMs
//     |<n>:token|<n>:nonce|<n>:platform|<n>:deviceFamily|<n>:trustedBrokerProfileId
//
// v2/v3 fields are joined with `|` and nothing is escaped. v4 prefixes every field with its
// length and a `:` so that no field can shift another (upstream test "keeps delimiter placement
// and scope boundaries distinct in v4 payloads", `src/gateway/device-auth.test.ts`). Upstream's
// test files carry two v4 layouts: an earlier pipe-joined one ending in an instance id, replaced
// by the length-prefixed one above, which binds a trusted broker profile. Gateway verifiers seen
// (`src/gateway/server/ws-connection/handshake-auth-helpers.ts`
// `resolveDeviceSignaturePayloadVersion`) still try v3, then v2: v4 is for connects that assert a
// trusted broker profile. Lengths are only defined here for ASCII (the vectors are ASCII), so a
// v4 payload with a non-ASCII field is refused rather than guessed at. Checklist, adding a payload version: add a
// case to `ConnectPayload.Version`, its field list to `text` and `init(parsing:)`, a vector test.

/// Which payload layout is signed.
public enum ConnectPayloadVersion: String, Sendable, CaseIterable {
    /// What the Swift WebSocket clients sign, accepted by every nonce-checking gateway; the default.
    case v2
    /// Adds platform and deviceFamily (trimmed, ASCII-lowercased); gateways try it first.
    case v3
    /// Length-prefixed fields, one per scope, plus `trustedBrokerProfileId`; for connects that
    /// assert a trusted broker profile. ASCII fields only (see ``ConnectPayload/isEncodable``).
    case v4
}

/// The credentials of a connect's `auth` object, as far as signing cares.
public struct ConnectAuth: Sendable, Equatable {
    /// `auth.token`: an explicit shared token or the stored device token.
    public var token: String?
    /// `auth.deviceToken`.
    public var deviceToken: String?
    /// `auth.bootstrapToken`.
    public var bootstrapToken: String?
    /// `auth.password`: never signed.
    public var password: String?

    /// Creates the auth object.
    public init(token: String? = nil, deviceToken: String? = nil, bootstrapToken: String? = nil, password: String? = nil) {
        self.token = token
        self.deviceToken = deviceToken
        self.bootstrapToken = bootstrapToken
        self.password = password
    }

    /// The token that goes in the payload: the first non-empty of `token`, `deviceToken`,
    /// `bootstrapToken`; otherwise empty. A password is never signed.
    public var signedToken: String {
        for candidate in [token, deviceToken, bootstrapToken] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return ""
    }
}

/// The fields of a connect signature payload and its text.
public struct ConnectPayload: Sendable, Equatable {
    /// v2 or v3.
    public var version: ConnectPayloadVersion
    /// `device.id`.
    public var deviceId: String
    /// `client.id`.
    public var clientId: String
    /// `client.mode`.
    public var clientMode: String
    /// `role`.
    public var role: String
    /// The scopes exactly as sent, in order (a node sends none).
    public var scopes: [String]
    /// `device.signedAt`.
    public var signedAtMs: Int64
    /// The signed token (``ConnectAuth/signedToken``), or empty.
    public var token: String
    /// The challenge nonce.
    public var nonce: String
    /// `client.platform` as sent (v3 only; lowercased in the text).
    public var platform: String?
    /// `client.deviceFamily` as sent (v3 and v4; lowercased in the text).
    public var deviceFamily: String?
    /// `auth.trustedBrokerProfileId` (v4 only; signed as given).
    public var trustedBrokerProfileId: String?

    /// The longest v4 scope list read back (connects send a handful).
    public static let maxV4Scopes = 256

    /// Creates a payload; `platform` and `deviceFamily` keep their original case here.
    public init(version: ConnectPayloadVersion = .v2, deviceId: String, clientId: String, clientMode: String,
                role: String, scopes: [String], signedAtMs: Int64, token: String, nonce: String,
                platform: String? = nil, deviceFamily: String? = nil, trustedBrokerProfileId: String? = nil) {
        self.version = version
        self.deviceId = deviceId
        self.clientId = clientId
        self.clientMode = clientMode
        self.role = role
        self.scopes = scopes
        self.signedAtMs = signedAtMs
        self.token = token
        self.nonce = nonce
        self.platform = platform
        self.deviceFamily = deviceFamily
        self.trustedBrokerProfileId = trustedBrokerProfileId
    }

    /// Whether ``text`` is defined for these fields: always for v2 and v3; for v4 only when every
    /// field is ASCII (upstream's length unit for other text is not pinned down by its vectors).
    /// Sign or verify a v4 payload only when this is true.
    public var isEncodable: Bool {
        guard version == .v4 else { return true }
        let fields = [deviceId, clientId, clientMode, role, token, nonce, Self.normalizeMetadata(platform),
                      Self.normalizeMetadata(deviceFamily), trustedBrokerProfileId ?? ""] + scopes
        return fields.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
    }

    /// The payload text that is signed (UTF-8). For a v4 payload that is not ``isEncodable`` the
    /// text is not what any gateway computes: check first.
    public var text: String {
        if version == .v4 { return v4Text }
        var out = version.rawValue
        out.reserveCapacity(200)
        func field(_ value: String) {
            out.append("|")
            out.append(value)
        }
        field(deviceId)
        field(clientId)
        field(clientMode)
        field(role)
        out.append("|")
        for (i, scope) in scopes.enumerated() {
            if i > 0 { out.append(",") }
            out.append(scope)
        }
        field(String(signedAtMs))
        field(token)
        field(nonce)
        if version == .v3 {
            field(Self.normalizeMetadata(platform))
            field(Self.normalizeMetadata(deviceFamily))
        }
        return out
    }

    /// v4: `v4` then `|<length>:<value>` per field (length in bytes of the ASCII value).
    private var v4Text: String {
        var out = "v4"
        func field(_ value: String) {
            out.append("|")
            out.append(String(value.utf8.count))
            out.append(":")
            out.append(value)
        }
        for value in [deviceId, clientId, clientMode, role, String(scopes.count)] { field(value) }
        for scope in scopes { field(scope) }
        for value in [String(signedAtMs), token, nonce, Self.normalizeMetadata(platform), Self.normalizeMetadata(deviceFamily),
                      trustedBrokerProfileId ?? ""] {
            field(value)
        }
        return out
    }

    /// Reads a v4 text: every field `<decimal length>:<bytes>`, fields joined by `|`, ASCII only,
    /// at most `maxV4Scopes` scopes; nil for anything else.
    private static func parseV4(_ bytes: [UInt8]) -> ConnectPayload? {
        guard bytes.allSatisfy({ $0 < 0x80 }), bytes.starts(with: Array("v4".utf8)) else { return nil }
        var i = 2
        func next() -> String? {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "|") else { return nil }
            i += 1
            var length = 0
            let digitsStart = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                length = length * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                guard length <= bytes.count else { return nil }
                i += 1
            }
            // One canonical spelling of the length: digits present, no leading zero.
            guard i > digitsStart, i - digitsStart == 1 || bytes[digitsStart] != UInt8(ascii: "0"),
                  i < bytes.count, bytes[i] == UInt8(ascii: ":"), bytes.count - (i + 1) >= length else { return nil }
            i += 1
            defer { i += length }
            return String(decoding: bytes[i..<(i + length)], as: UTF8.self)
        }
        guard let deviceId = next(), let clientId = next(), let clientMode = next(), let role = next(),
              let countText = next(), let count = Int(countText), String(count) == countText,
              count >= 0, count <= maxV4Scopes else { return nil }
        var scopes: [String] = []
        for _ in 0..<count {
            guard let scope = next() else { return nil }
            scopes.append(scope)
        }
        guard let signedAtText = next(), let signedAt = Int64(signedAtText), String(signedAt) == signedAtText,
              let token = next(), let nonce = next(), let platform = next(), let deviceFamily = next(),
              let broker = next(), i == bytes.count else { return nil }
        return ConnectPayload(version: .v4, deviceId: deviceId, clientId: clientId, clientMode: clientMode, role: role,
                              scopes: scopes, signedAtMs: signedAt, token: token, nonce: nonce, platform: platform,
                              deviceFamily: deviceFamily, trustedBrokerProfileId: broker)
    }

    /// Reads payload text back into fields: `v2` with 9 fields, `v3` with 11, or a well-formed
    /// length-prefixed `v4`; nil for anything else (v1, other text, or a v2/v3 field that itself
    /// holds `|`). v3/v4 metadata comes back lowercased.
    public init?(parsing text: String) {
        if text.hasPrefix("v4|") {
            guard let parsed = Self.parseV4(Array(text.utf8)) else { return nil }
            self = parsed
            return
        }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard let first = fields.first, let version = ConnectPayloadVersion(rawValue: first), version != .v4 else { return nil }
        guard fields.count == (version == .v2 ? 9 : 11), let signedAt = Int64(fields[6]),
              String(signedAt) == fields[6] else { return nil }
        self.init(version: version, deviceId: fields[1], clientId: fields[2], clientMode: fields[3], role: fields[4],
                  scopes: fields[5].isEmpty ? [] : fields[5].split(separator: ",", omittingEmptySubsequences: false).map(String.init),
                  signedAtMs: signedAt, token: fields[7], nonce: fields[8],
                  platform: version == .v3 ? fields[9] : nil, deviceFamily: version == .v3 ? fields[10] : nil)
    }

    /// v3 metadata as signed: trimmed as JavaScript's `String.prototype.trim` does, then
    /// `A`–`Z` lowercased (other letters unchanged); empty when absent.
    public static func normalizeMetadata(_ value: String?) -> String {
        guard let value else { return "" }
        var scalars = Substring(value).unicodeScalars[...]
        while let first = scalars.first, isJavaScriptWhitespace(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, isJavaScriptWhitespace(last) { scalars = scalars.dropLast() }
        var out = String.UnicodeScalarView()
        for scalar in scalars {
            if scalar.value >= 0x41 && scalar.value <= 0x5A {
                out.append(Unicode.Scalar(scalar.value + 0x20)!)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// ECMAScript WhiteSpace and LineTerminator (ECMA-262 §12.2, §12.3): what `trim()` removes.
    static func isJavaScriptWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F,
             0x3000, 0xFEFF:
            return true
        default:
            return false
        }
    }

    /// Scopes as a connect should send them: each trimmed (JavaScript `trim`), empty ones
    /// dropped, duplicates removed keeping the first (§5: sign exactly the list sent).
    public static func normalizeScopes(_ scopes: [String]) -> [String] {
        var out: [String] = []
        out.reserveCapacity(scopes.count)
        for scope in scopes {
            var scalars = Substring(scope).unicodeScalars[...]
            while let first = scalars.first, isJavaScriptWhitespace(first) { scalars = scalars.dropFirst() }
            while let last = scalars.last, isJavaScriptWhitespace(last) { scalars = scalars.dropLast() }
            let trimmed = scalars.count == scope.unicodeScalars.count ? scope : String(scalars)
            // Scope lists are short: a linear search beats hashing here.
            if !trimmed.isEmpty && !out.contains(trimmed) { out.append(trimmed) }
        }
        return out
    }
}
