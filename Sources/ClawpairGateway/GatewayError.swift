// What can go wrong talking to a gateway, mapped to what a user can act on. The gateway's
// `error.details.code` decides the kind (never its message text); its messages are untrusted
// and sanitized before they reach a terminal.

import ClawpairCore
import ClawpairTransport

/// The gateway asked for pairing approval (`identity-and-handshake.md` §8).
public struct PairingRequired: Sendable, Equatable {
    /// The pending request to approve (absent on some builds: then the gateway's pairing list shows it).
    public var requestId: String?
    /// `not-paired`, `role-upgrade`, `scope-upgrade` or `metadata-upgrade`.
    public var reason: String?
    /// The device id: the SHA-256 of its public key, in lowercase hex.
    public var deviceId: String?
    /// The role the refused connect asked for.
    public var requestedRole: String?
    /// The scopes the refused connect asked for.
    public var requestedScopes: [String]
    /// `wait_then_retry` for a waiting node.
    public var recommendedNextStep: String?
    /// The gateway's own advice (untrusted text: sanitize before printing).
    public var remediationHint: String?
    /// The gateway keeps the refused connect's socket open and pushes `device.pair.resolved`
    /// to it when an operator decides (2026.7+; `connect-error-details.ts`). Without it the
    /// client closes and retries.
    public var waitForResolution: Bool

    /// The details of a pairing refusal.
    public init(requestId: String? = nil, reason: String? = nil, deviceId: String? = nil, requestedRole: String? = nil,
                requestedScopes: [String] = [], recommendedNextStep: String? = nil, remediationHint: String? = nil,
                waitForResolution: Bool = false) {
        self.requestId = requestId
        self.reason = reason
        self.deviceId = deviceId
        self.requestedRole = requestedRole
        self.requestedScopes = requestedScopes
        self.recommendedNextStep = recommendedNextStep
        self.remediationHint = remediationHint
        self.waitForResolution = waitForResolution
    }

    /// Reads the details of a `NOT_PAIRED`/`PAIRING_REQUIRED` error; the request id falls back to
    /// the one in the close reason (`… (requestId: <id>)`).
    public init(_ shape: GatewayErrorShape, closeReason: String? = nil) {
        let details = shape.details
        requestId = details?["requestId"]?.stringValue ?? closeReason.flatMap(Self.requestId(inCloseReason:))
        reason = details?["reason"]?.stringValue
        deviceId = details?["deviceId"]?.stringValue
        requestedRole = details?["requestedRole"]?.stringValue
        requestedScopes = (details?["requestedScopes"]?.arrayValue ?? []).compactMap(\.stringValue)
        recommendedNextStep = details?["recommendedNextStep"]?.stringValue
        remediationHint = details?["remediationHint"]?.stringValue
        waitForResolution = details?["waitForResolution"]?.boolValue ?? false
    }

    /// Why a device paired earlier meets a `metadata-upgrade`: gateways pin the platform and
    /// device family a device was approved with and compare them exactly on every connect
    /// (`src/gateway/server/ws-connection/connect-device-metadata.ts`); clawpair releases before
    /// the one constant ``GatewayClientInfo/linuxPlatform`` sent `Linux <kernel release>`.
    public static let metadataUpgradeExplanation = "the gateway pins the platform a device was paired with, and this device "
        + "was paired reporting another one (older clawpair releases sent 'Linux <kernel release>'; it now always sends "
        + "'\(GatewayClientInfo.linuxPlatform)', so this happens once)"

    /// `<id>` from a close reason ending in `(requestId: <id>)`.
    public static func requestId(inCloseReason reason: String) -> String? {
        let marker = Array("requestId: ".utf8)
        let bytes = Array(reason.utf8)
        guard bytes.count >= marker.count else { return nil }
        for start in stride(from: bytes.count - marker.count, through: 0, by: -1) where Array(bytes[start..<start + marker.count]) == marker {
            let id = bytes[(start + marker.count)...].prefix { $0 != UInt8(ascii: ")") && $0 != UInt8(ascii: " ") }
            return id.isEmpty ? nil : String(decoding: id, as: UTF8.self)
        }
        return nil
    }

