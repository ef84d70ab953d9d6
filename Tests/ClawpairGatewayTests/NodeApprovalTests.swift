import ClawpairCore
import Testing
@testable import ClawpairGateway

/// Two-step node approval over a scripted operator connection: which step an id belongs to,
/// the RPC each step uses, the node's name, and ids that are not pending.
@Suite struct NodeApprovalTests {
    typealias Fake = OperatorSessionTests

    static let lists: [String: JSONValue] = [
        "device.pair.list": ["pending": [
            ["requestId": "dev-req", "deviceId": "node-dev", "publicKey": "pk", "displayName": "build-box", "role": "node", "ts": 2],
            ["requestId": "op-req", "deviceId": "op-dev", "publicKey": "pk2", "displayName": "phone", "role": "operator", "ts": 1],
        ], "paired": []],
        "node.pair.list": ["pending": [["requestId": "surf-req", "nodeId": "node-dev", "displayName": "build-box",
                                        "commands": ["system.run"], "ts": 3]], "paired": []],
    ]

    @Test("pending lists step 1 (node-role device requests only) then step 2")
    func pending() throws {
        let (session, _) = try Fake.session(Self.lists)
        let pending = try NodeApprovals.pending(session)
        #expect(pending.map(\.requestId) == ["dev-req", "surf-req"])
        #expect(pending.map(\.step) == [.devicePairing, .commandSurface])
        #expect(pending[1].commands == ["system.run"] && pending[0].name == "build-box")
        #expect(pending[0].json["step"] == "device-pairing")
    }

    @Test("approving a step-1 id uses device.pair.approve, a step-2 id node.pair.approve; the node is named from the answer")
    func resolveByStep() throws {
        var answers = Self.lists
        answers["device.pair.approve"] = ["requestId": "dev-req", "device": ["deviceId": "node-dev", "displayName": "build-box"]]
        answers["node.pair.approve"] = ["requestId": "surf-req", "node": ["nodeId": "node-dev", "displayName": "Build Box", "token": "secret"]]
        let (session, connection) = try Fake.session(answers)
        let first = try NodeApprovals.resolve("dev-req", approve: true, session: session)
        #expect(first.request.step == .devicePairing && first.nodeName == "build-box")
        let second = try NodeApprovals.resolve("surf-req", approve: true, session: session)
        #expect(second.request.step == .commandSurface && second.nodeName == "Build Box")
        #expect(second.json["node"]?["token"] == "<redacted>")
        #expect(connection.sent.map(\.method).filter { $0.hasSuffix("approve") } == ["device.pair.approve", "node.pair.approve"])
    }

    @Test("an id that is not pending, or that the gateway no longer knows, is unknownRequest; nothing is approved")
    func unknown() throws {
        var answers = Self.lists
        answers.removeValue(forKey: "node.pair.approve")
        let (session, connection) = try Fake.session(answers)
        #expect(throws: NodeApprovalError.unknownRequest("op-req", pending: 2)) {
            try NodeApprovals.resolve("op-req", approve: true, session: session)
        }
        #expect(!connection.sent.contains { $0.method.hasSuffix("approve") })
        #expect(NodeApprovalError.unknownRequest("x", pending: 0).message == "no pending node request has the id x")
    }
}
