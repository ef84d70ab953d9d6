// Which registry record an answered route belongs to.
//
// A record is one gateway *identity*, not a list of addresses: a route may join a record (or
// move to the front of its routes) only when the gateway that answered there proved it is that
// record's gateway, in one of three ways, none of which hands a secret to a gateway that has not
// proved itself first:
//
//   pin matched          the route is wss:// and the certificate it presented has the SHA-256
//                        fingerprint stored in the record (the TLS handshake proved it; nothing
//                        secret is sent);
//   stored token issued  the gateway's hello-ok handed this device the very device token the
//                        record stores for that role (upstream reissues an unrevoked token whose
//                        scopes cover the request: `src/infra/device-pairing.ts`,
//                        `ensureDeviceToken`), which only the gateway that issued it knows;
//   stored token accepted  a connect signed by this device with the record's stored token got
//                        hello-ok. This one *sends* the stored token: ``PairedGateway/proveIdentity(at:identity:timeout:transport:)``
//                        does it only at a URL that is already one of the record's routes (where
//                        every operator command sends it anyway), never at a new one.
//
// A URL a setup code merely lists, or a route that answered without such a proof, never changes
// another record's routes or pin (issue #25.1: a code whose fallback URLs named the user's
// gateway was merged into the user's record, and its pin and first URL replaced the user's).
//
// For callers that find a gateway elsewhere (discovery relocating a moved gateway, a node's
// reconnect): prove the route with ``PairedGateway/identityProof(certificateFingerprint:issued:deviceId:)``
// or ``PairedGateway/proveIdentity(at:identity:timeout:transport:)``, then record it with
// ``GatewayRegistry/adoptRoute(_:forRecord:proof:nowMs:replacingRoutes:)``, one transaction
// under the registry lock.

import ClawpairCore
import ClawpairIdentity

/// How the gateway that answered at a route proved it is a registry record's gateway.
public enum GatewayIdentityProof: Sendable, Equatable {
    /// Its TLS certificate has the record's stored SHA-256 fingerprint (64 lowercase hex).
    case pinMatched(fingerprint: String)
    /// Its hello-ok issued this device the token the record stores for `role`.
    case storedTokenIssued(role: String)
    /// It accepted the token the record stores for `role` (hello-ok to a connect with it).
    case storedTokenAccepted(role: String)

    /// The proof in a few words, for people: `TLS pin matched`, `stored node token reissued`, …
    public var summary: String {
        switch self {
        case .pinMatched: return "TLS pin matched"
        case .storedTokenIssued(let role): return "stored \(TerminalTextRole.safe(role)) token reissued"
        case .storedTokenAccepted(let role): return "stored \(TerminalTextRole.safe(role)) token accepted"
        }
    }

    /// `{"kind": "pin" | "tokenIssued" | "tokenAccepted", "role"?: …}` (no secret).
    public var json: JSONValue {
        switch self {
        case .pinMatched(let fingerprint): return .object([("kind", "pin"), ("fingerprint", .string(fingerprint))])
        case .storedTokenIssued(let role): return .object([("kind", "tokenIssued"), ("role", .string(role))])
        case .storedTokenAccepted(let role): return .object([("kind", "tokenAccepted"), ("role", .string(role))])
        }
    }
}

/// Role names shown inside a proof summary: only a valid name, else `?`.
enum TerminalTextRole {
    static func safe(_ role: String) -> String {
        GatewayNames.isValid(role) ? role : "?"
    }
}

extension PairedGateway {
    /// The proof, if any, that the gateway which answered a route with this outcome is this
    /// record's gateway, without sending it anything: `certificateFingerprint` (the SHA-256 of
    /// the certificate a wss:// route presented; nil for ws://) equals the stored pin, or one of
    /// `issued` (the hello-ok's device token and hand-off tokens) is the token this record
    /// stores for its role and `deviceId`. A pinned record answered over TLS by another
    /// certificate is never proved.
    public func identityProof(certificateFingerprint: String?, issued: [StoredDeviceToken], deviceId: String) -> GatewayIdentityProof? {
        if let pin = tlsFingerprint, let seen = certificateFingerprint {
            // A pinned gateway's identity is its certificate: another one over TLS proves nothing.
            return !pin.isEmpty && pin == seen.lowercased() ? .pinMatched(fingerprint: pin) : nil
        }
        for token in issued {
            if let stored = self.token(for: token.role, deviceId: deviceId), stored.token == token.token {
                return .storedTokenIssued(role: token.role)
            }
        }
        return nil
    }

