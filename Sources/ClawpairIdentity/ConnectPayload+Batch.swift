// Scripted signing: one JSON object per line overrides fields of a default connect payload
// (`clawpair identity sign-connect --batch`). The line format is the command's documented
// input; any program that signs connects for a script can read the same lines with
// `ConnectPayload.applying(batchLine:)`.

import ClawpairCore

/// Why one batch line cannot become a connect payload. Messages quote the key, as
/// `"scopes" is not an array`.
public enum ConnectBatchLineError: ClawpairError, Equatable {
    /// The line is JSON, but not an object.
    case notAnObject
    /// A member has the wrong type; `expected` completes "is not ..." (e.g. `a string`).
    case wrongType(key: String, expected: String)
    /// `scopes` holds something other than strings.
    case nonStringScope
    /// `version` is neither `v2` nor `v3` (batches do not sign v4, which needs a broker profile).
    case unknownVersion
    /// `deviceId` is given and is not the signing identity's.
    case deviceIdMismatch(given: String, identity: String)
    /// A key the format does not have (see `ConnectPayload.batchKeys`).
    case unknownKey(String)
    /// Neither the line nor the defaults give a nonce.
    case missingNonce

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .notAnObject: return "expected a JSON object"
        case let .wrongType(key, expected): return "\"\(key)\" is not \(expected)"
        case .nonStringScope: return "\"scopes\" holds a non-string"
        case .unknownVersion: return "\"version\" must be \"v2\" or \"v3\""
        case let .deviceIdMismatch(given, identity): return "deviceId \(given) is not this identity's (\(identity))"
        case let .unknownKey(key): return "unknown key \"\(key)\""
        case .missingNonce: return "no \"nonce\""
        }
    }
}

extension ConnectPayload {
    /// The keys a batch line may hold, sorted.
    public static let batchKeys = ["auth", "clientId", "clientMode", "deviceFamily", "deviceId", "nonce", "platform", "role",
                                   "scopes", "signedAtMs", "token", "version"]

    /// The longest batch line parsed (64 KiB).
    public static let maxBatchLineBytes = 64 * 1024

    /// This payload with the members of one batch line applied: a JSON object with any of
    /// `batchKeys`. Strings replace the matching field (`null` keeps it), `scopes` is
    /// normalized as `normalizeScopes` does, `auth` ({token, deviceToken, bootstrapToken,
    /// password}) replaces the token with `ConnectAuth.signedToken`, `version` is `"v2"` or
    /// `"v3"`, and `deviceId`, when given, must be this payload's (the signing identity's). Every value's type is
    /// checked and unknown keys are refused, in one pass over the members (scripted signing's
    /// hot path). The result always has a nonce.
    ///
    /// Throws `JSONError` for a line that is not JSON, else `ConnectBatchLineError`.
    public func applying<Line: Collection>(batchLine line: Line) throws -> ConnectPayload
        where Line.Element == UInt8
    {
        let object = try JSONValue.parse(line, limits: JSONLimits(maxInputBytes: Self.maxBatchLineBytes, maxDepth: 4))
        guard let members = object.objectValue else { throw ConnectBatchLineError.notAnObject }
        var payload = self
        var auth: ConnectAuth?
        func text(_ key: String, _ value: JSONValue) throws(ConnectBatchLineError) -> String? {
            if value.isNull { return nil }
            guard let text = value.stringValue else { throw .wrongType(key: key, expected: "a string") }
            return text
        }
        for (key, value) in members {
            switch key {
            case "nonce": payload.nonce = try text(key, value) ?? payload.nonce
            case "token": payload.token = try text(key, value) ?? payload.token
            case "clientId": payload.clientId = try text(key, value) ?? payload.clientId
            case "clientMode": payload.clientMode = try text(key, value) ?? payload.clientMode
            case "role": payload.role = try text(key, value) ?? payload.role
            case "platform": payload.platform = try text(key, value) ?? payload.platform
            case "deviceFamily": payload.deviceFamily = try text(key, value) ?? payload.deviceFamily
            case "signedAtMs":
                if value.isNull { continue }
                guard let ms = value.int64Value, ms >= 0 else {
                    throw ConnectBatchLineError.wrongType(key: key, expected: "a time in ms")
                }
                payload.signedAtMs = ms
            case "scopes":
                if value.isNull { continue }
                guard let list = value.arrayValue else { throw ConnectBatchLineError.wrongType(key: key, expected: "an array") }
                var scopes: [String] = []
                scopes.reserveCapacity(list.count)
                for item in list {
                    guard let scope = item.stringValue else { throw ConnectBatchLineError.nonStringScope }
                    scopes.append(scope)
                }
                payload.scopes = Self.normalizeScopes(scopes)
            case "auth":
                if value.isNull { continue }
                guard value.objectValue != nil else { throw ConnectBatchLineError.wrongType(key: key, expected: "an object") }
                auth = ConnectAuth(token: value["token"]?.stringValue, deviceToken: value["deviceToken"]?.stringValue,
                                   bootstrapToken: value["bootstrapToken"]?.stringValue, password: value["password"]?.stringValue)
            case "version":
                guard let name = try text(key, value) else { continue }
                guard let version = ConnectPayloadVersion(rawValue: name), version != .v4 else { throw ConnectBatchLineError.unknownVersion }
                payload.version = version
            case "deviceId":
                if let given = try text(key, value), given != deviceId {
                    throw ConnectBatchLineError.deviceIdMismatch(given: given, identity: deviceId)
                }
            default:
                throw ConnectBatchLineError.unknownKey(key)
            }
        }
        if let auth { payload.token = auth.signedToken }
        guard !payload.nonce.isEmpty else { throw ConnectBatchLineError.missingNonce }
        return payload
    }
}
