// Reconnecting to a paired gateway with the device tokens stored for it (`clawpair gateways
// check`): one connect per stored role over the record's URLs in order, each as that role's
// client (a node as `node-host`, an operator as `cli`) with the stored token and the record's TLS
// pin. A URL that does not answer (``GatewayError/unreachable(_:phase:reason:)``) moves on to the
// next one; any other answer, accepted or refused, ends that role's attempt. The network is
// injected (``PairingTransport``: ``NetworkPairingTransport`` dials, tests answer in-process).
import ClawpairCore
import ClawpairIdentity

/// How one stored device token fared.
public struct StoredTokenCheck: Sendable {
    /// The token's role (`operator`, `node`).
    public var role: String
    /// The gateway's hello-ok, or why the token was not accepted.
    public var outcome: Result<HelloOK, GatewayError>

    /// A check of `role` that ended with `outcome`.
    public init(role: String, outcome: Result<HelloOK, GatewayError>) {
        self.role = role
        self.outcome = outcome
    }

    /// The scopes the gateway granted (none when refused).
    public var grantedScopes: [String] {
        if case .success(let hello) = outcome { return hello.scopes }
        return []
    }

    /// What happened, in one word: accepted, refused by the gateway (its credential refusals:
    /// ``GatewayError/isCredentialRefusal``), unreachable (no URL answered:
    /// ``GatewayError/isNothingAnswered``) or failed otherwise.
    public var verdict: StoredTokenVerdict {
        switch outcome {
        case .success: return .accepted
        case .failure(let error): return error.isNothingAnswered ? .unreachable : error.isCredentialRefusal ? .refused : .failed
        }
    }

    /// The verdict for people: `accepted (scopes a,b)` (`accepted` when no scope was granted),
    /// `refused`, `unreachable` or `failed`.
    public var summary: String {
        guard verdict == .accepted, !grantedScopes.isEmpty else { return verdict.rawValue }
        return "accepted (scopes \(grantedScopes.joined(separator: ",")))"
    }

    /// `{role, ok, scopes, error}`; `error` is the caller's rendering of the failure (`null`
    /// when the token was accepted).
    public func json(error: JSONValue = .null) -> JSONValue {
        let ok = verdict == .accepted
        return .object([("role", .string(role)), ("ok", .bool(ok)), ("scopes", .array(grantedScopes.map(JSONValue.string))),
                        ("error", ok ? .null : error)])
    }
}

/// How a stored token fared, in one word (``StoredTokenCheck/verdict``).
public enum StoredTokenVerdict: String, Sendable, Equatable {
    /// The gateway accepted the token (hello-ok).
    case accepted
    /// The gateway answered and refused the token (revoked, rotated or removed).
    case refused
    /// No URL of the record answered.
    case unreachable
    /// The gateway answered and the connect failed otherwise.
    case failed
}

/// What ``PairedGateway/checkTokens(identity:pin:timeout:transport:)`` found.
public struct PairedGatewayCheck: Sendable {
    /// One entry per stored token, in the record's order.
    public var results: [StoredTokenCheck]
    /// The URL that last answered a connect, when one did.
    public var answeredURL: String?
    /// Tokens the gateway's hello-ok issued in place of the stored ones (`auth.deviceToken` for
    /// the role connected, when it differs): upstream's clients store the hello-ok's device
    /// token for the next connect (`src/gateway/client.ts`, `storeDeviceAuthToken`), so pass
    /// these to ``GatewayRegistry/recordAnswer(id:url:nowMs:reissued:)``. Secrets.
    public var reissued: [StoredDeviceToken]

    /// A check's results, the URL that answered and the tokens the gateway issued anew.
    public init(results: [StoredTokenCheck], answeredURL: String?, reissued: [StoredDeviceToken] = []) {
        self.results = results
        self.answeredURL = answeredURL
        self.reissued = reissued
    }

    /// `{gateway: gatewayID, url, results: [StoredTokenCheck.json...]}`, each failed result with
    /// the caller's rendering of its error from `errors` (in the order of ``results``; `null` when missing).
    public func json(gatewayID: String, errors: [JSONValue] = []) -> JSONValue {
        let rendered = results.enumerated().map { index, result in result.json(error: index < errors.count ? errors[index] : .null) }
        return .object([("gateway", .string(gatewayID)), ("url", answeredURL.map(JSONValue.string) ?? .null),
                        ("results", .array(rendered))])
    }
}

extension PairedGateway {
    /// Whether tokens are stored and were issued to `deviceId` (this machine's identity).
    public func holdsTokens(for deviceId: String) -> Bool {
        !tokens.isEmpty && self.deviceId == deviceId
    }

