import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairTestSupport
import Foundation
import Synchronization
import Testing
@testable import ClawpairNode

/// A NodeRunner against the stand-in gateway (g4) on loopback: its command surface waits for an
/// operator; with an operator token stored beside the node token, the runner reads that from
/// node.list, says so once with the request to approve, and says "approved" once an operator
/// approved it; a stop ends the run.
@Suite("NodeRunner (loopback)", .serialized)
struct NodeRunnerLoopbackTests {
    static let token = "node-runner-test-token-0123456789"

    final class Events: Sendable {
        private let events = Watched<[NodeRunnerEvent]>([])
        func append(_ event: NodeRunnerEvent) { events.update { $0.append(event) } }
        var all: [NodeRunnerEvent] { events.value }

        /// Waits for the first event `match` picks, looking again at each event (a hang bound
        /// only, not a timing assertion).
        func wait<T>(_ what: String, _ match: @escaping @Sendable (NodeRunnerEvent) -> T?) async throws -> T {
            guard await events.wait(until: { $0.contains { match($0) != nil } }),
                  let found = all.lazy.compactMap(match).first else {
                throw TestError("no \(what); events: \(all)")
            }
            return found
        }
    }

    /// Connects once with the shared token and returns hello-ok.
    static func connect(_ url: String, _ request: ConnectRequest, identity: DeviceIdentity) throws -> (GatewayClient, HelloOK) {
        let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: url))
        try client.open(timeout: .seconds(5))
        let hello = try client.connect(request, identity: identity, timeout: .seconds(5))
        return (client, hello)
    }

    @Test("a waiting command surface is read from node.list (operator token stored), said once, then 'approved' once approved")
    func commandApprovalFromNodeList() async throws {
        let home = NSTemporaryDirectory() + "clawpair-node-runner-\(UUID().uuidString.prefix(8))"
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            let commands = ["device.info"]
            // The node connects first (approved silently on loopback, its command surface left waiting),
            // then the same device as an operator (a silent role upgrade on loopback).
            let node = NodeClient.info(displayName: "lab-node")
            let (nodeClient, nodeHello) = try Self.connect(gateway.url, ConnectRequest(client: node, role: .node, scopes: [], commands: commands,
                                                                                     auth: ConnectAuth(token: Self.token)), identity: identity)
            nodeClient.close()
            let operatorInfo = GatewayClientInfo.operatorCLI(version: ClawpairVersion.current, displayName: "lab-node")
            let (operatorClient, operatorHello) = try Self.connect(
                gateway.url, ConnectRequest(client: operatorInfo, role: .operator, scopes: ConnectRequest.operatorScopes,
                                            auth: ConnectAuth(token: Self.token)), identity: identity)
            defer { operatorClient.close() }
            let surface = try NodePairingList(json: try operatorClient.call("node.pair.list", params: .object([]), timeout: .seconds(5)))
            let request = try #require(surface.pending.first { $0.nodeId == identity.deviceId })

            let registry = GatewayRegistry(home: home)
            let record = PairedGateway(name: "lab", urls: [gateway.url], deviceId: identity.deviceId,
                                       tokens: [try #require(nodeHello.deviceToken), try #require(operatorHello.deviceToken)],
                                       pairedAtMs: 0, deviceName: "lab-node")
            try registry.save(record)
            var options = NodeRunnerOptions(host: NodeHostConfiguration(commands: NodeCommandSet([NodeCommand("device.info") { _ in [:] }])),
                                            displayName: "lab-node", discovery: nil, commandApprovalCheck: .milliseconds(200))
            options.connectTimeout = .seconds(5)
            let runner = NodeRunner(gateway: record, registry: registry, identity: identity, options: options)
            let events = Events()
            let end = Mutex<NodeRunnerEnd?>(nil)
            let thread = BackgroundThread.start {
                let result = runner.run { events.append($0) }
                end.withLock { $0 = result }
            }
            defer {
                runner.stop()
                thread?.join()
            }
            let waiting = try await events.wait("a waiting command surface") { event -> String?? in
                if case .commandsAwaitingApproval(let id) = event { return .some(id) } else { return nil }
            }
            #expect(waiting == request.requestId)
            _ = try operatorClient.call("node.pair.approve", params: .object([("requestId", .string(request.requestId))]), timeout: .seconds(5))
            _ = try await events.wait("commands approved") { event -> Bool? in
                if case .commandsApproved = event { return true } else { return nil }
            }
            let said = events.all.filter {
                if case .commandsAwaitingApproval = $0 { return true } else { return false }
            }
            #expect(said.count == 1, "one line per state change: \(events.all)")
            runner.stop()
            thread?.join()
            #expect(end.withLock { $0 } == .stopped)
        }
    }

    @Test("a node on a protocol-3 gateway says connecting once and connected (protocol 3): the 4→3 fallback is no disconnection")
    func protocolThreeIsNoDisconnection() async throws {
        let home = NSTemporaryDirectory() + "clawpair-node-runner-\(UUID().uuidString.prefix(8))"
        var gatewayOptions = TestGatewayOptions(token: Self.token)
        gatewayOptions.extraArguments = ["--protocol", "3"]
        try await withTestGateway(gatewayOptions) { gateway in
            let identity = try DeviceIdentity.generate(createdAtMs: 0)
            let node = NodeClient.info(displayName: "lab-node")
            var request = ConnectRequest(client: node, role: .node, scopes: [], auth: ConnectAuth(token: Self.token))
            request.protocolRange = 3...3
            let (client, hello) = try Self.connect(gateway.url, request, identity: identity)
            client.close()
            let registry = GatewayRegistry(home: home)
            let record = PairedGateway(name: "lab", urls: [gateway.url], deviceId: identity.deviceId,
                                       tokens: [try #require(hello.deviceToken)], pairedAtMs: 0, deviceName: "lab-node")
            try registry.save(record)
            var options = NodeRunnerOptions(host: NodeHostConfiguration(commands: NodeCommandSet([])), displayName: "lab-node",
                                            discovery: nil, commandApprovalCheck: nil)
            options.connectTimeout = .seconds(5)
            let runner = NodeRunner(gateway: record, registry: registry, identity: identity, options: options)
            let events = Events()
            let thread = BackgroundThread.start { _ = runner.run { events.append($0) } }
            defer {
                runner.stop()
                thread?.join()
            }
            let version = try await events.wait("a connection") { event -> Int64? in
                if case .connected(_, let version) = event { return version } else { return nil }
            }
            #expect(version == 3)
            runner.stop()
            thread?.join()
            let connecting = events.all.filter { if case .connecting = $0 { return true } else { return false } }
            let disconnected = events.all.filter { if case .disconnected = $0 { return true } else { return false } }
            #expect(connecting.count == 1, "\(events.all)")
            #expect(disconnected.isEmpty, "\(events.all)")
        }
    }
}