    /// Whether `shape` is a pairing-required answer (a `NOT_PAIRED` whose detail code is not
    /// one of the terminal ``PairingDecision`` codes).
    public static func matches(_ shape: GatewayErrorShape) -> Bool {
        guard PairingDecision(detailCode: shape.detailCode) == nil else { return false }
        return shape.code == "NOT_PAIRED" || shape.detailCode == "PAIRING_REQUIRED"
    }
}

/// How an operator (or the gateway's expiry) resolved a pending pairing request: the
/// `decision` of `device.pair.resolved` (`approved`, `rejected`, `expired`, `superseded`:
/// `docs/gateway/protocol/auth.md`),
/// or the detail codes `PAIRING_REJECTED` / `PAIRING_EXPIRED` a refused connect can carry
/// (`packages/gateway-protocol/src/connect-error-details.ts`).
public enum PairingDecision: String, Sendable, Equatable {
    /// The request was approved: connecting again succeeds.
    case approved
    /// An operator rejected the request (or a newer request replaced it).
    case rejected
    /// The request expired before anyone decided.
    case expired
    /// A newer request of the same device replaced this one: connect again and follow the new
    /// request (upstream reconnects on `approved` or `superseded`).
    case superseded

    /// The decision a refused connect's detail code states, if any.
    public init?(detailCode: String?) {
        switch detailCode {
        case "PAIRING_REJECTED": self = .rejected
        case "PAIRING_EXPIRED": self = .expired
        default: return nil
        }
    }

    /// The decision of a `device.pair.resolved` payload for `requestId` (and `deviceId` when
    /// given); nil when the event is about another request or carries an unknown decision.
    public init?(resolvedEvent payload: JSONValue?, requestId: String?, deviceId: String?) {
        guard let payload, let id = payload["requestId"]?.stringValue, id == requestId else { return nil }
        if let deviceId, let other = payload["deviceId"]?.stringValue, other != deviceId { return nil }
        guard let text = payload["decision"]?.stringValue, let decision = PairingDecision(rawValue: text) else { return nil }
        self = decision
    }
}

/// The limit a gateway's message or frame went over, and whose limit it is.
public enum GatewayMessageLimit: Sendable, Equatable {
    /// clawpair's limit on every message before hello-ok (``GatewayFrames/preConnectMaxBytes``).
    case preConnect(bytes: Int)
    /// The `policy.maxPayload` the gateway announced in hello-ok (clamped to
    /// ``HelloOK/payloadLimitRange``), at or below clawpair's ceiling.
    case announced(bytes: Int)
    /// clawpair's ceiling after hello-ok (``GatewayClientConfiguration/maxPayloadCeiling``), below
    /// the `maxPayload` the gateway announced.
    case ceiling(bytes: Int, announced: Int)
    /// RFC 6455 §5.5: a control frame (`opcode`: ping, pong or close) carries at most 125 bytes.
    case controlFrame(opcode: String)

    /// The limit in bytes.
    public var bytes: Int {
        switch self {
        case .preConnect(let bytes), .announced(let bytes), .ceiling(let bytes, _): return bytes
        case .controlFrame: return 125
        }
    }

    /// "the 1-byte maxPayload the gateway announced in hello-ok", and so on.
    public var description: String {
        switch self {
        case .preConnect(let bytes): return "the \(bytes) bytes clawpair accepts in one message before hello-ok"
        case .announced(let bytes): return "the \(bytes)-byte maxPayload the gateway announced in hello-ok"
        case .ceiling(let bytes, let announced):
            return "clawpair's \(bytes)-byte ceiling (the gateway announced a maxPayload of \(announced) bytes)"
        case .controlFrame: return "the 125 bytes RFC 6455 allows a control frame"
        }
    }
}

