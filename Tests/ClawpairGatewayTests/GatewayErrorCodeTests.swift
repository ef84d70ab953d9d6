import ClawpairCore
import ClawpairGateway
import ClawpairTestSupport
import Testing

/// The codes and JSON details of the gateway, pairing and registry errors, and the credential
/// source descriptions.
@Suite("gateway error codes and details")
struct GatewayErrorCodeTests {
    static let shape = GatewayErrorShape(code: "INVALID_REQUEST", message: "missing scope: operator.pairing")

    @Test("every gateway error has its own kebab-case code")
    func gatewayCodes() {
        let cases: [(GatewayError, String)] = [
            (.invalidURL("x", reason: "r"), "invalid-url"), (.unreachable(url: "u", phase: "tcp", reason: "r"), "unreachable"),
            (.tlsTrust(url: "u", .certificateUnavailable), "tls-trust"), (.notGateway(url: "u", reason: "r"), "not-gateway"),
            (.timedOut(what: "w", after: .seconds(1)), "timeout"), (.stalled(silentFor: .seconds(2), tickInterval: .seconds(1)), "stalled"),
            (.closed(code: 1006, reason: "", during: "d"), "closed"), (.protocolViolation("p"), "protocol-violation"),
            (.frameTooLarge(size: 9, limit: .announced(bytes: 1)), "frame-too-large"), (.pairingRequired(PairingRequired()), "pairing-required"),
            (.pairingRejected(requestId: nil), "pairing-rejected"), (.pairingExpired(requestId: nil), "pairing-expired"),
            (.scopeMismatch(Self.shape), "scope-mismatch"), (.protocolMismatch(Self.shape), "protocol-mismatch"),
            (.clientVersionMismatch(Self.shape), "client-version-mismatch"), (.authRejected(Self.shape), "auth-rejected"),
            (.deviceAuthRejected(Self.shape), "device-auth-rejected"), (.connectRejected(Self.shape), "connect-rejected"),
            (.rpcFailed(method: "m", Self.shape), "missing-scope"), (.notConnected, "not-connected"),
            (.rpcFailed(method: "m", GatewayErrorShape(code: "UNAVAILABLE", message: "busy")), "rpc-failed"),
            (.operatorAccessDenied(Self.shape), "operator-access-denied"), (.identityRequired(Self.shape), "identity-required"),
            (.gatewayStarting(retryAfter: .seconds(1), Self.shape), "gateway-starting"),
        ]
        for (error, code) in cases { #expect(error.code == code, "\(error)") }
        #expect(Set(cases.map(\.1)).count == cases.count)
    }

    @Test("refusals: trust, credentials, device proof, pairing, scopes and missing permission; not failures or silence")
    func refusals() {
        let refused: [GatewayError] = [
            .tlsTrust(url: "u", .certificateUnavailable), .pairingRequired(PairingRequired()), .authRejected(Self.shape),
            .deviceAuthRejected(Self.shape), .pairingRejected(requestId: nil), .pairingExpired(requestId: "r"),
            .scopeMismatch(Self.shape), .rpcFailed(method: "m", Self.shape), .connectRejected(Self.shape),
            .operatorAccessDenied(Self.shape), .identityRequired(Self.shape),
        ]
        for error in refused { #expect(error.isRefusal, "\(error)") }
        let other = GatewayErrorShape(code: "UNAVAILABLE", message: "busy")
        let failed: [GatewayError] = [
            .invalidURL("x", reason: "r"), .unreachable(url: "u", phase: "challenge", reason: "r"), .notGateway(url: "u", reason: "r"),
            .timedOut(what: "w", after: .seconds(1)), .stalled(silentFor: .seconds(2), tickInterval: .seconds(1)),
            .closed(code: 1006, reason: "", during: "d"), .protocolViolation("p"), .frameTooLarge(size: 9, limit: .announced(bytes: 1)),
            .protocolMismatch(Self.shape), .clientVersionMismatch(Self.shape), .rpcFailed(method: "m", other),
            .connectRejected(other), .notConnected,
        ]
        for error in failed { #expect(!error.isRefusal, "\(error)") }
    }

    @Test("JSON details: a pairing request's id and reason, the gateway's own error object, else none")
    func details() {
        let pending = GatewayError.pairingRequired(PairingRequired(requestId: "req-1", reason: "not-paired"))
        #expect(JSONValue.object(pending.jsonDetails) == .object([("requestId", .string("req-1")), ("reason", .string("not-paired"))]))
        #expect(JSONValue.object(GatewayError.pairingRequired(PairingRequired()).jsonDetails)
                == .object([("requestId", .null), ("reason", .null)]))
        #expect(JSONValue.object(GatewayError.pairingExpired(requestId: "r").jsonDetails) == .object([("requestId", .string("r"))]))
        #expect(JSONValue.object(GatewayError.rpcFailed(method: "m", Self.shape).jsonDetails) == .object([("gateway", Self.shape.json)]))
        #expect(GatewayError.timedOut(what: "w", after: .seconds(1)).jsonDetails.isEmpty)
    }

    @Test("a pairing failure has its own code, or the code of the error it wraps")
    func pairingCodes() {
        #expect(PairingError.codeExpired(expiresAtMs: 1).code == "code-expired")
        #expect(PairingError.noCredential.code == "no-credential")
        #expect(PairingError.noRoute(failures: [], trustFailure: false).code == "no-route")
        #expect(PairingError.notApproved(requestId: nil, waitedMs: 1).code == "not-approved")
        #expect(PairingError.rejected(requestId: nil, reason: "").code == "rejected")
        #expect(PairingError.requestExpired(requestId: nil).code == "request-expired")
        let unreachable = GatewayError.unreachable(url: "u", phase: "tcp", reason: "r")
        #expect(PairingError.gateway(unreachable).code == "unreachable")
        #expect(PairingError.gateway(unreachable).cause as? GatewayError == unreachable)
        #expect(PairingError.registry(.nameTaken("a")).code == "name-taken")
        #expect(PairingError.identity(AtomicFileError.exists(path: "/x")).code == "exists")
        struct Opaque: Error {}
        #expect(PairingError.identity(Opaque()).code == "error")
        #expect(PairingError.noCredential.cause == nil)
    }

    @Test("registry errors: codes, and the id of the record a damaged file or link holds")
    func registry() {
        #expect(GatewayRegistryError.unknownGateway("a", known: []).code == "unknown-gateway")
        #expect(GatewayRegistryError.nameTaken("a").code == "name-taken")
        #expect(GatewayRegistryError.io("x").code == "registry-error")
        #expect(GatewayRegistryError.damaged(path: "/h/gateways/gw-0a1b.json", reason: "r").recordID == "gw-0a1b")
        #expect(GatewayRegistryError.symlink(path: "/h/gateways/gw-ff.json").recordID == "gw-ff")
        #expect(GatewayRegistryError.damaged(path: "/h/gateways/notes.json", reason: "r").recordID == nil)
        #expect(GatewayRegistryError.damaged(path: "/h/gateways/gw-0a1b.txt", reason: "r").recordID == nil)
        #expect(GatewayRegistryError.nameTaken("gw-0a1b").recordID == nil)
        #expect(GatewayRegistryError.insecureFile(path: "/h/gateways/gw-ff.json", mode: 0o644).hint == "run: chmod 600 /h/gateways/gw-ff.json")
        #expect(GatewayRegistryError.io("x").hint == nil)
    }

    @Test("a request id for display: sanitized, or <requestId> when the gateway sent none")
    func displayRequestId() {
        #expect(PairingRequired(requestId: "req-1").displayRequestId == "req-1")
        #expect(PairingRequired().displayRequestId == "<requestId>")
        #expect(!PairingRequired(requestId: "r\u{1B}[2J").displayRequestId.contains("\u{1B}"))
    }

    @Test("credential sources describe themselves; the library's hints name no command line")
    func sources() {
        #expect(OperatorCredentialSource.environmentToken.description == "OPENCLAW_GATEWAY_TOKEN")
        #expect(OperatorCredentialSource.explicitPassword.description == "the explicit password")
        let stored = OperatorCredentialSource.storedDeviceToken(gateway: "lab\u{1B}[2J").description
        #expect(stored == "the operator device token stored for '\(TerminalText.sanitize("lab\u{1B}[2J"))'")
        #expect(!stored.contains("\u{1B}"))
        #expect(OperatorCredentialSource.configToken(path: "/c.json").description == "gateway.auth.token in /c.json")
        #expect(OperatorCredentialSource.none.description == "no credential")
        let errors: [any ClawpairError] = [OperatorSessionError.emptyCredential(variable: OperatorEnvironment.token),
                                           PairingError.noCredential, GatewayRegistryError.nameTaken("a")]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
    }
}

/// `WrongScheme.diagnose` and the one-line summaries of a session.
@Suite("wrong-scheme diagnosis and session summaries")
struct WrongSchemeDiagnosisTests {
    static let plain = GatewayEndpoint(host: "gw.example", port: 18789, tls: false)
    static let secure = GatewayEndpoint(host: "gw.example", port: 18789, tls: true)

    @Test("ws:// answered by a TLS port and wss:// refused by a plaintext one are the wrong scheme when the other works")
    func diagnoses() {
        let notGateway = GatewayError.notGateway(url: "ws://gw.example:18789/", reason: "closed")
        #expect(WrongScheme.diagnose(notGateway, endpoint: Self.plain) { _ in "wss://gw.example:18789/" }
                == WrongScheme(url: "wss://gw.example:18789/", explanation: "this port speaks TLS"))
        let handshake = GatewayError.unreachable(url: "wss://gw.example:18789/", phase: "tls", reason: "wrong version number")
        #expect(WrongScheme.diagnose(handshake, endpoint: Self.secure) { _ in "ws://gw.example:18789/" }
                == WrongScheme(url: "ws://gw.example:18789/", explanation: "this port speaks plaintext WebSocket, not TLS"))
        // The other scheme does not work either: no diagnosis.
        #expect(WrongScheme.diagnose(notGateway, endpoint: Self.plain) { _ in nil } == nil)
    }

