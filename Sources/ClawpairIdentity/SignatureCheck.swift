// Checking a device signature the way a gateway does: the signature must verify for the
// payload and key, and a connect payload must name the key's device.

/// What checking a signature against a payload found (see `DevicePublicKey.check`).
public struct SignatureCheck: Sendable, Equatable {
    /// Whether a gateway would accept it: the signature verifies, and a connect payload names
    /// the key's device.
    public let valid: Bool
    /// The key's deviceId.
    public let deviceId: String
    /// The payload as a connect payload, when it is one (v2 or v3).
    public let connect: ConnectPayload?
    /// Whether the connect payload's deviceId is the key's; nil when the payload is not a
    /// connect payload.
    public let payloadDeviceIdMatches: Bool?
    /// Why it is not valid, in one sentence; nil when valid.
    public let reason: String?
}

extension DevicePublicKey {
    /// Checks `signatureText` (base64url or base64 of 64 bytes) over `payload`. A signature that
    /// verifies over a connect payload naming another device is refused, as gateways refuse it
    /// (`DEVICE_AUTH_DEVICE_ID_MISMATCH`).
    public func check(signatureText: String, payload: [UInt8]) -> SignatureCheck {
        var reason: String?
        var valid = false
        do {
            let signature = try DeviceSignature(parsing: signatureText)
            valid = isValidSignature(signature, for: payload)
            if !valid { reason = "the signature is not valid for this payload and public key" }
        } catch {
            reason = "the signature cannot be decoded: \(error.message)"
        }
        let connect = ConnectPayload(parsing: String(decoding: payload, as: UTF8.self))
        let idMatches = connect.map { $0.deviceId == deviceId }
        if valid, idMatches == false, let connect {
            valid = false
            reason = "the payload names device \(connect.deviceId), but the key is device \(deviceId) "
                + "(gateways refuse this: DEVICE_AUTH_DEVICE_ID_MISMATCH)"
        }
        return SignatureCheck(valid: valid, deviceId: deviceId, connect: connect, payloadDeviceIdMatches: idMatches,
                              reason: reason)
    }
}