    /// Connects once per stored token, as that token's role, over ``urls`` in order (``tlsFingerprint``
    /// pins `wss://` URLs unless `pin` replaces it); the client reports ``deviceName`` (else this
    /// host's name) and ``GatewayClientInfo/linuxPlatform``. The record is not changed: pass ``PairedGatewayCheck/answeredURL``
    /// and ``PairedGatewayCheck/reissued`` to ``GatewayRegistry/recordAnswer(id:url:nowMs:reissued:)``.
    /// A record without a URL that parses
    /// gets ``GatewayError/notConnected`` for every role.
    public func checkTokens(identity: DeviceIdentity, pin: String? = nil, timeout: Duration,
                            transport: any PairingTransport) -> PairedGatewayCheck {
        let displayName = deviceName ?? HostName.current(fallback: "linux")
        var results: [StoredTokenCheck] = []
        var answeredURL: String?
        var reissued: [StoredDeviceToken] = []
        for token in tokens {
            let role = GatewayRole(rawValue: token.role) ?? .operator
            let client: GatewayClientInfo = role == .node
                ? .nodeHost(version: ClawpairVersion.current, displayName: displayName)
                : .operatorCLI(version: ClawpairVersion.current, displayName: displayName)
            let request = ConnectRequest(client: client, role: role, scopes: role == .node ? [] : token.scopes,
                                         auth: ConnectAuth(token: token.token))
            var outcome: Result<HelloOK, GatewayError> = .failure(.notConnected)
            for url in urls {
                guard var endpoint = try? GatewayEndpoint(parsing: url) else { continue }
                if endpoint.tls { endpoint.pin = pin ?? tlsFingerprint }
                do {
                    outcome = .success(try transport.connect(request, to: endpoint, identity: identity, timeout: timeout).hello)
                    answeredURL = endpoint.url
                    break
                } catch {
                    outcome = .failure(error)
                    if case .unreachable = error { continue }
                    break
                }
            }
            results.append(StoredTokenCheck(role: token.role, outcome: outcome))
            if case .success(let hello) = outcome, let issued = hello.deviceToken, issued.role == token.role,
               issued.token != token.token {
                reissued.append(issued)
            }
        }
        return PairedGatewayCheck(results: results, answeredURL: answeredURL, reissued: reissued)
    }
}

extension GatewayRegistry {
    /// The gateway called `name` (or with that id), else with `name` nil the chosen one;
    /// ``GatewayRegistryError/unknownGateway(_:known:)`` names `(default)` when none is chosen.
    public func gateway(namedOrChosen name: String?) throws(GatewayRegistryError) -> PairedGateway {
        if let name { return try gateway(named: name) }
        guard let active = active() else { throw .unknownGateway("(default)", known: list().gateways.map(\.name)) }
        return active
    }

    /// Records that `url` of the gateway with this id answered at `nowMs`: its last-seen time,
    /// `url` first among its URLs when it is still one of them, and the tokens it issued anew
    /// (``PairedGatewayCheck/reissued``) in place of the stored ones for their roles. Changes the
    /// record as it is now (a concurrent `forget` wins, a token stored meanwhile for another role
    /// is kept, a route removed meanwhile stays removed: a new route is added only through
    /// ``adoptRoute(_:forRecord:proof:nowMs:replacingRoutes:)``, with proof); nil when the record is gone.
    @discardableResult
    public func recordAnswer(id: String, url: String, nowMs: Int64,
                             reissued: [StoredDeviceToken] = []) throws(GatewayRegistryError) -> PairedGateway? {
        try update(id: id) { record in
            record.lastSeenAtMs = nowMs
            if let index = record.urls.firstIndex(where: { PairedGateway.sameRoute($0, url) }) {
                let stored = record.urls.remove(at: index)
                record.urls.removeAll { PairedGateway.sameRoute($0, url) }
                record.urls.insert(stored, at: 0)
            }
            for token in reissued { record.store(token) }
        }
    }
}

extension PairedGateway {
    /// Whether two spellings name the same route: equal ignoring case and trailing slashes, or
    /// the same endpoint once parsed (a stored `ws://host` and the `ws://host:18789` a session
    /// connected to).
    static func sameRoute(_ stored: String, _ url: String) -> Bool {
        if canonical(stored) == canonical(url) { return true }
        guard let parsed = try? GatewayEndpoint(parsing: stored), let other = try? GatewayEndpoint(parsing: url) else { return false }
        return canonical(parsed.url) == canonical(other.url)
    }
}