    @Test("other failures are not probed")
    func otherFailures() {
        var probed = 0
        let check: (GatewayEndpoint) -> String? = { _ in probed += 1; return "x" }
        #expect(WrongScheme.diagnose(GatewayError.unreachable(url: "u", phase: "tcp", reason: "refused"), endpoint: Self.secure,
                                     otherScheme: check) == nil)
        #expect(WrongScheme.diagnose(GatewayError.notGateway(url: "u", reason: "r"), endpoint: Self.secure, otherScheme: check) == nil)
        #expect(WrongScheme.diagnose(GatewayError.unreachable(url: "u", phase: "tls", reason: "r"), endpoint: Self.plain,
                                     otherScheme: check) == nil)
        #expect(WrongScheme.diagnose(IdentityErrorStandIn(), endpoint: Self.plain, otherScheme: check) == nil)
        #expect(probed == 0)
    }

    struct IdentityErrorStandIn: Error {}

    @Test("summaries name the URL, the paired gateway, and what hello-ok said")
    func summaries() throws {
        let target = OperatorTarget(endpoint: Self.secure, record: nil, source: .defaultURL)
        #expect(target.summary == Self.secure.url)
        let record = PairedGateway(name: "lab", urls: [Self.secure.url], deviceId: "d0", pairedAtMs: 1)
        #expect(OperatorTarget(endpoint: Self.secure, record: record, source: .registryGateway).summary
                == Self.secure.url + " (paired gateway 'lab')")
        let hello = try #require(HelloOK(["type": "hello-ok", "protocol": 4, "server": ["version": "2026.7.1"],
                                          "auth": ["role": "operator", "scopes": ["operator.admin", "operator.pairing"]]]))
        #expect(hello.summary == "protocol 4, gateway 2026.7.1, role operator, scopes operator.admin,operator.pairing")
        #expect(try #require(HelloOK(["type": "hello-ok", "protocol": 3])).summary == "protocol 3, gateway ?, role ?, scopes ")
    }
}

