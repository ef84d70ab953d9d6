import ClawpairCore
import ClawpairSetupCode

/// A setup code the gateway minted (`device.pair.setupCode`), checked and ready to show: what
/// a QR or setup-code report shows, in the shape of `openclaw qr`.
///
///     let minted = try MintedSetupCode(session.mintSetupCode(SetupCodeRequest(bootstrapProfile: "node")), nowMs: now)
///     minted.textLines(nowMs: now).forEach { print($0) }
public struct MintedSetupCode: Sendable, Equatable {
    /// The longest wait for the code's use (``waitMs(nowMs:)``), whatever expiry the gateway claims: an hour.
    public static let maxWaitMs: Int64 = 3_600_000
    /// What `openclaw qr` says when the gateway limited a full-access code (``SetupCodeResult/accessDowngraded``).
    public static let downgradeWarning = "This Gateway URL uses plaintext ws://, so the setup code was limited for safety. "
        + "Use wss:// or Tailscale Serve, then generate a new code for full access."

    /// The gateway's answer (tokens redacted in its `json`).
    public let result: SetupCodeResult
    /// The code, decoded.
    public let decoded: DecodedSetup
    /// When the code expires (ms since the epoch): the gateway's `expiresAtMs`, else the
    /// bootstrap token's lifetime (``SetupCode/bootstrapTokenTTLMs``, 10 minutes) after it was minted.
    public let expiresAtMs: Int64

    /// Checks that `result`'s code decodes before anyone is shown it (a code that does not would
    /// not pair: ``GatewayError/protocolViolation(_:)``) and fixes its expiry, counted from
    /// `nowMs` when the gateway gives none.
    public init(_ result: SetupCodeResult, nowMs: Int64) throws(GatewayError) {
        do {
            decoded = try SetupCode.parse(result.setupCode)
        } catch {
            throw .protocolViolation("the gateway's setup code does not decode: \(error.message)")
        }
        self.result = result
        expiresAtMs = result.expiresAtMs ?? Monotonic.saturatingAdd(nowMs, SetupCode.bootstrapTokenTTLMs)
    }

    /// The code with `pin` (a normalized SHA-256 certificate fingerprint) as the pin of its
    /// primary route, for a `wss://` gateway whose certificate the system roots do not vouch for
    /// (this machine reached it through a pin: `endpoint.pin`). A phone that scans a code without
    /// the pin cannot trust such a gateway, and the gateway adds one only for its own TLS bind
    /// (setup-codes.md §2 `tlsFingerprint`). Nil when nothing is to add: the primary route is not
    /// `wss://` to `endpoint`'s host and port, the code has a pin already, or `endpoint` has none.
    /// The re-encoded code keeps every member the gateway wrote, in its order, and decodes
    /// before it is returned.
    public func pinning(for endpoint: GatewayEndpoint) throws(GatewayError) -> MintedSetupCode? {
        guard let pin = endpoint.pin, endpoint.tls, decoded.tlsFingerprint == nil, decoded.primary.tls,
              decoded.primary.host.lowercased() == endpoint.host.lowercased(), decoded.primary.port == endpoint.port,
              let bytes = try? Base64URL.decode(result.setupCode), case .object(let members)? = try? JSONValue.parse(bytes),
              !members.contains(where: { $0.0 == "tlsFingerprint" }) else { return nil }
        var pinned = result
        pinned.setupCode = SetupCode.encode(json: .object(members + [("tlsFingerprint", .string(pin))]))
        pinned.json = Self.replacing("setupCode", with: .string(pinned.setupCode), in: result.json)
        return try MintedSetupCode(pinned, nowMs: Monotonic.saturatingSubtract(expiresAtMs, SetupCode.bootstrapTokenTTLMs))
    }

    private static func replacing(_ key: String, with value: JSONValue, in object: JSONValue) -> JSONValue {
        guard case .object(let members) = object else { return object }
        return .object(members.map { $0.0 == key ? (key, value) : $0 })
    }

    /// How long to wait for the code's use from `nowMs`, in ms: until it expires, at most
    /// ``maxWaitMs``, never negative.
    public func waitMs(nowMs: Int64) -> Int64 {
        max(0, min(Monotonic.saturatingSubtract(expiresAtMs, nowMs), Self.maxWaitMs))
    }