/// A failure talking to a gateway.
public enum GatewayError: Error, Sendable, Equatable {
    /// The gateway URL cannot be used.
    case invalidURL(String, reason: String)
    /// TCP, TLS, the WebSocket upgrade or the wait for `connect.challenge` failed or ran out of
    /// time before the gateway spoke (`phase`: "tcp", "connect", "tls", "ws", "challenge", …).
    case unreachable(url: String, phase: String, reason: String)
    /// The certificate failed the pin or system trust.
    case tlsTrust(url: String, TLSTrustFailure)
    /// The server is not an OpenClaw gateway (no valid `connect.challenge`).
    case notGateway(url: String, reason: String)
    /// A gateway that sent `connect.challenge` did not answer in time (`what`: "the connect
    /// response", "a response to device.pair.list", …). Silence before `connect.challenge` is
    /// ``unreachable(url:phase:reason:)``.
    case timedOut(what: String, after: Duration)
    /// After hello-ok, the gateway went silent for longer than twice its tick interval.
    case stalled(silentFor: Duration, tickInterval: Duration)
    /// The connection closed (WebSocket close code and reason, or 1006 for a dropped socket).
    case closed(code: UInt16, reason: String, during: String)
    /// The gateway broke the protocol (garbage, a binary message, a bad frame).
    case protocolViolation(String)
    /// A message or frame went over `limit` (`size`: the frame's declared length, the message's
    /// length, or for a message in fragments its bytes up to the fragment that went over).
    case frameTooLarge(size: Int, limit: GatewayMessageLimit)
    /// The device must be approved first.
    case pairingRequired(PairingRequired)
    /// The pending pairing request was rejected (`PAIRING_REJECTED`, or `device.pair.resolved`
    /// with decision `rejected`): connecting again makes a new request.
    case pairingRejected(requestId: String?)
    /// The pending pairing request expired before an operator decided (`PAIRING_EXPIRED`).
    case pairingExpired(requestId: String?)
    /// The credential is valid but does not cover the scopes asked for (`AUTH_SCOPE_MISMATCH`).
    case scopeMismatch(GatewayErrorShape)
    /// The gateway admits this client's protocol range no longer (`PROTOCOL_MISMATCH`).
    case protocolMismatch(GatewayErrorShape)
    /// The gateway wants a client of its own release (`CLIENT_VERSION_MISMATCH`, sent to node
    /// clients of the gateway's own install).
    case clientVersionMismatch(GatewayErrorShape)
    /// Wrong or missing token/password, or an invalid bootstrap token.
    case authRejected(GatewayErrorShape)
    /// The gateway no longer accepts the device token stored for `role` (`AUTH_DEVICE_TOKEN_MISMATCH`,
    /// a `1008` close "device token mismatch", or `AUTH_TOKEN_MISMATCH` when that stored token
    /// was the only credential sent: revoked or rotated on the gateway). A ``GatewaySession``
    /// removes that token from the registry, as upstream's client clears it
    /// (`upstream-2026-10.md` §2.3), and ends: the device has to pair again. `detail` is the
    /// gateway's code or close reason.
    case deviceTokenRevoked(role: String, detail: String)
    /// The device proof was refused: signature, nonce, clock skew, key or id.
    case deviceAuthRejected(GatewayErrorShape)
    /// The gateway authenticated this client but grants it no operator access
    /// (`OPERATOR_ACCESS_DENIED`, 2026.10): an administrator has to grant it on the gateway.
    case operatorAccessDenied(GatewayErrorShape)
    /// The gateway admits only clients with an identity clawpair cannot present: a trusted
    /// proxy's identity header (`AUTH_IDENTITY_HEADER_REQUIRED`), a verified user
    /// (`AUTH_VERIFIED_USER_REQUIRED`), an authenticated profile (`AUTHENTICATED_PROFILE_UNAVAILABLE`),
    /// a device identity (`DEVICE_IDENTITY_REQUIRED`, `CONTROL_UI_DEVICE_IDENTITY_REQUIRED`).
    case identityRequired(GatewayErrorShape)
    /// The gateway is still starting (`UNAVAILABLE`, `details.reason` `startup-sidecars`,
    /// `docs/gateway/protocol/handshake.md`): connect again after `retryAfter` (clamped to
    /// ``GatewayStartupRetry/retryAfterRange``).
    case gatewayStarting(retryAfter: Duration, GatewayErrorShape)
    /// `connect` failed for another reason.
    case connectRejected(GatewayErrorShape)
    /// The gateway does not offer `method`: its hello-ok `features.methods` does not list it, or
    /// it answered `unknown method` (`serverVersion`: the gateway's, when it said).
    case unsupportedMethod(method: String, serverVersion: String?)
    /// An RPC failed.
    case rpcFailed(method: String, GatewayErrorShape)
    /// The connection was already closed when a call was made.
    case notConnected
    /// The call was stopped through its `StopSignal` or by cancelling its task (code
    /// `cancelled`): not a failure of the gateway.
    case cancelled
}

