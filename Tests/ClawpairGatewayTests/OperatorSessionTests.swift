import ClawpairCore
import ClawpairIdentity
import Foundation
import Testing
@testable import ClawpairGateway

/// The operator session without sockets: target and credential order (with upstream's URL
/// override rule), the typed RPCs' params and records, token redaction and shape errors, all
/// against a fake transport.
@Suite struct OperatorSessionTests {
    /// A gateway connection that answers from a script and records what was sent.
    final class FakeConnection: GatewayCalling {
        var answers: [String: JSONValue]
        var sent: [(method: String, params: JSONValue?)] = []
        var closed = 0

        init(_ answers: [String: JSONValue]) {
            self.answers = answers
        }

        func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue {
            sent.append((method, params))
            guard let answer = answers[method] else {
                throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown method"))
            }
            return answer
        }

        func close() { closed += 1 }
    }

    /// A connector that records the connect request and hands out a fake connection.
    final class FakeConnector: OperatorConnector {
        let connection: FakeConnection
        var requests: [(endpoint: GatewayEndpoint, request: ConnectRequest)] = []

        init(_ connection: FakeConnection) {
            self.connection = connection
        }

        func connect(to endpoint: GatewayEndpoint, request: ConnectRequest, identity: DeviceIdentity,
                     timeout: Duration) throws(GatewayError) -> (connection: any GatewayCalling, hello: HelloOK) {
            requests.append((endpoint, request))
            let hello = HelloOK(["type": "hello-ok", "protocol": 4, "auth": ["role": "operator", "scopes": ["operator.admin"]]])!
            return (connection, hello)
        }
    }

    static let deviceId = "d" + String(repeating: "0", count: 63)

    /// A config reader that must not be consulted.
    static let noConfig: GatewayAuthConfigReader = { _ in
        Issue.record("the config file was read")
        return nil
    }

    static func target(_ url: String, _ source: OperatorTargetSource, record: PairedGateway? = nil) throws -> OperatorTarget {
        OperatorTarget(endpoint: try GatewayEndpoint(parsing: url), record: record, source: source)
    }

    static func record(operatorToken: String?, url: String = "ws://127.0.0.1:18789") -> PairedGateway {
        var record = PairedGateway(name: "home", urls: [url], deviceId: deviceId, pairedAtMs: 1)
        if let operatorToken {
            record.store(StoredDeviceToken(token: operatorToken, role: "operator", scopes: ["operator.read"], issuedAtMs: 2))
        }
        record.store(StoredDeviceToken(token: "node-token", role: "node", scopes: [], issuedAtMs: 2))
        return record
    }

    static func resolve(_ target: OperatorTarget, explicit: OperatorSecret? = nil, environment: [String: String] = [:],
                        config: @escaping GatewayAuthConfigReader = noConfig) throws -> OperatorCredential {
        try OperatorCredential.resolve(explicit: explicit, target: target, deviceId: deviceId, environment: environment, readConfig: config)
    }

    static let envToken = ["OPENCLAW_GATEWAY_TOKEN": "env-token"]

    /// Issue #24 §11: operator commands from a node machine erased the node's display name (the
    /// gateway keeps a paired device's name from its latest connect, and the operator sent none).
    @Test("an operator connect carries this device's paired name, else the host name; a client's own name stays")
    func connectCarriesDeviceName() throws {
        var record = Self.record(operatorToken: nil)
        record.deviceName = "kitchen-pi"
        let credential = OperatorCredential(auth: ConnectAuth(), source: .none)
        let client = GatewayClientInfo.operatorCLI(version: "1", platform: "linux")
        let paired = OperatorPlan(target: try Self.target("ws://127.0.0.1:18789", .activeGateway, record: record), credential: credential)
        #expect(paired.connectRequest(client: client).client.displayName == "kitchen-pi")
        let unpaired = OperatorPlan(target: try Self.target("ws://127.0.0.1:18789", .defaultURL), credential: credential)
        #expect(unpaired.connectRequest(client: client).client.displayName == HostName.current(fallback: "linux"))
        let named = GatewayClientInfo.operatorCLI(version: "1", platform: "linux", displayName: "desk")
        #expect(paired.connectRequest(client: named).client.displayName == "desk")
    }

    // MARK: Credential order

