import ClawpairCore
import ClawpairIdentity
import Testing
@testable import ClawpairGateway

/// Naming a device to approve, approving its request as it is at approval time (following a
/// supersession), the list orders, scope summaries and the management RPCs, against a
/// scripted fake transport.
@Suite struct DeviceApprovalTests {
    /// A connection whose answers come from a closure, recording what was sent.
    final class ScriptedConnection: GatewayCalling {
        var sent: [(method: String, params: JSONValue?)] = []
        let answer: (String, JSONValue?, Int) throws(GatewayError) -> JSONValue

        init(_ answer: @escaping (String, JSONValue?, Int) throws(GatewayError) -> JSONValue) {
            self.answer = answer
        }

        func call(_ method: String, params: JSONValue?, timeout: Duration) throws(GatewayError) -> JSONValue {
            sent.append((method, params))
            return try answer(method, params, sent.filter { $0.method == method }.count)
        }

        func close() {}
    }

    static func session(_ connection: ScriptedConnection) throws -> OperatorSession {
        let plan = OperatorPlan(target: OperatorTarget(endpoint: try GatewayEndpoint(parsing: "ws://127.0.0.1:18789"), record: nil,
                                                       source: .explicitURL),
                                credential: OperatorCredential(auth: ConnectAuth(), source: .none))
        return OperatorSession(connection: connection, hello: HelloOK(["type": "hello-ok", "protocol": 4])!, plan: plan,
                               timeout: .seconds(1))
    }

    static let phone = String(repeating: "a", count: 64)
    static let laptop = "ab" + String(repeating: "c", count: 62)
    static let watch = String(repeating: "e", count: 64)

    static func request(_ id: String, device: String, name: String?, ts: Int64, scopes: [String] = ["operator.read"]) -> JSONValue {
        var members: [(String, JSONValue)] = [("requestId", .string(id)), ("deviceId", .string(device)), ("publicKey", "k"),
                                              ("role", "operator"), ("scopes", .array(scopes.map(JSONValue.string))), ("ts", .int(ts))]
        if let name { members.append(("displayName", .string(name))) }
        return .object(members)
    }

    static func listing(pending: [JSONValue], paired: [JSONValue] = []) throws -> DevicePairingList {
        try DevicePairingList(json: .object([("pending", .array(pending)), ("paired", .array(paired))]))
    }

    static let sample: [JSONValue] = [
        request("11111111-aaaa-4000-8000-000000000001", device: phone, name: "Pixel 8", ts: 100),
        request("22222222-bbbb-4000-8000-000000000002", device: laptop, name: "ThinkPad", ts: 300),
        request("22229999-bbbb-4000-8000-000000000003", device: watch, name: "pixel 8", ts: 200),
    ]
    static let pairedWatchLabel: JSONValue = .object([("deviceId", .string(watch)), ("operatorLabel", "Wrist"), ("approvedAtMs", 5)])

    @Test("a whole request id, a whole device id, unique prefixes as the tables show them")
    func exactAndPrefixes() throws {
        let list = try Self.listing(pending: Self.sample)
        #expect(try list.resolvePending("11111111-aaaa-4000-8000-000000000001").matchedBy == .requestId)
        let byDevice = try list.resolvePending(Self.laptop)
        #expect(byDevice.matchedBy == .deviceId && byDevice.request.requestId.hasPrefix("22222222"))
        #expect(try list.resolvePending("1111").request.deviceId == Self.phone)
        #expect(try list.resolvePending("22222222-").matchedBy == .requestIdPrefix)
        // A device id cut as `devices list` prints it.
        let cut = try list.resolvePending(String(Self.watch.prefix(12)) + "…")
        #expect(cut.matchedBy == .deviceIdPrefix && cut.request.deviceId == Self.watch)
        #expect(try list.resolvePending("ABCC").request.deviceId == Self.laptop)
    }

