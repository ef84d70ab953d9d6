// The stable codes (``ClawpairError/code``) and JSON details of the gateway, pairing and
// registry errors, and the descriptions of where an operator credential came from.

import ClawpairCore

extension GatewayError {
    /// The kebab-case name of the case: `invalid-url`, `unreachable`, `tls-trust`, `not-gateway`,
    /// `timeout`, `stalled`, `closed`, `protocol-violation`, `frame-too-large`, `pairing-required`,
    /// `pairing-rejected`, `pairing-expired`, `scope-mismatch`, `protocol-mismatch`,
    /// `client-version-mismatch`, `auth-rejected`, `device-token-revoked`, `device-auth-rejected`, `operator-access-denied`,
    /// `identity-required`, `gateway-starting`, `connect-rejected`, `unsupported-method`, `rpc-failed` (`missing-scope`
    /// when the gateway names the scope a call lacked), `not-connected` or `cancelled`.
    public var code: String {
        switch self {
        case .invalidURL: return "invalid-url"
        case .unreachable: return "unreachable"
        case .tlsTrust: return "tls-trust"
        case .notGateway: return "not-gateway"
        case .timedOut: return "timeout"
        case .stalled: return "stalled"
        case .closed: return "closed"
        case .protocolViolation: return "protocol-violation"
        case .frameTooLarge: return "frame-too-large"
        case .pairingRequired: return "pairing-required"
        case .pairingRejected: return "pairing-rejected"
        case .pairingExpired: return "pairing-expired"
        case .scopeMismatch: return "scope-mismatch"
        case .protocolMismatch: return "protocol-mismatch"
        case .clientVersionMismatch: return "client-version-mismatch"
        case .authRejected: return "auth-rejected"
        case .deviceTokenRevoked: return "device-token-revoked"
        case .deviceAuthRejected: return "device-auth-rejected"
        case .operatorAccessDenied: return "operator-access-denied"
        case .identityRequired: return "identity-required"
        case .gatewayStarting: return "gateway-starting"
        case .connectRejected: return "connect-rejected"
        case .unsupportedMethod: return "unsupported-method"
        case .rpcFailed(_, let shape): return shape.missingScope != nil ? "missing-scope" : "rpc-failed"
        case .notConnected: return "not-connected"
        case .cancelled: return "cancelled"
        }
    }

    /// Whether the gateway (or TLS trust) refused this client rather than failing: the
    /// certificate, the credentials, the device proof, a pairing request pending, rejected or
    /// expired, the scopes, or a missing permission (``isPermissionRefusal``). Someone has to act
    /// (approve, pass a credential, check a certificate) before trying again helps.
    public var isRefusal: Bool {
        switch self {
        case .tlsTrust, .pairingRequired, .authRejected, .deviceTokenRevoked, .deviceAuthRejected, .pairingRejected, .pairingExpired, .scopeMismatch,
             .operatorAccessDenied, .identityRequired:
            return true
        case .connectRejected, .rpcFailed: return isPermissionRefusal
        case .invalidURL, .unreachable, .notGateway, .timedOut, .stalled, .closed, .protocolViolation, .frameTooLarge,
             .protocolMismatch, .clientVersionMismatch, .notConnected, .gatewayStarting, .unsupportedMethod, .cancelled:
            return false
        }
    }

    /// What a JSON report of the error carries besides its code and message: a pairing
    /// request's `requestId` (and `reason`, for a pending one), or the gateway's own error
    /// object as `gateway`; empty for the other cases.
    public var jsonDetails: [(String, JSONValue)] {
        switch self {
        case .pairingRequired(let pairing):
            return [("requestId", pairing.requestId.map(JSONValue.string) ?? .null),
                    ("reason", pairing.reason.map(JSONValue.string) ?? .null)]
        case .pairingRejected(let id), .pairingExpired(let id):
            return [("requestId", id.map(JSONValue.string) ?? .null)]
        case .authRejected(let shape), .deviceAuthRejected(let shape), .connectRejected(let shape), .rpcFailed(_, let shape),
             .scopeMismatch(let shape), .protocolMismatch(let shape), .clientVersionMismatch(let shape),
             .operatorAccessDenied(let shape), .identityRequired(let shape), .gatewayStarting(_, let shape):
            return [("gateway", shape.json)]
        case .unsupportedMethod(let method, let version):
            return [("method", .string(method)), ("serverVersion", version.map(JSONValue.string) ?? .null)]
        case .deviceTokenRevoked(let role, _):
            return [("role", .string(role))]
        case .invalidURL, .unreachable, .tlsTrust, .notGateway, .timedOut, .stalled, .closed, .protocolViolation,
             .frameTooLarge, .notConnected, .cancelled:
            return []
        }
    }
}