    @Test("explicit credentials win over the environment, the registry and the config, for every target")
    func explicitWins() throws {
        for source in [OperatorTargetSource.explicitURL, .registryGateway, .environmentURL, .activeGateway, .defaultURL] {
            let target = try Self.target("ws://127.0.0.1:18789", source, record: Self.record(operatorToken: "stored"))
            let token = try Self.resolve(target, explicit: .token("explicit"), environment: Self.envToken)
            #expect(token.auth == ConnectAuth(token: "explicit") && token.source == .explicitToken, "\(source)")
            let password = try Self.resolve(target, explicit: .password("pw"), environment: Self.envToken)
            #expect(password.auth == ConnectAuth(password: "pw") && password.source == .explicitPassword, "\(source)")
        }
    }

    @Test("a command-line URL never gets OPENCLAW_GATEWAY_TOKEN/_PASSWORD or the config; that gateway's stored token still applies")
    func explicitURLWithholdsImplicitCredentials() throws {
        let environment = ["OPENCLAW_GATEWAY_TOKEN": "env-token", "OPENCLAW_GATEWAY_PASSWORD": "env-password"]
        let bare = try Self.resolve(try Self.target("ws://127.0.0.1:18789", .explicitURL), environment: environment)
        #expect(bare.auth == ConnectAuth())
        #expect(bare.source == .none)
        #expect(bare.withheldEnvironment == ["OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD"])

        let paired = try Self.resolve(try Self.target("ws://127.0.0.1:18789", .explicitURL, record: Self.record(operatorToken: "stored")),
                                      environment: environment)
        #expect(paired.auth == ConnectAuth(token: "stored"))
        #expect(paired.source == .storedDeviceToken(gateway: "home"))
        #expect(paired.tokenScopes == ["operator.read"])

        // An empty variable is not an error when it would not be sent anyway.
        let empty = try Self.resolve(try Self.target("ws://127.0.0.1:18789", .explicitURL), environment: ["OPENCLAW_GATEWAY_TOKEN": ""])
        #expect(empty.source == .none && empty.withheldEnvironment.isEmpty)
    }