    /// `openclaw qr --json`'s object: `setupCode`, then from the gateway's answer `gatewayUrl`,
    /// `gatewayUrls` (only with 2 or more routes), `auth`, `urlSource`, `access`,
    /// `accessDowngraded` (only when true) and `setupId` (those it sent), then ``expiresAtMs``,
    /// and `setupStatus` (``SetupStatus/json``) when one is given.
    public func json(setupStatus: SetupStatus? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("setupCode", .string(result.setupCode))]
        for key in ["gatewayUrl", "gatewayUrls", "auth", "urlSource", "access", "accessDowngraded", "setupId"] {
            guard let value = result.json[key], !value.isNull else { continue }
            if key == "gatewayUrls", (value.arrayValue?.count ?? 0) < 2 { continue }
            if key == "accessDowngraded", value.boolValue != true { continue }
            members.append((key, value))
        }
        members.append(("expiresAtMs", .int(expiresAtMs)))
        if let setupStatus { members.append(("setupStatus", setupStatus.json)) }
        return .object(members)
    }

    /// The code and its details for people, one line each (sanitized; absent values `-`):
    /// `Setup code:`, `Gateway:` (and a `Fallback:` per further route), `Auth:`, `Access:`, the
    /// ``downgradeWarning`` when it applies (painted ``TextRole/warning``), `Source:` and
    /// `Expires: in N min (ISO 8601 time)`, rounded to the nearest minute at `nowMs`.
    public func textLines(nowMs: Int64, paint: (TextRole, String) -> String = { $1 }) -> [String] {
        var lines = ["Setup code: \(result.setupCode)",
                     "Gateway: \(TerminalText.sanitize(result.gatewayUrl ?? decoded.primary.url, maxScalars: 300))"]
        lines += (result.gatewayUrls ?? []).dropFirst().map { "Fallback: \(TerminalText.sanitize($0, maxScalars: 300))" }
        lines += ["Auth: \(FieldText.field(result.auth))", "Access: \(FieldText.field(result.access))"]
        if result.accessDowngraded { lines.append(paint(.warning, Self.downgradeWarning)) }
        let minutes = max(0, Monotonic.saturatingAdd(Monotonic.saturatingSubtract(expiresAtMs, nowMs), 30_000) / 60_000)
        return lines + ["Source: \(FieldText.field(result.urlSource, max: 80))",
                        "Expires: in \(minutes) min (\(WallClock.iso8601(ms: expiresAtMs) ?? "?"))"]
    }
}

extension OperatorSession {
    /// Mints a setup code (``mintSetupCode(_:)``) with `bootstrapProfile` (nil: full access) and
    /// checks it (``MintedSetupCode``). The code carries `publicURL`; without one, the URL this
    /// session reached the gateway through when a phone can dial it (``SetupCodeRequest/reachedURL(_:)``),
    /// unless `preferRemoteURL` asks for the gateway's configured remote URL.
    public func mintSetupCode(bootstrapProfile: String?, publicURL: String?, preferRemoteURL: Bool,
                              nowMs: Int64) throws(GatewayError) -> MintedSetupCode {
        let url = publicURL ?? (preferRemoteURL ? nil : SetupCodeRequest.reachedURL(target.endpoint))
        let request = SetupCodeRequest(bootstrapProfile: bootstrapProfile, publicURL: url, preferRemoteURL: preferRemoteURL)
        return try MintedSetupCode(mintSetupCode(request), nowMs: nowMs)
    }
}

extension SetupStatus {
    /// The device's use of the code; nil while it is ``outstanding``.
    public var completion: SetupCompletion? {
        switch self {
        case .outstanding: return nil
        case .completed(let completion), .deliveryUncertain(let completion): return completion
        }
    }

    /// `{"used": false}`, or `{"used": true, "uncertain", "completion"}` with the completion
    /// record (`uncertain`: the gateway could not confirm the device received its credentials).
    public var json: JSONValue {
        guard let completion else { return .object([("used", false)]) }
        let uncertain = self == .deliveryUncertain(completion)
        return .object([("used", true), ("uncertain", .bool(uncertain)), ("completion", completion.json)])
    }

    /// For people (sanitized, absent values `-`): `The code was used by Phone (0123456789ab…),
    /// access node.`, or `…, access node; the gateway is not sure it received its credentials.`;
    /// nil while ``outstanding``.
    public var usedText: String? {
        guard let completion else { return nil }
        return "The code was used by \(FieldText.field(completion.deviceName)) (\(FieldText.shortId(completion.deviceId))), "
            + "access \(FieldText.field(completion.access))"
            + (self == .completed(completion) ? "." : "; the gateway is not sure it received its credentials.")
    }
}
