import ClawpairCore
import ClawpairIdentity
import ClawpairProbe
import ClawpairSetupCode
import ClawpairTestSupport
import Testing
@testable import ClawpairGateway

/// `signatures` vectors: a `ConnectRequest` with the vector's fields signs exactly the vector's
/// payload, and (Ed25519 being deterministic) produces its signature.
struct SignatureVector: Decodable, Sendable, CustomStringConvertible {
    struct Fields: Decodable, Sendable {
        let clientId: String
        let clientMode: String
        let role: String
        let scopes: [String]
        let signedAtMs: Int64
        let token: String
        let nonce: String
        let platform: String?
        let deviceFamily: String?
    }
    let name: String
    let payload: String
    let signatureBase64Url: String
    /// Absent on vectors that repeat another's inputs: then the payload text gives them.
    let fields: Fields?
    var description: String { name }
}

struct SignatureVectors: Decodable, Sendable {
    let vectors: [SignatureVector]
}

@Suite struct ConnectRequestTests {
    static let seed = (0..<32).map(UInt8.init)

    static func vectors() throws -> [SignatureVector] {
        try SpecFiles.vectors("signatures", as: SignatureVectors.self).vectors
    }

    @Test("every signatures vector: payload text and signature", arguments: try vectors())
    func signatureVector(_ vector: SignatureVector) throws {
        let identity = try DeviceIdentity(seed: Self.seed, createdAtMs: 0)
        let f: SignatureVector.Fields
        if let given = vector.fields {
            f = given
        } else {
            let parsed = try #require(ConnectPayload(parsing: vector.payload), "\(vector.name)")
            f = SignatureVector.Fields(clientId: parsed.clientId, clientMode: parsed.clientMode, role: parsed.role, scopes: parsed.scopes,
                                       signedAtMs: parsed.signedAtMs, token: parsed.token, nonce: parsed.nonce,
                                       platform: parsed.platform, deviceFamily: parsed.deviceFamily)
        }
        let request = ConnectRequest(
            client: GatewayClientInfo(id: f.clientId, version: "1", platform: f.platform ?? "", deviceFamily: f.deviceFamily, mode: f.clientMode),
            role: try #require(GatewayRole(rawValue: f.role)), scopes: f.scopes,
            auth: vector.name.contains("bootstrap") ? ConnectAuth(bootstrapToken: f.token) : ConnectAuth(token: f.token),
            payloadVersion: vector.payload.hasPrefix("v3|") ? .v3 : .v2)
        let challenge = GatewayChallenge(nonce: f.nonce, timestamp: f.signedAtMs)
        #expect(request.signaturePayload(deviceId: identity.deviceId, challenge: challenge, nowMs: 0).text == vector.payload, "\(vector.name)")
        let params = try request.params(identity: identity, challenge: challenge, nowMs: 99)
        #expect(params["device"]?["signature"]?.stringValue == vector.signatureBase64Url, "\(vector.name)")
        #expect(params["device"]?["signedAt"]?.int64Value == f.signedAtMs, "signedAt is the challenge ts, not the clock")
        #expect(params["device"]?["nonce"]?.stringValue == f.nonce)
        #expect(params["device"]?["id"]?.stringValue == identity.deviceId)
    }