    @Test("OPENCLAW_GATEWAY_URL uses environment credentials (token before password), never the config")
    func environmentURL() throws {
        let target = try Self.target("ws://127.0.0.1:18789", .environmentURL)
        let both = try Self.resolve(target, environment: ["OPENCLAW_GATEWAY_TOKEN": "t", "OPENCLAW_GATEWAY_PASSWORD": "p"])
        #expect(both.auth == ConnectAuth(token: "t") && both.source == .environmentToken)
        let password = try Self.resolve(target, environment: ["OPENCLAW_GATEWAY_PASSWORD": "p"])
        #expect(password.auth == ConnectAuth(password: "p") && password.source == .environmentPassword)
        #expect(try Self.resolve(target).source == .none)
        #expect(throws: OperatorSessionError.emptyCredential(variable: "OPENCLAW_GATEWAY_TOKEN")) {
            try Self.resolve(target, environment: ["OPENCLAW_GATEWAY_TOKEN": ""])
        }
    }

    @Test("without a URL override: environment (local gateway), else the stored device token, then the config on loopback only")
    func automaticOrder() throws {
        let config: GatewayAuthConfigReader = { _ in (.password("config-password"), "/cfg/openclaw.json") }
        let record = Self.record(operatorToken: "stored")
        let local = ["OPENCLAW_GATEWAY_PORT": "18789"]
        for source in [OperatorTargetSource.registryGateway, .activeGateway, .defaultURL] {
            let withRecord = try Self.target("ws://127.0.0.1:18789", source, record: record)
            #expect(try Self.resolve(withRecord, environment: Self.envToken.merging(local) { a, _ in a }, config: config).source
                    == (source == .defaultURL ? .environmentToken : .storedDeviceToken(gateway: "home")),
                    "a registry gateway gets its stored token first: \(source)")
            #expect(try Self.resolve(withRecord, config: config).source == .storedDeviceToken(gateway: "home"))
            let loopback = try Self.target("ws://127.0.0.1:18789", source, record: Self.record(operatorToken: nil))
            let configured = try Self.resolve(loopback, config: config)
            #expect(configured.auth == ConnectAuth(password: "config-password"))
            #expect(configured.source == .configPassword(path: "/cfg/openclaw.json"))
            let remote = try Self.target("ws://192.168.1.20:18789", source, record: Self.record(operatorToken: nil))
            #expect(try Self.resolve(remote).source == .none, "the config file is for loopback gateways only")
        }
        // A token stored for another identity is not this machine's.
        var other = Self.record(operatorToken: "stored")
        other.deviceId = "someone-else"
        #expect(try Self.resolve(try Self.target("ws://192.168.1.20:18789", .activeGateway, record: other)).source == .none)
    }

    @Test("library errors carry no command-line hints: no option, no clawpair command")
    func hintsNameNoOptions() {
        let shape = GatewayErrorShape(code: "INVALID_REQUEST", message: "m", details: ["code": "DEVICE_AUTH_SIGNATURE_INVALID"])
        let errors: [any ClawpairError] = [
            GatewayError.unreachable(url: "ws://h:1", phase: "tcp", reason: "refused"),
            GatewayError.tlsTrust(url: "wss://h:1", .pinMismatch(expected: "a", observed: "b")),
            GatewayError.timedOut(what: "x", after: .seconds(1)),
            GatewayError.stalled(silentFor: .seconds(2), tickInterval: .seconds(1)),
            GatewayError.pairingRequired(PairingRequired(requestId: "r")),
            GatewayError.authRejected(shape), GatewayError.deviceAuthRejected(shape),
            GatewayError.rpcFailed(method: "m", GatewayErrorShape(code: "FORBIDDEN", message: "")),
            OperatorSessionError.emptyCredential(variable: "OPENCLAW_GATEWAY_TOKEN"),
        ]
        for error in errors {
            let hint = error.hint ?? ""
            #expect(!hint.contains("--") && !hint.contains("clawpair "), "\(error): \(hint)")
        }
    }

    // MARK: Target

    @Test("targets: --url, a registry name, OPENCLAW_GATEWAY_URL before the active gateway, the default; pins from the record")
    func targets() throws {
        let home = NSTemporaryDirectory() + "clawpair-operator-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let registry = GatewayRegistry(home: home)
        let pin = String(repeating: "ab", count: 32)
        var tls = PairedGateway(name: "tls", urls: ["wss://gw.example.com:443"], tlsFingerprint: pin, deviceId: Self.deviceId, pairedAtMs: 1)
        tls.store(StoredDeviceToken(token: "op", role: "operator", scopes: [], issuedAtMs: 1))
        try registry.save(tls)

        let none = try OperatorTarget.resolve(.automatic, environment: [:], registry: registry)
        #expect(none.source == .defaultURL && none.endpoint.url == GatewayEndpoint.defaultURL && none.record == nil)

        try registry.setActive(tls)
        let active = try OperatorTarget.resolve(.automatic, environment: [:], registry: registry)
        #expect(active.source == .activeGateway && active.record?.name == "tls" && active.endpoint.pin == pin)

        let fromEnvironment = try OperatorTarget.resolve(.automatic, environment: ["OPENCLAW_GATEWAY_URL": "ws://127.0.0.1:9"],
                                                         registry: registry)
        #expect(fromEnvironment.source == .environmentURL && fromEnvironment.endpoint.url == "ws://127.0.0.1:9")

        let url = try OperatorTarget.resolve(.url("wss://gw.example.com:443"), environment: [:], registry: registry)
        #expect(url.source == .explicitURL && url.record?.name == "tls" && url.endpoint.pin == pin)
        let override = String(repeating: "cd", count: 32)
        #expect(try OperatorTarget.resolve(.url("wss://gw.example.com"), pin: override, environment: [:], registry: registry).endpoint.pin == override)

        let named = try OperatorTarget.resolve(.registryGateway("tls"), environment: [:], registry: registry)
        #expect(named.source == .registryGateway && named.endpoint.host == "gw.example.com")
        #expect(throws: GatewayRegistryError.self) { try OperatorTarget.resolve(.registryGateway("nope"), environment: [:], registry: registry) }
        #expect(throws: GatewayError.self) { try OperatorTarget.resolve(.url("oc-pair://nope"), environment: [:], registry: registry) }
    }

    @Test("connecting sends the planned credential, and a stored token's scopes instead of the operator scopes")
    func connectSendsPlan() throws {
        let home = NSTemporaryDirectory() + "clawpair-operator-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let registry = GatewayRegistry(home: home)
        let identity = try DeviceIdentity.generate(createdAtMs: 0)
        var record = PairedGateway(name: "lan", urls: ["ws://192.168.1.20:18789"], deviceId: identity.deviceId, pairedAtMs: 1)
        record.store(StoredDeviceToken(token: "stored", role: "operator", scopes: ["operator.read", "operator.pairing"], issuedAtMs: 1))
        try registry.save(record)

        let connection = FakeConnection([:])
        let connector = FakeConnector(connection)
        let options = OperatorSessionOptions(target: .url("ws://192.168.1.20:18789"), environment: Self.envToken, registry: registry,
                                             identity: identity, readConfig: Self.noConfig, connector: connector)
        var session: OperatorSession? = try OperatorSession.connect(options)
        #expect(session?.credential.source == .storedDeviceToken(gateway: "lan"))
        #expect(connector.requests.first?.request.auth == ConnectAuth(token: "stored"))
        #expect(connector.requests.first?.request.scopes == ["operator.read", "operator.pairing"])
        #expect(connector.requests.first?.request.role == .operator)

        #expect(connection.closed == 0)
        session = nil
        #expect(connection.closed == 1, "releasing the session closes its connection")

        let explicit = OperatorSessionOptions(target: .url("ws://127.0.0.1:1"), explicitSecret: .token("x"), environment: [:],
                                              registry: registry, identity: identity, readConfig: Self.noConfig, connector: connector)
        let second = try OperatorSession.connect(explicit)
        #expect(connector.requests.last?.request.auth == ConnectAuth(token: "x"))
        #expect(connector.requests.last?.request.scopes == ConnectRequest.operatorScopes)
        second.close()
    }

    // MARK: Typed RPCs

    static func session(_ answers: [String: JSONValue]) throws -> (OperatorSession, FakeConnection) {
        let connection = FakeConnection(answers)
        let hello = HelloOK(["type": "hello-ok", "protocol": 4])!
        let plan = OperatorPlan(target: try target("ws://127.0.0.1:18789", .defaultURL), credential: OperatorCredential(auth: ConnectAuth(), source: .none))
        return (OperatorSession(connection: connection, hello: hello, plan: plan, timeout: .seconds(1)), connection)
    }

    static let pendingEntry: JSONValue = [
        "requestId": "req-1", "deviceId": "dev-1", "publicKey": "pk", "displayName": "phone", "role": "operator",
        "scopes": ["operator.read"], "remoteIp": "192.0.2.7", "isRepair": true, "ts": 1_700_000_000_000,
    ]
    static let pairedEntry: JSONValue = [
        "deviceId": "dev-2", "roles": ["node", "operator"], "scopes": [], "connected": true, "approvedAtMs": 5,
        "tokens": [["role": "node", "scopes": [], "createdAtMs": 3], ["role": "operator", "scopes": ["operator.read"], "createdAtMs": 4]],
    ]

    @Test("device RPCs send closed params and return records that keep the payload")
    func deviceRPCs() throws {
        let (session, connection) = try Self.session([
            "device.pair.list": ["pending": [Self.pendingEntry], "paired": [Self.pairedEntry]],
            "device.pair.approve": ["requestId": "req-1", "device": ["deviceId": "dev-1", "role": "operator", "scopes": ["operator.read"]]],
            "device.pair.reject": ["requestId": "req-1", "deviceId": "dev-1"],
            "device.pair.remove": ["deviceId": "dev-2"],
            "device.token.revoke": ["deviceId": "dev-2", "role": "node", "revokedAtMs": 9],
        ])
        let listing = try session.listDevices()
        #expect(listing.pending.map(\.requestId) == ["req-1"])
        #expect(listing.pending[0].isRepair && !listing.pending[0].silent && listing.pending[0].ts == 1_700_000_000_000)
        #expect(listing.paired[0].tokens.map(\.role) == ["node", "operator"])
        #expect(listing.paired[0].connected)
        #expect(listing.json == ["pending": [Self.pendingEntry], "paired": [Self.pairedEntry]], "no token values: payload unchanged")
        #expect(listing.pending(requestId: "req-1")?.deviceId == "dev-1" && listing.paired(deviceId: "dev-2") != nil)

        #expect(try session.approveDevice(requestId: "req-1").device?.scopes == ["operator.read"])
        #expect(try session.rejectDevice(requestId: "req-1").deviceId == "dev-1")
        #expect(try session.removeDevice(deviceId: "dev-2").deviceId == "dev-2")
        #expect(try session.revokeDeviceToken(deviceId: "dev-2", role: "node").revokedAtMs == 9)
        let expected: [(String, JSONValue)] = [
            ("device.pair.list", [:]),
            ("device.pair.approve", ["requestId": "req-1"]),
            ("device.pair.reject", ["requestId": "req-1"]),
            ("device.pair.remove", ["deviceId": "dev-2"]),
            ("device.token.revoke", ["deviceId": "dev-2", "role": "node"]),
        ]
        #expect(connection.sent.count == expected.count)
        for (sent, (method, params)) in zip(connection.sent, expected) {
            #expect(sent.method == method)
            #expect(sent.params == params, "\(method)")
        }
    }

    @Test("token values are redacted at any depth; rotate keeps the in-band token apart for an explicit reveal")
    func redaction() throws {
        let (session, connection) = try Self.session([
            "device.pair.approve": ["requestId": "r", "device": ["deviceId": "d", "token": "approve-secret",
                                                                "tokens": [["role": "operator", "token": "nested-secret"]]]],
            "device.token.rotate": ["deviceId": "d", "role": "operator", "token": "rotated-secret", "scopes": ["operator.read"],
                                    "rotatedAtMs": 7, "tokenDelivery": "in-band"],
            "node.pair.approve": ["requestId": "n", "node": ["nodeId": "pi", "token": "node-secret"]],
        ])
        let approval = try session.approveDevice(requestId: "r")
        #expect(approval.json["device"]?["token"] == "<redacted>")
        #expect(approval.json["device"]?["tokens"]?[0]?["token"] == "<redacted>")
        #expect(!approval.json.compact().contains("secret"))

        let rotation = try session.rotateDeviceToken(deviceId: "d", role: "operator", scopes: ["operator.read"])
        #expect(connection.sent.last?.params == ["deviceId": "d", "role": "operator", "scopes": ["operator.read"]])
        #expect(rotation.token == "rotated-secret")
        #expect(rotation.json["token"] == .string(OperatorRecords.redactionMarker))
        #expect(rotation.revealedJSON["token"] == "rotated-secret")
        #expect(rotation.tokenDelivery == "in-band" && rotation.scopes == ["operator.read"])
        _ = try session.rotateDeviceToken(deviceId: "d", role: "operator")
        #expect(connection.sent.last?.params == ["deviceId": "d", "role": "operator"], "no scopes: the key is left out")

        let node = try session.approveNode(requestId: "n")
        #expect(node.json["node"]?["token"] == "<redacted>" && node.requestId == "n")
        #expect(OperatorRecords.redactionMarker == "<redacted>")
    }

    static let malformed: [(String, JSONValue)] = [
        ("device.pair.list", ["pending": "x", "paired": 5]),
        ("device.pair.list", ["pending": []]),
        ("device.pair.list", ["pending": [["requestId": 5, "deviceId": "d"]], "paired": []]),
        ("device.pair.list", ["pending": [["requestId": "r"]], "paired": []]),
        ("device.pair.list", ["pending": [], "paired": [["deviceId": "d", "scopes": [1]]]]),
        ("device.pair.list", "not an object"),
        ("node.list", ["nodes": ["x"]]),
        ("node.list", ["ts": 1, "nodes": [["nodeId": "n", "connected": "yes"]]]),
        ("node.pair.list", ["pending": [["requestId": "r"]], "paired": 3]),
        ("device.pair.setupCode", ["gatewayUrl": "ws://127.0.0.1:18789"]),
        ("device.token.rotate", ["deviceId": "d", "token": 42]),
    ]

    @Test("results of the wrong shape are protocol violations (exit 1), never empty lists", arguments: malformed)
    func shapeErrors(method: String, payload: JSONValue) throws {
        let (session, _) = try Self.session([method: payload])
        do {
            switch method {
            case "device.pair.list": _ = try session.listDevices()
            case "node.list": _ = try session.listNodes()
            case "node.pair.list": _ = try session.listNodePairing()
            case "device.pair.setupCode": _ = try session.mintSetupCode()
            default: _ = try session.rotateDeviceToken(deviceId: "d", role: "operator")
            }
            Issue.record("\(method) accepted \(payload.compact())")
        } catch {
            guard case .protocolViolation(let detail) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(detail.hasPrefix(method), "\(detail)")
        }
    }

    @Test("node and setup-code RPCs: params, records, the documented sort order")
    func nodeAndSetupCodeRPCs() throws {
        let (session, connection) = try Self.session([
            "node.list": ["ts": 1, "nodes": [["nodeId": "b", "displayName": "Beta", "connected": false],
                                             ["nodeId": "a", "displayName": "alpha", "connected": false],
                                             ["nodeId": "z", "displayName": "Zed", "connected": true, "caps": ["camera"]]]],
            "node.pair.list": ["pending": [["requestId": "r1", "nodeId": "pi", "commands": ["system.run"], "ts": 3]], "paired": []],
            "node.pair.reject": ["requestId": "r1", "nodeId": "pi"],
            "device.pair.setupCode": ["setupCode": "abc", "gatewayUrl": "ws://127.0.0.1:18789", "auth": "token", "urlSource": "x",
                                      "access": "limited", "accessDowngraded": true, "setupId": "s", "expiresAtMs": 99],
        ])
        let nodes = try session.listNodes()
        #expect(nodes.sortedNodes.map(\.nodeId) == ["z", "a", "b"])
        #expect(nodes.nodes.first { $0.nodeId == "z" }?.caps == ["camera"])
        let pairing = try session.listNodePairing()
        #expect(pairing.pending.first?.commands == ["system.run"])
        #expect(try session.rejectNode(requestId: "r1").requestId == "r1")
        let minted = try session.mintSetupCode(SetupCodeRequest(bootstrapProfile: "node", publicURL: "wss://gw.example.com", preferRemoteURL: true))
        #expect(minted.setupCode == "abc" && minted.access == "limited" && minted.accessDowngraded && minted.expiresAtMs == 99)
        #expect(connection.sent.map(\.method) == ["node.list", "node.pair.list", "node.pair.reject", "device.pair.setupCode"])
        #expect(connection.sent.last?.params == ["includeQr": false, "publicUrl": "wss://gw.example.com", "preferRemoteUrl": true,
                                                 "bootstrapProfile": "node"])
        _ = try session.mintSetupCode()
        #expect(connection.sent.last?.params == ["includeQr": false], "closed params: only what is set")
    }

    @Test("a registry gateway never gets OPENCLAW_GATEWAY_TOKEN/_PASSWORD unless it is OPENCLAW_GATEWAY_URL or the local gateway (#25.2)")
    func registrySelectionWithholdsEnvironmentCredentials() throws {
        let environment = ["OPENCLAW_GATEWAY_TOKEN": "env-token", "OPENCLAW_GATEWAY_PASSWORD": "env-password", "OPENCLAW_GATEWAY_PORT": "18789"]
        for source in [OperatorTargetSource.registryGateway, .activeGateway] {
            // The default gateway is somebody else's (a node-only record, no operator token).
            let elsewhere = try Self.target("ws://10.6.6.6:18789", source, record: Self.record(operatorToken: nil, url: "ws://10.6.6.6:18789"))
            let bare = try Self.resolve(elsewhere, environment: environment)
            #expect(bare.auth == ConnectAuth() && bare.source == .none, "\(source)")
            #expect(bare.withheldEnvironment == ["OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD"])
            let paired = try Self.resolve(try Self.target("ws://10.6.6.6:18789", source,
                                                          record: Self.record(operatorToken: "stored", url: "ws://10.6.6.6:18789")),
                                          environment: environment)
            #expect(paired.auth == ConnectAuth(token: "stored") && paired.withheldEnvironment.count == 2)
            // The same record at the URL the variables are for gets them.
            var configured = environment
            configured["OPENCLAW_GATEWAY_URL"] = "ws://10.6.6.6:18789/"
            #expect(try Self.resolve(elsewhere, environment: configured).source == .environmentToken)
            let local = try Self.target("ws://127.0.0.1:18789", source, record: Self.record(operatorToken: nil))
            #expect(try Self.resolve(local, environment: environment).source == .environmentToken)
        }
    }
}