    /// Proves that the gateway at `endpoint` is this record's gateway: a matching pin when the
    /// route is wss:// (the connect then authenticates with the stored token over the pinned
    /// connection), else a connect signed by `identity` with the record's stored token that
    /// gets hello-ok. The stored token is sent only when `endpoint` is one of ``urls`` (where
    /// operator commands send it anyway) or the pin already held: nil, without dialling, for
    /// a new plaintext URL. Nil when no token is stored for `identity`, or when the gateway
    /// refused or did not answer.
    public func proveIdentity(at endpoint: GatewayEndpoint, identity: DeviceIdentity, timeout: Duration,
                              transport: any PairingTransport) -> GatewayIdentityProof? {
        var endpoint = endpoint
        let pinned = endpoint.tls && tlsFingerprint != nil
        guard pinned || matches(url: endpoint.url) else { return nil }
        if pinned { endpoint.pin = tlsFingerprint }
        guard let stored = tokens.first(where: { $0.role == GatewayRole.node.rawValue }) ?? tokens.first,
              self.deviceId == identity.deviceId, let role = GatewayRole(rawValue: stored.role) else { return nil }
        let displayName = deviceName ?? HostName.current(fallback: "linux")
        let client: GatewayClientInfo = role == .node
            ? .nodeHost(version: ClawpairVersion.current, displayName: displayName)
            : .operatorCLI(version: ClawpairVersion.current, displayName: displayName)
        let request = ConnectRequest(client: client, role: role, scopes: role == .node ? [] : stored.scopes,
                                     auth: ConnectAuth(token: stored.token))
        do {
            _ = try transport.connect(request, to: endpoint, identity: identity, timeout: timeout)
        } catch {
            return nil
        }
        if pinned, let pin = tlsFingerprint { return .pinMatched(fingerprint: pin) }
        return .storedTokenAccepted(role: stored.role)
    }
}

extension GatewayRegistry {
    /// Records that `url` answered as the gateway of the record with this id, which `proof`
    /// showed: `url` becomes its first route (with `replacingRoutes`, its only one: a gateway
    /// that moved), its last-seen time `nowMs`. One transaction under the registry lock; no other
    /// record is changed. Returns the record as written; nil when it was forgotten meanwhile.
    /// The proof is the caller's: get it from ``PairedGateway/identityProof(certificateFingerprint:issued:deviceId:)``
    /// or ``PairedGateway/proveIdentity(at:identity:timeout:transport:)`` for the same route.
    @discardableResult
    public func adoptRoute(_ url: String, forRecord id: String, proof: GatewayIdentityProof, nowMs: Int64,
                           replacingRoutes: Bool = false) throws(GatewayRegistryError) -> PairedGateway? {
        if case .pinMatched(let fingerprint) = proof, fingerprint.isEmpty { return nil }
        return try update(id: id) { record in
            if case .pinMatched(let fingerprint) = proof, record.tlsFingerprint != fingerprint { return }
            if replacingRoutes { record.urls = [] }
            record.urls.removeAll { PairedGateway.canonical($0) == PairedGateway.canonical(url) }
            record.urls.insert(url, at: 0)
            record.lastSeenAtMs = nowMs
        }
    }
}

extension RegistrySnapshot {
    /// The record the answered route belongs to, and how that was proved (see
    /// ``PairedGateway/identityProof(certificateFingerprint:issued:deviceId:)``): a pin match
    /// first, then a reissued stored token. Nil when no record is proved.
    public func record(provedBy certificateFingerprint: String?, issued: [StoredDeviceToken],
                       deviceId: String) -> (record: PairedGateway, proof: GatewayIdentityProof)? {
        var byToken: (PairedGateway, GatewayIdentityProof)?
        for gateway in gateways {
            guard let proof = gateway.identityProof(certificateFingerprint: certificateFingerprint, issued: issued, deviceId: deviceId) else {
                continue
            }
            if case .pinMatched = proof { return (gateway, proof) }
            if byToken == nil { byToken = (gateway, proof) }
        }
        return byToken
    }
}