extension GatewayError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "cannot use the gateway URL '\(TerminalText.sanitize(Redaction.url(url), maxScalars: 200))': \(reason)"
        case .unreachable(let url, let phase, let reason):
            return "cannot reach the gateway at \(url) (\(phase)): \(reason)"
        case .tlsTrust(let url, let failure):
            return "TLS: \(url): \(failure.message)"
        case .notGateway(let url, let reason):
            return "\(url) is not an OpenClaw gateway: \(reason)"
        case .timedOut(let what, let after):
            return "the gateway did not send \(what) within \(Self.milliseconds(after)) ms"
        case .stalled(let silent, let tick):
            return "the gateway went silent for \(Self.milliseconds(silent)) ms (its tick interval is \(Self.milliseconds(tick)) ms)"
        case .closed(let code, let reason, let during):
            let text = reason.isEmpty ? "" : ": \(TerminalText.sanitize(reason, maxScalars: 200))"
            return "the gateway closed the connection during \(during) (code \(code)\(text))"
        case .protocolViolation(let detail):
            return "the gateway broke the protocol: \(detail)"
        case .frameTooLarge(let size, .controlFrame(let opcode)):
            return "the gateway sent a \(opcode) frame of \(size) bytes, more than \(GatewayMessageLimit.controlFrame(opcode: opcode).description)"
        case .frameTooLarge(let size, let limit):
            return "the gateway sent \(size) bytes in one message, more than \(limit.description)"
        case .pairingRequired(let pairing):
            var text: String
            switch pairing.reason {
            case "metadata-upgrade":
                text = "this device is paired, but the gateway wants its changed platform details approved again (metadata-upgrade)"
            case "role-upgrade": text = "this device is paired, but not for the role it asked for (role-upgrade)"
            case "scope-upgrade": text = "this device is paired, but not for the scopes it asked for (scope-upgrade)"
            default:
                text = "this device is not approved yet"
                if let reason = pairing.reason { text += " (\(TerminalText.sanitize(reason, maxScalars: 40)))" }
            }
            if let id = pairing.requestId { text += "; pairing request \(TerminalText.sanitize(id, maxScalars: 80)) is pending" }
            return text
        case .pairingRejected(let id):
            return "the gateway rejected pairing request \(Self.describe(requestId: id))"
        case .pairingExpired(let id):
            return "pairing request \(Self.describe(requestId: id)) expired before an operator approved it"
        case .scopeMismatch(let shape):
            return "the credential does not cover the scopes asked for: \(Self.describe(shape))"
        case .protocolMismatch(let shape):
            return "the gateway does not speak this client's protocol: \(Self.protocolRange(shape))"
        case .clientVersionMismatch(let shape):
            let client = shape.details?["clientVersion"]?.stringValue.map { TerminalText.sanitize($0, maxScalars: 40) } ?? "?"
            let gateway = shape.details?["gatewayVersion"]?.stringValue.map { TerminalText.sanitize($0, maxScalars: 40) } ?? "?"
            return "the gateway refused client version \(client): it wants its own version \(gateway) [CLIENT_VERSION_MISMATCH]"
        case .authRejected(let shape):
            return "the gateway refused the credentials: \(Self.describe(shape))"
        case .deviceTokenRevoked(let role, let detail):
            return "the gateway no longer accepts this device's \(TerminalText.sanitize(role, maxScalars: 40)) token "
                + "[\(TerminalText.sanitize(detail, maxScalars: 80))]; it was removed from the registry"
        case .deviceAuthRejected(let shape):
            return "the gateway refused this device's proof: \(Self.deviceAuthReason(shape))"
        case .operatorAccessDenied(let shape):
            return "the gateway authenticated this device but grants it no operator access: \(Self.describe(shape))"
        case .identityRequired(let shape):
            return "the gateway admits only clients with an identity clawpair cannot present: \(Self.describe(shape))"
        case .gatewayStarting(let retryAfter, _):
            return "the gateway is still starting (it asked to connect again in \(Self.milliseconds(retryAfter)) ms) [UNAVAILABLE startup-sidecars]"
        case .connectRejected(let shape):
            return "the gateway refused the connection: \(Self.describe(shape))"
        case .unsupportedMethod(let method, let version):
            let release = version.map { " \(TerminalText.sanitize($0, maxScalars: 40))" } ?? ""
            return "this gateway\(release.isEmpty ? "" : " (OpenClaw\(release))") does not support \(TerminalText.sanitize(method, maxScalars: 80)) "
                + "(\(GatewayMethodSupport.availability(method)))"
        case .rpcFailed(let method, let shape) where shape.missingScope != nil:
            let scope = TerminalText.sanitize(shape.missingScope ?? "", maxScalars: 80)
            let required = shape.requiredScopes.filter { $0 != shape.missingScope }.map { TerminalText.sanitize($0, maxScalars: 80) }
            return "\(method) needs the scope \(scope), which this connection lacks"
                + (required.isEmpty ? "" : " (it also accepts: \(required.joined(separator: ", ")))") + " [MISSING_SCOPE]"
        case .rpcFailed(let method, let shape):
            return "\(method) failed: \(Self.describe(shape))"
        case .notConnected:
            return "not connected to the gateway"
        case .cancelled:
            return "stopped before the gateway answered"
        }
    }

    /// The hint of a refused device proof with no more specific advice.
    public static let checkIdentityHint = "check this machine's device identity"

    /// What to do next, in terms of the gateway (no command-line options: the clawpair
    /// executable words its own hints for these errors).
    public var hint: String? {
        switch self {
        case .invalidURL: return "use ws://HOST:PORT or wss://HOST:PORT"
        case .unreachable: return "is the gateway running?"
        case .tlsTrust(_, .pinMismatch): return "the certificate changed: if you expected that, check it and pin the new fingerprint"
        case .tlsTrust(_, let failure): return failure.hint
        case .notGateway: return "check the port (the gateway listens on 18789 by default) and the path"
        case .timedOut, .stalled: return "the gateway may be overloaded or a proxy may be holding the connection; try again"
        case .closed, .protocolViolation, .frameTooLarge: return nil
        case .pairingRequired(let pairing) where pairing.reason == "metadata-upgrade":
            return PairingRequired.metadataUpgradeExplanation + ": approve that request once on the gateway host: openclaw devices approve "
                + pairing.displayRequestId
        case .pairingRequired(let pairing):
            return "approve it on the gateway host: openclaw devices approve \(pairing.requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "<requestId>")"
        case .pairingRejected: return "pair again if that was a mistake, and ask the operator to approve the new request"
        case .pairingExpired: return "pair again and have the request approved while it is pending"
        case .scopeMismatch: return "review the device's approved scopes on the gateway; a pending upgrade must be approved first"
        case .protocolMismatch: return "update clawpair or the gateway so their protocol versions overlap"
        case .clientVersionMismatch: return "run a client of the gateway's own version"
        case .authRejected(let shape):
            return shape.credentialAdvice ?? "pass the gateway's shared token or password"
        case .deviceTokenRevoked:
            return "the token was revoked or rotated on the gateway: pair this device again with a new setup code"
        case .deviceAuthRejected(let shape):
            switch shape.detailCode {
            case "DEVICE_AUTH_SIGNATURE_EXPIRED": return "this machine's clock and the gateway's differ by more than 2 minutes: sync the clock (timedatectl, chrony)"
            case "DEVICE_AUTH_NONCE_MISMATCH", "DEVICE_AUTH_NONCE_REQUIRED": return "retry; if it persists, a proxy may be mixing connections"
            default: return Self.checkIdentityHint
            }
        case .operatorAccessDenied:
            return "an administrator of the gateway must grant this device operator access; until then every connect is refused"
        case .identityRequired(let shape):
            switch shape.detailCode {
            case "AUTH_IDENTITY_HEADER_REQUIRED":
                return "the gateway sits behind a trusted proxy that must add the user's identity: connect through that proxy"
            case "AUTH_VERIFIED_USER_REQUIRED", "AUTHENTICATED_PROFILE_UNAVAILABLE":
                return "the gateway admits verified users only: ask its administrator for a device token or shared token"
            default: return "the gateway requires a signed device identity on every connect"
            }
        case .gatewayStarting: return "wait a moment and try again"
        case .unsupportedMethod: return "update OpenClaw on the gateway"
        case .connectRejected(let shape) where shape.detailCode?.hasPrefix("CONTROL_UI_") == true:
            return "the gateway applied a Control UI rule to this connect; clawpair is not the Control UI, so check the gateway's version and configuration"
        case .connectRejected, .rpcFailed(_, _):
            if case .rpcFailed(_, let shape) = self, Self.isPermissionCode(shape) {
                return "this connection lacks the scope for it: use the gateway token, or a device approved with operator.admin or operator.pairing"
            }
            return nil
        case .notConnected, .cancelled: return nil
        }
    }

    /// Classifies a failed `connect` response.
    public static func connectFailure(_ shape: GatewayErrorShape, closeReason: String? = nil) -> GatewayError {
        switch PairingDecision(detailCode: shape.detailCode) {
        case .rejected: return .pairingRejected(requestId: shape.details?["requestId"]?.stringValue)
        case .expired: return .pairingExpired(requestId: shape.details?["requestId"]?.stringValue)
        case .approved, .superseded, nil: break
        }
        if PairingRequired.matches(shape) { return .pairingRequired(PairingRequired(shape, closeReason: closeReason)) }
        if let retryAfter = GatewayStartupRetry.retryAfter(shape) { return .gatewayStarting(retryAfter: retryAfter, shape) }
        switch shape.detailCode {
        case "OPERATOR_ACCESS_DENIED": return .operatorAccessDenied(shape)
        case "AUTH_IDENTITY_HEADER_REQUIRED", "AUTH_VERIFIED_USER_REQUIRED", "AUTHENTICATED_PROFILE_UNAVAILABLE",
             "DEVICE_IDENTITY_REQUIRED", "CONTROL_UI_DEVICE_IDENTITY_REQUIRED":
            return .identityRequired(shape)
        case "AUTH_SCOPE_MISMATCH": return .scopeMismatch(shape)
        case "PROTOCOL_MISMATCH": return .protocolMismatch(shape)
        case "CLIENT_VERSION_MISMATCH": return .clientVersionMismatch(shape)
        default: break
        }
        let detail = shape.detailCode ?? ""
        if detail.hasPrefix("DEVICE_AUTH_") { return .deviceAuthRejected(shape) }
        if detail.hasPrefix("AUTH_") || shape.code == "UNAUTHORIZED" { return .authRejected(shape) }
        if shape.detailCode == nil && isCredentialRefusal(message: shape.message) { return .authRejected(shape) }
        return .connectRejected(shape)
    }

    /// Refusal reasons sent as the whole message, with no `details.code`: joyhousebot 0.1.2
    /// (`joyhousebot/gateway/connect_auth.py`) answers `{"code": "INVALID_REQUEST", "message":
    /// "token_mismatch"}`; upstream's own messages start `unauthorized:`.
    static let bareCredentialReasons: Set<String> = [
        "token_mismatch", "token_missing", "password_mismatch", "password_missing", "device_token_mismatch",
    ]

    /// Whether a connect refusal without `details.code` says the credentials were refused.
    static func isCredentialRefusal(message: String) -> Bool {
        let text = message.lowercased()
        return bareCredentialReasons.contains(text) || text.hasPrefix("unauthorized:") || text == "unauthorized"
    }

    /// Whether the gateway refused `connect` or an RPC for lack of permission (`FORBIDDEN`,
    /// `UNAUTHORIZED`, `MISSING_SCOPE`, or the method check's `INVALID_REQUEST` "missing scope: …"
    /// / "unauthorized role: …" of upstream `authorizeGatewayMethod` in src/gateway/server-methods.ts),
    /// as opposed to failing it.
    public var isPermissionRefusal: Bool {
        switch self {
        case .connectRejected(let shape), .rpcFailed(_, let shape): return Self.isPermissionCode(shape)
        default: return false
        }
    }

    static func isPermissionCode(_ shape: GatewayErrorShape) -> Bool {
        if shape.code == "FORBIDDEN" || shape.code == "UNAUTHORIZED" || shape.detailCode == "MISSING_SCOPE" { return true }
        return shape.code == "INVALID_REQUEST"
            && (shape.message.hasPrefix("missing scope:") || shape.message.hasPrefix("unauthorized role:"))
    }

    static func describe(_ shape: GatewayErrorShape) -> String {
        let message = TerminalText.sanitize(shape.message, maxScalars: 300)
        var text = message.isEmpty ? TerminalText.sanitize(shape.code, maxScalars: 64) : message
        if let detail = shape.detailCode { text += " [\(TerminalText.sanitize(detail, maxScalars: 64))]" }
        else if !message.isEmpty { text += " [\(TerminalText.sanitize(shape.code, maxScalars: 64))]" }
        return text
    }

    /// A request id for a message (sanitized), or "(no id given)".
    public static func describe(requestId: String?) -> String {
        requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "(no id given)"
    }

    /// "the gateway speaks protocol 4, this client 3…3 [PROTOCOL_MISMATCH]" from what the
    /// details carry (`expectedProtocol`, and the client's range as the gateway read it).
    static func protocolRange(_ shape: GatewayErrorShape) -> String {
        let details = shape.details
        func number(_ key: String) -> String? {
            guard let value = details?[key]?.int64Value, (0...1000).contains(value) else { return nil }
            return String(value)
        }
        var parts: [String] = []
        if let expected = number("expectedProtocol") { parts.append("the gateway speaks protocol \(expected)") }
        let low = number("minProtocol") ?? number("clientMinProtocol"), high = number("maxProtocol") ?? number("clientMaxProtocol")
        if let low, let high { parts.append("this client \(low == high ? low : "\(low)…\(high)")") }
        return (parts.isEmpty ? describe(shape) : parts.joined(separator: ", ")) + " [PROTOCOL_MISMATCH]"
    }

    static func deviceAuthReason(_ shape: GatewayErrorShape) -> String {
        switch shape.detailCode {
        case "DEVICE_AUTH_SIGNATURE_INVALID": return "the signature does not verify [DEVICE_AUTH_SIGNATURE_INVALID]"
        case "DEVICE_AUTH_SIGNATURE_EXPIRED": return "the signature time is more than 2 minutes off the gateway's clock [DEVICE_AUTH_SIGNATURE_EXPIRED]"
        case "DEVICE_AUTH_NONCE_MISMATCH": return "the signed nonce is not this connection's challenge [DEVICE_AUTH_NONCE_MISMATCH]"
        case "DEVICE_AUTH_NONCE_REQUIRED": return "the gateway requires a signed nonce [DEVICE_AUTH_NONCE_REQUIRED]"
        case "DEVICE_AUTH_DEVICE_ID_MISMATCH": return "the deviceId is not the public key's [DEVICE_AUTH_DEVICE_ID_MISMATCH]"
        case "DEVICE_AUTH_PUBLIC_KEY_INVALID": return "the public key is not usable [DEVICE_AUTH_PUBLIC_KEY_INVALID]"
        case "DEVICE_AUTH_INVALID": return "the device block failed the gateway's checks [DEVICE_AUTH_INVALID]"
        default: return describe(shape)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