    @Test("ambiguous prefixes and names list the candidates newest first; too short a prefix matches nothing")
    func ambiguous() throws {
        let list = try Self.listing(pending: Self.sample)
        #expect(throws: DeviceRequestLookupError.ambiguous(query: "2222", candidates: [list.pending[1], list.pending[2]])) {
            try list.resolvePending("2222")
        }
        #expect(throws: DeviceRequestLookupError.ambiguous(query: "PIXEL 8", candidates: [list.pending[2], list.pending[0]])) {
            try list.resolvePending("PIXEL 8")
        }
        #expect(throws: DeviceRequestLookupError.notFound(query: "111")) { try list.resolvePending("111") }
        #expect(throws: DeviceRequestLookupError.emptyQuery) { try list.resolvePending("  ") }
    }

    @Test("names: the request's display name or the paired device's label; a paired device without a request says so")
    func namesAndPaired() throws {
        let list = try Self.listing(pending: Array(Self.sample.prefix(2)) + [Self.request("r-watch", device: Self.watch, name: nil, ts: 50)],
                                    paired: [Self.pairedWatchLabel])
        let wrist = try list.resolvePending("wrist")
        #expect(wrist.matchedBy == .name && wrist.request.requestId == "r-watch")
        #expect(try list.resolvePending("thinkpad").request.deviceId == Self.laptop)

        let idle = try Self.listing(pending: [], paired: [Self.pairedWatchLabel])
        #expect(throws: DeviceRequestLookupError.alreadyPaired(query: Self.watch, device: idle.paired[0])) {
            try idle.resolvePending(Self.watch)
        }
        #expect(throws: DeviceRequestLookupError.alreadyPaired(query: "Wrist", device: idle.paired[0])) {
            try idle.resolvePending("Wrist")
        }
        #expect(throws: DeviceRequestLookupError.notFound(query: "nobody")) { try idle.resolvePending("nobody") }
    }

    @Test("a device with two requests resolves to its newest")
    func newestOfDevice() throws {
        let list = try Self.listing(pending: [Self.request("old", device: Self.phone, name: "P", ts: 1),
                                              Self.request("new", device: Self.phone, name: "P", ts: 9)])
        #expect(try list.resolvePending(Self.phone).request.requestId == "new")
        #expect(try list.resolvePending("p").request.requestId == "new")
    }

    @Test("list orders: pending newest first, paired most recently approved first, whatever the gateway sent")
    func orders() throws {
        let list = try Self.listing(pending: Self.sample, paired: [
            .object([("deviceId", "d1"), ("approvedAtMs", 10)]), .object([("deviceId", "d2"), ("approvedAtMs", 30)]),
            .object([("deviceId", "d3")]),
        ])
        #expect(list.sortedPending.map(\.ts) == [300, 200, 100])
        #expect(list.sortedPaired.map(\.deviceId) == ["d2", "d1", "d3"])
    }

    @Test("approving follows a supersession: the device's newer request is approved, the old id reported")
    func approveFollowsSupersession() throws {
        let first = Self.request("first", device: Self.phone, name: "Pixel", ts: 1)
        let second = Self.request("second", device: Self.phone, name: "Pixel", ts: 2, scopes: ["operator.read"])
        let connection = ScriptedConnection { method, params, count throws(GatewayError) in
            switch method {
            case "device.pair.list":
                return .object([("pending", .array([count == 1 ? first : second])), ("paired", .array([]))])
            case "device.pair.approve":
                guard params?["requestId"]?.stringValue == "second" else {
                    throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown requestId"))
                }
                return .object([("requestId", "second")])
            default:
                throw .protocolViolation("unexpected \(method)")
            }
        }
        let outcome = try Self.session(connection).approveCurrentRequest("pixel")
        #expect(outcome.resolved.request.requestId == "first")
        #expect(outcome.approved.requestId == "second")
        #expect(outcome.superseded == ["first"])
        #expect(outcome.resolved.notes(query: "pixel", superseded: outcome.superseded, current: "second", verb: "approving")
                == ["pixel (name) is request first",
                    "request first was superseded by the device's retry; approving its current request second"])
        // No device in the result: role and scopes come from the request approved.
        #expect(outcome.role == "operator")
        #expect(outcome.scopes == ["operator.read"])
        #expect(connection.sent.map(\.method) == ["device.pair.list", "device.pair.approve", "device.pair.list", "device.pair.approve"])
    }

    @Test("a followed request that asks for more than was shown is not approved; the difference is the error (#25.3)")
    func supersessionUpgradeIsRefused() throws {
        let first = Self.request("first", device: Self.phone, name: "Pixel", ts: 1)
        let second = Self.request("second", device: Self.phone, name: "Pixel", ts: 2, scopes: ["operator.read", "operator.admin"])
        let connection = ScriptedConnection { method, params, count throws(GatewayError) in
            switch method {
            case "device.pair.list": return .object([("pending", .array([count == 1 ? first : second])), ("paired", .array([]))])
            case "device.pair.approve":
                throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown requestId"))
            default: throw .protocolViolation("unexpected \(method)")
            }
        }
        do {
            _ = try Self.session(connection).approveCurrentRequest("first")
            Issue.record("approved an upgrade")
        } catch let upgrade as DeviceApprovalUpgrade {
            #expect(upgrade.request.requestId == "second")
            #expect(upgrade.addedScopes == ["operator.admin"] && upgrade.addedRoles.isEmpty)
            #expect(upgrade.code == "approval-upgrade")
        }
        #expect(connection.sent.filter { $0.method == "device.pair.approve" }.count == 1, "only the request shown was tried")
    }

    @Test("a paired node that re-asks as an operator is not approved by name or device id; its exact request id approves it (#25.3)")
    func pairedDeviceUpgradeNeedsTheRequestId() throws {
        let upgrade = JSONValue.object([("requestId", "re-ask"), ("deviceId", .string(Self.phone)), ("publicKey", "k"),
                                        ("displayName", "kitchen"), ("role", "operator"), ("roles", ["operator"]),
                                        ("scopes", ["operator.admin", "operator.pairing"]), ("isRepair", true), ("ts", 5)])
        let paired = JSONValue.object([("deviceId", .string(Self.phone)), ("displayName", "kitchen"), ("role", "node"),
                                       ("roles", ["node"]), ("scopes", []), ("approvedAtMs", 1)])
        let connection = ScriptedConnection { method, _, _ throws(GatewayError) in
            switch method {
            case "device.pair.list": return .object([("pending", .array([upgrade])), ("paired", .array([paired]))])
            case "device.pair.approve": return .object([("requestId", "re-ask")])
            default: throw .protocolViolation("unexpected \(method)")
            }
        }
        for query in ["kitchen", Self.phone, String(Self.phone.prefix(8))] {
            #expect(throws: DeviceApprovalUpgrade.self, "\(query)") { try Self.session(connection).approveCurrentRequest(query) }
        }
        #expect(!connection.sent.contains { $0.method == "device.pair.approve" })
        let approved = try Self.session(connection).approveCurrentRequest("re-ask")
        #expect(approved.approved.requestId == "re-ask")
    }

    @Test("rejecting resolves names as approving does and follows a supersession")
    func rejectFollowsSupersession() throws {
        let first = Self.request("first", device: Self.phone, name: "Pixel", ts: 1)
        let second = Self.request("second", device: Self.phone, name: "Pixel", ts: 2)
        let connection = ScriptedConnection { method, params, count throws(GatewayError) in
            switch method {
            case "device.pair.list":
                return .object([("pending", .array([count == 1 ? first : second])), ("paired", .array([]))])
            case "device.pair.reject":
                guard params?["requestId"]?.stringValue == "second" else {
                    throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown requestId"))
                }
                return .object([("requestId", "second"), ("deviceId", .string(Self.phone))])
            default:
                throw .protocolViolation("unexpected \(method)")
            }
        }
        let outcome = try Self.session(connection).rejectCurrentRequest("pixel")
        #expect(outcome.resolved.matchedBy == .name)
        #expect(outcome.rejected.requestId == "second")
        #expect(outcome.rejection.deviceId == Self.phone)
        #expect(outcome.superseded == ["first"])
        #expect(connection.sent.map(\.method) == ["device.pair.list", "device.pair.reject", "device.pair.list", "device.pair.reject"])
    }

    @Test("approving gives up when the request vanished without a successor, and after maxAttempts")
    func approveGivesUp() throws {
        var serial = 0
        let connection = ScriptedConnection { method, _, _ throws(GatewayError) in
            if method == "device.pair.list" {
                serial += 1
                return .object([("pending", .array([Self.request("r\(serial)", device: Self.phone, name: nil, ts: Int64(serial))])),
                                ("paired", .array([]))])
            }
            throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown requestId"))
        }
        #expect(throws: GatewayError.self) { try Self.session(connection).approveCurrentRequest(Self.phone, maxAttempts: 2) }
        #expect(connection.sent.filter { $0.method == "device.pair.approve" }.count == 2)

        let other = ScriptedConnection { method, _, _ throws(GatewayError) in
            throw .rpcFailed(method: method, GatewayErrorShape(code: "INVALID_REQUEST", message: "missing scope: operator.pairing"))
        }
        #expect(throws: GatewayError.self) { try Self.session(other).approveCurrentRequest("x") }
    }

    @Test("scope summaries keep whole scopes and count the rest")
    func scopeSummary() {
        #expect(ScopeList.summary([]) == "-")
        #expect(ScopeList.summary(["operator.read", "operator.write"]) == "operator.read,operator.write")
        let many = ["operator.admin", "operator.approvals", "operator.pairing", "operator.read", "operator.write"]
        let short = ScopeList.summary(many, maxScalars: 41)
        #expect(short == "operator.admin,operator.approvals +3 more", "\(short)")
        #expect(short.count <= 41)
        #expect(ScopeList.summary(many, maxScalars: 40) == "operator.admin +4 more")
        #expect(ScopeList.summary(many, maxScalars: 200) == many.joined(separator: ","))
    }

    @Test("rename, node rename, node remove and setupStatus send closed params and read their records")
    func manageRPCs() throws {
        let connection = ScriptedConnection { method, params, _ throws(GatewayError) in
            switch method {
            case "device.pair.rename": return .object([("deviceId", params?["deviceId"] ?? .null), ("label", params?["label"] ?? .null)])
            case "node.rename": return .object([("nodeId", "n1"), ("displayName", "Pi")])
            case "node.pair.remove": return .object([("nodeId", "n1"), ("token", "secret")])
            case "device.pair.setupStatus":
                return params?["setupId"]?.stringValue == "used"
                    ? .object([("completion", .object([("setupId", "used"), ("deviceId", "d"), ("deviceName", "Phone"), ("access", "full"), ("ts", 7)]))])
                    : .object([])
            default: throw .protocolViolation("unexpected \(method)")
            }
        }
        let session = try Self.session(connection)
        let renamed = try session.renameDevice(deviceId: "d1", label: "Kitchen")
        #expect(renamed.id == "d1" && renamed.name == "Kitchen")
        #expect(connection.sent[0].params == .object([("deviceId", "d1"), ("label", "Kitchen")]))
        #expect(try session.renameNode(nodeId: "n1", displayName: "Pi").name == "Pi")
        #expect(connection.sent[1].params == .object([("nodeId", "n1"), ("displayName", "Pi")]))
        #expect(try session.removeNode(nodeId: "n1")["token"] == .string(OperatorRecords.redactionMarker))
        guard case .completed(let completion) = try session.setupStatus(setupId: "used") else {
            Issue.record("not completed")
            return
        }
        #expect(completion.deviceName == "Phone" && completion.access == "full")
        #expect(try session.setupStatus(setupId: "other") == .outstanding)
        #expect(throws: GatewayError.self) { try SetupStatus(json: .array([])) }
    }

    @Test("clear removes every paired device but the session's own, and rejects pending requests when asked")
    func clear() throws {
        let connection = ScriptedConnection { method, params, _ throws(GatewayError) in
            switch method {
            case "device.pair.list":
                return .object([("pending", .array([Self.request("r1", device: Self.phone, name: nil, ts: 1)])),
                                ("paired", .array([.object([("deviceId", "me"), ("approvedAtMs", 2)]), .object([("deviceId", "other"), ("approvedAtMs", 1)])]))])
            case "device.pair.remove": return .object([("deviceId", params?["deviceId"] ?? .null)])
            case "device.pair.reject": return .object([("requestId", "r1"), ("deviceId", .string(Self.phone))])
            default: throw .protocolViolation("unexpected \(method)")
            }
        }
        let result = try Self.session(connection).clearDevices(rejectPending: true, keepDeviceId: "me")
        #expect(result.removedDevices == ["other"] && result.rejectedPending == ["r1"] && result.kept == ["me"])
        #expect(result.json == .object([("removedDevices", .array(["other"])), ("rejectedPending", .array(["r1"]))]))
    }

    @Test("nodes seen within a window, and nodes named by id, prefix, name or address")
    func nodeFilters() throws {
        let list = try NodeList(json: .object([("ts", 1), ("nodes", .array([
            .object([("nodeId", "node-aaaa"), ("displayName", "Kitchen Pi"), ("connected", true), ("remoteIp", "10.0.0.2")]),
            .object([("nodeId", "node-bbbb"), ("displayName", "Attic"), ("lastSeenAtMs", 1_000)]),
            .object([("nodeId", "node-cccc"), ("lastSeenAtMs", 90_000)]),
        ]))]))
        #expect(list.nodes(seenWithinMs: 20_000, nowMs: 100_000).map(\.nodeId) == ["node-aaaa", "node-cccc"])
        #expect(list.nodes(seenWithinMs: Int64.max, nowMs: 100_000).count == 3)
        #expect(list.nodes(matching: "kitchen pi").map(\.nodeId) == ["node-aaaa"])
        #expect(list.nodes(matching: "10.0.0.2").map(\.nodeId) == ["node-aaaa"])
        #expect(list.nodes(matching: "node-b").map(\.nodeId) == ["node-bbbb"])
        #expect(list.nodes(matching: "node").count == 3)
        #expect(list.nodes(matching: "nod").isEmpty)
        let connected = list.filtered(connectedOnly: true, seenWithinMs: nil, nowMs: 100_000)
        #expect(connected.nodes.map(\.nodeId) == ["node-aaaa"] && connected.hidden == 2)
        #expect(connected.json["nodes"]?.arrayValue?.count == 1 && connected.json["ts"] == 1)
        #expect(list.filtered(connectedOnly: false, seenWithinMs: nil, nowMs: 0).json == list.json)
    }
}
