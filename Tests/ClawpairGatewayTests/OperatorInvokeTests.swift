import ClawpairCore
import Testing
@testable import ClawpairGateway

/// `node.invoke` from the operator side: the closed params with a required idempotency key, the
/// node's payload read from `payloadJSON` (or `payload`), and a node's refusal as an RPC error.
@Suite struct OperatorInvokeTests {
    @Test func sendsUpstreamsParamsAndReadsPayloadJSON() throws {
        let connection = DeviceApprovalTests.ScriptedConnection { method, _, _ in
            #expect(method == "node.invoke")
            return ["ok": true, "nodeId": "n", "command": "device.status", "payloadJSON": #"{"uptimeSeconds":5}"#]
        }
        let session = try DeviceApprovalTests.session(connection)
        let call = NodeInvokeCall(nodeId: "n", command: "device.status", params: ["a": 1], timeoutMs: 5000, idempotencyKey: "k1")
        let answer = try session.invokeNode(call)
        #expect(answer.payload == ["uptimeSeconds": 5])
        #expect(connection.sent.first?.params?.compact()
            == #"{"nodeId":"n","command":"device.status","params":{"a":1},"timeoutMs":5000,"idempotencyKey":"k1"}"#)
    }

    @Test func readsAnObjectPayloadAndNone() throws {
        #expect(try NodeInvokeAnswer(json: ["ok": true, "payload": ["x": 1]]).payload == ["x": 1])
        #expect(try NodeInvokeAnswer(json: ["ok": true]).payload == nil)
        #expect(throws: GatewayError.self) { try NodeInvokeAnswer(json: ["payloadJSON": "{nope"]) }
    }

    @Test func aNodesRefusalIsAnRPCError() throws {
        let connection = DeviceApprovalTests.ScriptedConnection { method, _, _ throws(GatewayError) in
            throw .rpcFailed(method: method, GatewayErrorShape(code: "UNAVAILABLE", message: "command not supported"))
        }
        let session = try DeviceApprovalTests.session(connection)
        #expect(throws: GatewayError.self) { try session.invokeNode(NodeInvokeCall(nodeId: "n", command: "x")) }
    }

    @Test func freshKeysDiffer() {
        let keys = Set((0..<16).map { _ in NodeInvokeCall.makeIdempotencyKey() })
        #expect(keys.count == 16)
        #expect(keys.allSatisfy { $0.utf8.count == 22 })
    }
}
