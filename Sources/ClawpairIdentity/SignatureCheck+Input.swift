// Inputs and output of a signature check as a verifying program takes them: a public key given
// as text or as the path of a file holding it, and the check's JSON object.
import ClawpairCore

extension DevicePublicKey {
    /// The key in `text` (any form ``init(parsing:)`` reads), else, when `text` names a file, the
    /// key in that file (at most 16 KiB). `what` names the text in the error when it is neither
    /// (e.g. the option it came from).
    public static func parse(textOrFile text: String, what: String) throws -> DevicePublicKey {
        do {
            return try DevicePublicKey(parsing: text)
        } catch let textError {
            // Not key text: maybe the path of a file holding it.
            guard !text.contains("\n"), IdentityFile.status(path: text) != nil else {
                throw IdentityError.invalid(what: what, textError)
            }
            let bytes = try FileIO.read(path: text, limit: 16 * 1024)
            do {
                return try DevicePublicKey(parsing: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw IdentityError.malformed(path: text, error)
            }
        }
    }
}

extension SignatureCheck {
    /// `{valid, deviceId, payloadVersion, payloadDeviceIdMatches, reason}` (clawpair-identity-verify(1)).
    public var json: JSONValue {
        .object([
            ("valid", .bool(valid)), ("deviceId", .string(deviceId)),
            ("payloadVersion", connect.map { .string($0.version.rawValue) } ?? .null),
            ("payloadDeviceIdMatches", payloadDeviceIdMatches.map(JSONValue.bool) ?? .null),
            ("reason", reason.map(JSONValue.string) ?? .null),
        ])
    }
}

extension SignedConnect {
    /// `{version, payload?, scopes, device}` (clawpair-identity-sign-connect(1)); the payload,
    /// which includes the token, only with `includePayload`.
    public func json(includePayload: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [("version", .string(payload.version.rawValue))]
        if includePayload { members.append(("payload", .string(payload.text))) }
        members.append(("scopes", .array(payload.scopes.map(JSONValue.string))))
        members.append(("device", deviceJSON))
        return .object(members)
    }
}