/// `TrustRemedy` and `OperatorTargetChoice(url:registryGateway:)`.
@Suite("trust remedies and target choice")
struct TrustRemedyTests {
    @Test("an untrusted certificate is accepted, a changed one re-pinned; nothing else has a remedy")
    func remedies() {
        let untrusted = GatewayError.tlsTrust(url: "wss://g", .untrustedCertificate(observed: "ab12", reason: "self-signed"))
        #expect(TrustRemedy(untrusted) == .accept(fingerprint: "ab12"))
        #expect(TrustRemedy(untrusted)?.advice.hasSuffix("then accept it") == true)
        let changed = GatewayError.tlsTrust(url: "wss://g", .pinMismatch(expected: "aa", observed: "bb"))
        #expect(TrustRemedy(changed) == .repin(fingerprint: "bb"))
        #expect(TrustRemedy(changed)?.fingerprint == "bb")
        #expect(TrustRemedy(GatewayError.tlsTrust(url: "wss://g", .untrustedCertificate(observed: nil, reason: nil))) == nil)
        #expect(TrustRemedy(GatewayError.tlsTrust(url: "wss://g", .certificateUnavailable)) == nil)
        #expect(TrustRemedy(GatewayError.notConnected) == nil)
        let advice = TrustRemedy.accept(fingerprint: "a").advice + " " + TrustRemedy.repin(fingerprint: "a").advice
        #expect(LibraryHints.commandLineWords(in: advice).isEmpty)
    }

    @Test("a URL, else a registry gateway, else automatic; both is no choice")
    func choice() {
        #expect(OperatorTargetChoice(url: "ws://h:1", registryGateway: nil) == .url("ws://h:1"))
        #expect(OperatorTargetChoice(url: nil, registryGateway: "lab") == .registryGateway("lab"))
        #expect(OperatorTargetChoice(url: nil, registryGateway: nil) == .automatic)
        #expect(OperatorTargetChoice(url: "ws://h:1", registryGateway: "lab") == nil)
    }
}