    @Test("the worked example's ConnectParams shape (identity-and-handshake.md §11)")
    func workedExample() throws {
        let identity = try DeviceIdentity(seed: Self.seed, createdAtMs: 0)
        let request = ConnectRequest(
            client: GatewayClientInfo(id: "openclaw-ios", displayName: "Peter's iPhone", version: "2026.4.28", platform: "iOS 18.4.0",
                                      deviceFamily: "iPhone", mode: "node"),
            role: .node, scopes: [], auth: ConnectAuth(bootstrapToken: "bootstrap-abc"), locale: "en-US", payloadVersion: .v3)
        let params = try request.params(identity: identity, challenge: GatewayChallenge(nonce: "nonce-123", timestamp: 1_737_264_000_000), nowMs: 0)
        let keys = params.objectValue?.map(\.0)
        #expect(keys == ["minProtocol", "maxProtocol", "client", "role", "scopes", "caps", "commands", "permissions", "auth", "device", "locale"])
        #expect(params["minProtocol"] == 3)
        #expect(params["maxProtocol"] == 4)
        #expect(params["client"]?["platform"]?.stringValue == "iOS 18.4.0", "ConnectParams keeps the original case")
        #expect(params["auth"] == ["bootstrapToken": "bootstrap-abc"])
        #expect(params["device"]?["publicKey"]?.stringValue == "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg")
        #expect(params["device"]?["signature"]?.stringValue
                == "uehP4pTJ8Yhp9ssyvApBH8x2CJG2KN6FGsD61U7zgq5GQ-mA_08XhbriWbGyUvNQIHAm7_NpvEY0i2k2MjunBw")
    }

    @Test("an operator redeeming a setup code asks only for handoff scopes: never operator.pairing or operator.admin (upstream's rule)")
    func bootstrapOperatorScopesAreHandoffScopes() {
        let asked = Set(ConnectRequest.bootstrapOperatorScopes)
        #expect(asked.isSubset(of: AccessProfile.handoffScopes(.g3)) && asked.isSubset(of: AccessProfile.handoffScopes(.g4)))
        #expect(!asked.contains(AccessProfile.pairingScope) && !asked.contains(AccessProfile.adminScope))
        #expect(!AccessProfile.handoffScopes(.g4).contains(AccessProfile.pairingScope))
    }

    @Test("operator requests carry no node fields; scopes are trimmed and de-duplicated, order kept; no challenge ts uses the clock")
    func operatorRequest() throws {
        let identity = try DeviceIdentity(seed: Self.seed, createdAtMs: 0)
        let request = ConnectRequest(client: .operatorCLI(version: "1"), role: .operator,
                                     scopes: [" operator.pairing", "operator.admin", "operator.pairing"], auth: ConnectAuth(token: "t"))
        #expect(request.scopes == ["operator.pairing", "operator.admin"])
        let params = try request.params(identity: identity, challenge: GatewayChallenge(nonce: "n", timestamp: nil), nowMs: 1234)
        #expect(params["caps"] == nil)
        #expect(params["client"]?["id"] == "cli")
        #expect(params["client"]?["mode"] == "cli")
        #expect(params["device"]?["signedAt"] == 1234)
        #expect(request.signaturePayload(deviceId: identity.deviceId, challenge: GatewayChallenge(nonce: "n", timestamp: nil), nowMs: 1234).text
                == "v3|\(identity.deviceId)|cli|cli|operator|operator.pairing,operator.admin|1234|t|n|linux|linux",
                "connects sign v3 with the one platform string (docs/gateway/protocol/auth.md: the preferred payload)")
        #expect(params["client"]?["platform"] == "linux" && params["client"]?["deviceFamily"] == "Linux")
        let node = ConnectRequest(client: .nodeHost(version: "1"), role: .node, scopes: [])
        #expect(node.client.id == "node-host")
        #expect(node.client.mode == "node")
        #expect(node.client.platform == GatewayClientInfo.linuxPlatform && node.client.deviceFamily == GatewayClientInfo.linuxDeviceFamily)
        // An operator sends its client caps (device-pairing-wait); a node's caps are its declared capabilities.
        let waiting = ConnectRequest(client: .operatorCLI(version: "1"), role: .operator, scopes: [], caps: [GatewayPairing.pairingWaitCap])
        let waitingParams = try waiting.params(identity: identity, challenge: GatewayChallenge(nonce: "n", timestamp: nil), nowMs: 1)
        #expect(waitingParams["caps"] == .array(["device-pairing-wait"]) && waitingParams["commands"] == nil)
    }

    @Test("hello-ok: tokens, hand-off tokens, policy defaults; other payloads are not hello-ok")
    func helloOK() throws {
        let payload = try JSONValue.parse("""
        {"type":"hello-ok","protocol":4,"server":{"version":"2026.11.1","connId":"c1"},
         "features":{"methods":["device.pair.list"],"events":["tick"]},"snapshot":{},
         "auth":{"deviceToken":"dt","role":"node","scopes":[],"issuedAtMs":5,
                 "deviceTokens":[{"deviceToken":"op","role":"operator","scopes":["operator.read"],"issuedAtMs":5},{"role":"x"}]},
         "policy":{"maxPayload":4096,"maxBufferedBytes":8192,"tickIntervalMs":300}}
        """)
        let hello = try #require(HelloOK(payload))
        #expect(hello.protocolVersion == 4)
        #expect(hello.deviceToken == IssuedDeviceToken(token: "dt", role: "node", scopes: [], issuedAtMs: 5))
        #expect(hello.handoffTokens == [IssuedDeviceToken(token: "op", role: "operator", scopes: ["operator.read"], issuedAtMs: 5)])
        #expect(hello.maxPayload == 4096)
        #expect(hello.tickIntervalMs == 300)
        let bare = try #require(HelloOK(["type": "hello-ok", "protocol": 3]))
        #expect(bare.maxPayload == HelloOK.defaultMaxPayload)
        #expect(bare.tickIntervalMs == 15_000)
        #expect(bare.deviceToken == nil)
        #expect(HelloOK(["type": "hello", "protocol": 3]) == nil)
        #expect(HelloOK(["type": "hello-ok"]) == nil)
    }

    @Test("hello-ok policy numbers are clamped; a protocol outside the requested range is refused")
    func helloOKHostileNumbers() throws {
        let huge = try JSONValue.parse("""
        {"type":"hello-ok","protocol":4,"policy":{"maxPayload":4611686018427387904,"maxBufferedBytes":9223372036854775807,
         "tickIntervalMs":4611686018427387904}}
        """)
        let hello = try #require(HelloOK(huge))
        #expect(hello.tickIntervalMs == HelloOK.tickIntervalRange.upperBound)
        #expect(hello.maxPayload == Int(HelloOK.payloadLimitRange.upperBound))
        #expect(hello.maxBufferedBytes == Int(HelloOK.payloadLimitRange.upperBound))
        let tiny = try #require(HelloOK(["type": "hello-ok", "protocol": 4, "policy": ["tickIntervalMs": 1, "maxBufferedBytes": -5]]))
        #expect(tiny.tickIntervalMs == HelloOK.tickIntervalRange.lowerBound)
        #expect(tiny.maxBufferedBytes == nil)
        for version: Int64 in [99, 0, -1, 2, 5] {
            let payload: JSONValue = ["type": "hello-ok", "protocol": .int(version)]
            guard case .failure(let error) = HelloOK.accepting(payload, requested: ConnectRequest.protocolRange) else {
                Issue.record("protocol \(version) accepted")
                continue
            }
            #expect(error.message.contains("the gateway chose protocol \(version), outside the requested 3–4"), "\(error.message)")
        }
        for version: Int64 in [3, 4] {
            #expect((try? HelloOK.accepting(["type": "hello-ok", "protocol": .int(version)], requested: ConnectRequest.protocolRange).get()) != nil)
        }
    }

    @Test("endpoints: URLs and host:port parse; setup codes are refused as URLs; loopback is known")
    func endpoints() throws {
        let url = try GatewayEndpoint(parsing: "wss://gw.example.com")
        #expect(url.tls && url.port == 443 && url.host == "gw.example.com")
        let local = try GatewayEndpoint(parsing: GatewayEndpoint.defaultURL)
        #expect(local.isLoopback && !local.tls && local.port == 18789)
        #expect(try GatewayEndpoint(parsing: "[::1]:9000").url == "ws://[::1]:9000")
        #expect(throws: GatewayError.self) { try GatewayEndpoint(parsing: "not a url at all") }
    }
}
