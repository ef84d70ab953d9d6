import ClawpairCore
import Testing
@testable import ClawpairGateway

/// Naming a node by id, id prefix, name or address (`nodes remove/rename`), over a scripted
/// operator connection.
@Suite struct NodeLookupTests {
    typealias Fake = OperatorSessionTests

    static let list: [String: JSONValue] = ["node.list": ["ts": 1, "nodes": [
        ["nodeId": "node-aaaa1111", "displayName": "Kitchen", "remoteIp": "10.0.0.7"],
        ["nodeId": "node-aaaa2222", "displayName": "Hall"],
        ["nodeId": "node-bbbb3333", "displayName": "kitchen"],
    ]]]

    static let unknown = GatewayError.rpcFailed(method: "node.pair.remove", GatewayErrorShape(code: "INVALID_REQUEST", message: "unknown nodeId"))

    @Test("one match gives its id to body; no match passes the query itself as the id")
    func resolves() throws {
        let (session, _) = try Fake.session(Self.list)
        var seen: [String] = []
        let byAddress = try session.withNode(matching: "10.0.0.7") { id in seen.append(id); return 1 }
        #expect(byAddress.nodeId == "node-aaaa1111" && byAddress.result == 1)
        #expect(try session.withNode(matching: "node-bbbb") { seen.append($0) }.nodeId == "node-bbbb3333", "a unique id prefix")
        #expect(try session.withNode(matching: "pending-only") { seen.append($0) }.nodeId == "pending-only")
        #expect(seen == ["node-aaaa1111", "node-bbbb3333", "pending-only"])
    }

    @Test("several matches are ambiguous and body is not called; the gateway's unknown nodeId is unknownNode; other failures pass")
    func failures() throws {
        let (session, _) = try Fake.session(Self.list)
        var called = false
        #expect(throws: NodeLookupError.self) { try session.withNode(matching: "KITCHEN") { _ in called = true } }
        #expect(!called)
        do {
            _ = try session.withNode(matching: "node-aaaa") { _ in }
            Issue.record("a prefix of two ids matched")
        } catch let error as NodeLookupError {
            guard case .ambiguous(let query, let matches) = error else { throw error }
            #expect(query == "node-aaaa" && matches.map(\.nodeId) == ["node-aaaa1111", "node-aaaa2222"])
            #expect(error.message == "node-aaaa matches 2 nodes: node-aaaa1111 (Kitchen); node-aaaa2222 (Hall)")
        }
        #expect(throws: NodeLookupError.unknownNode("ghost\u{1B}")) {
            try session.withNode(matching: "ghost\u{1B}") { _ in throw Self.unknown }
        }
        #expect(NodeLookupError.unknownNode("ghost\u{1B}").message == "no node matches ghost\\x1b")
        #expect(throws: GatewayError.notConnected) { try session.withNode(matching: "Hall") { _ in throw GatewayError.notConnected } }
        #expect(Self.unknown.isUnknownNode && !GatewayError.notConnected.isUnknownNode)
    }
}