extension PairingRequired {
    /// The request id for a message or a command line, sanitized, or `<requestId>` when the
    /// gateway sent none.
    public var displayRequestId: String {
        requestId.map { TerminalText.sanitize($0, maxScalars: 80) } ?? "<requestId>"
    }
}

extension PairingError: ClawpairError {
    /// The error a ``gateway(_:)``, ``transport(_:)``, ``identity(_:)`` or ``registry(_:)``
    /// failure wraps; nil for the pairing's own failures.
    public var cause: (any Error)? {
        switch self {
        case .gateway(let inner): return inner
        case .transport(let inner): return inner
        case .identity(let inner): return inner
        case .registry(let inner): return inner
        case .codeExpired, .noCredential, .noRoute, .notApproved, .rejected, .requestExpired: return nil
        }
    }

    /// `code-expired`, `no-credential`, `no-route`, `not-approved`, `rejected` or
    /// `request-expired`; a wrapped error's own code (``cause``).
    public var code: String {
        switch self {
        case .codeExpired: return "code-expired"
        case .noCredential: return "no-credential"
        case .noRoute: return "no-route"
        case .notApproved: return "not-approved"
        case .rejected: return "rejected"
        case .requestExpired: return "request-expired"
        case .gateway, .transport, .identity, .registry: return (cause as? any ClawpairError)?.code ?? "error"
        }
    }
}

extension GatewayRegistryError: ClawpairError {
    /// `unknown-gateway`, `name-taken`, else `registry-error`.
    public var code: String {
        switch self {
        case .unknownGateway: return "unknown-gateway"
        case .nameTaken: return "name-taken"
        case .damaged, .insecureFile, .symlink, .tooManyRecords, .recordTooLarge, .io: return "registry-error"
        case .lockTimeout: return "registry-busy"
        }
    }

    /// What to do where the registry can tell: `chmod 600` a record others can read.
    public var hint: String? {
        guard case .insecureFile(let path, _) = self else { return nil }
        return "run: chmod 600 \(path)"
    }

    /// The id of the record a path names (`…/gateways/<id>.json`), when the error is about one
    /// (``damaged(path:reason:)``, ``symlink(path:)``): what to forget to get rid of it.
    public var recordID: String? {
        let path: String
        switch self {
        case .damaged(let file, _), .symlink(let file): path = file
        default: return nil
        }
        guard path.hasSuffix(".json"), let slash = path.lastIndex(of: "/") else { return nil }
        let id = String(path[path.index(after: slash)...].dropLast(5))
        return PairedGateway.isValidID(id) ? id : nil
    }
}

extension OperatorCredentialSource: CustomStringConvertible {
    /// Where the credential came from, for a log line: "the explicit token",
    /// "OPENCLAW_GATEWAY_TOKEN", "gateway.auth.token in /home/u/.openclaw/openclaw.json", …
    /// (names from a registry are sanitized).
    public var description: String {
        switch self {
        case .explicitToken: return "the explicit token"
        case .explicitPassword: return "the explicit password"
        case .environmentToken: return OperatorEnvironment.token
        case .environmentPassword: return OperatorEnvironment.password
        case .storedDeviceToken(let gateway): return "the operator device token stored for '\(TerminalText.sanitize(gateway, maxScalars: 80))'"
        case .configToken(let path): return "gateway.auth.token in \(path)"
        case .configPassword(let path): return "gateway.auth.password in \(path)"
        case .none: return "no credential"
        }
    }
}
