import ClawpairCore
import ClawpairGateway
import Testing
@testable import ClawpairNode

/// How the runner reads a gateway's answers: which end the run, which clear the node token,
/// which let discovery look elsewhere.
@Suite struct NodeRunnerTests {
    static func shape(_ detail: String) -> GatewayErrorShape {
        GatewayErrorShape(code: "INVALID_REQUEST", message: "unauthorized", details: ["code": .string(detail)])
    }

    @Test func aRefusedNodeTokenIsRevoked() {
        #expect(NodeRunner.isTokenMismatch(.authRejected(Self.shape("AUTH_DEVICE_TOKEN_MISMATCH"))))
        // A node sends no credential but its stored token: a token mismatch can only be that token's.
        #expect(NodeRunner.isTokenMismatch(.authRejected(Self.shape("AUTH_TOKEN_MISMATCH"))))
        #expect(!NodeRunner.isTokenMismatch(.authRejected(Self.shape("AUTH_PASSWORD_MISMATCH"))))
        #expect(!NodeRunner.isTokenMismatch(.unreachable(url: "ws://x", phase: "tcp", reason: "refused")))
    }

    @Test func aPendingApprovalAndACertificateChangeKeepTrying() {
        #expect(!NodeRunner.needsSomeoneToAct(.pairingRequired(PairingRequired(requestId: "r"))))
        #expect(!NodeRunner.needsSomeoneToAct(.tlsTrust(url: "wss://x", .pinMismatch(expected: "a", observed: "b"))))
        #expect(NodeRunner.needsSomeoneToAct(.protocolMismatch(Self.shape("PROTOCOL_MISMATCH"))))
        #expect(NodeRunner.needsSomeoneToAct(.authRejected(Self.shape("AUTH_BOOTSTRAP_TOKEN_INVALID"))))
        #expect(!NodeRunner.needsSomeoneToAct(.closed(code: 1012, reason: "service restart", during: "x")))
    }

    @Test func onlySilenceOrAStrangerSendsDiscoveryLooking() {
        #expect(NodeRunner.mayRelocate(.unreachable(url: "ws://x", phase: "tcp", reason: "timed out")))
        #expect(NodeRunner.mayRelocate(.notGateway(url: "ws://x", reason: "no challenge")))
        #expect(!NodeRunner.mayRelocate(.tlsTrust(url: "wss://x", .pinMismatch(expected: "a", observed: "b"))))
        #expect(!NodeRunner.mayRelocate(.pairingRequired(PairingRequired(requestId: "r"))))
    }

    @Test func theNodeDeclaresUpstreamsClientBlock() {
        let info = NodeClient.info(displayName: "box")
        #expect(info.id == "node-host" && info.mode == "node" && info.platform == "linux" && info.deviceFamily == "Linux")
        #expect(info.displayName == "box" && info.version == ClawpairVersion.current)
    }

    @Test func theSessionCarriesTheNodesDecisions() {
        let options = NodeRunnerOptions(host: NodeHostConfiguration(commands: NodeCommandSet([])), caps: ["b", "a"], displayName: "box")
        let session = options.sessionOptions()
        #expect(session.role == .node && session.client?.id == "node-host" && session.caps == ["a", "b"])
        #expect(session.effectiveNegotiation == .newestThenLegacy && session.stopCloseCode == 1000)
        #expect(session.reconnect.maxDelay == .seconds(4) && session.reconnect.initialDelay == .milliseconds(250))
        #expect(session.reconnect.approvalRetryDelay == .seconds(1) && session.reconnect.retriesChangedCertificate)
        #expect(session.reconnect.jitter == 0 && session.reconnect.immediateCloseCodes.contains(1012))
    }

    @Test func howASessionsEndReads() {
        #expect(NodeRunner.end(nil) == .stopped)
        #expect(NodeRunner.end(.deviceTokenRevoked(role: "node", detail: "AUTH_DEVICE_TOKEN_MISMATCH")) == .tokenRevoked)
        let refused = GatewayError.authRejected(Self.shape("AUTH_BOOTSTRAP_TOKEN_INVALID"))
        #expect(NodeRunner.end(refused) == .failed(refused))
    }

    @Test func theCommandSurfaceStateComesFromNodePairEventsAboutThisNode() {
        func event(_ name: String, _ members: [(String, JSONValue)]) -> GatewayEvent {
            GatewayEvent(name: name, payload: .object(members), seq: nil)
        }
        let pending = NodeRunner.commandApproval(event("node.pair.requested", [("requestId", "nr-1"), ("nodeId", "me")]), nodeId: "me")
        #expect(pending?.pending == true && pending?.requestId == "nr-1")
        let approved = NodeRunner.commandApproval(event("node.pair.resolved", [("requestId", "nr-1"), ("nodeId", "me"),
                                                                               ("decision", "approved")]), nodeId: "me")
        #expect(approved?.pending == false)
        #expect(NodeRunner.commandApproval(event("node.pair.requested", [("requestId", "x"), ("nodeId", "other")]), nodeId: "me") == nil)
        #expect(NodeRunner.commandApproval(event("node.pair.resolved", [("nodeId", "me"), ("decision", "rejected")]), nodeId: "me") == nil)
        #expect(NodeRunner.commandApproval(event("node.invoke.request", [("nodeId", "me")]), nodeId: "me") == nil)
    }

    @Test func nodeListSaysWhetherThisNodesCommandsWaitForAnOperator() {
        func list(_ state: String, request: String? = nil) -> JSONValue {
            var me: [(String, JSONValue)] = [("nodeId", "me"), ("approvalState", .string(state))]
            if let request { me.append(("pendingRequestId", .string(request))) }
            return .object([("ts", 1), ("nodes", .array([.object([("nodeId", "other"), ("approvalState", "pending-approval")]), .object(me)]))])
        }
        #expect(NodeRunner.approvalState(list("pending-approval", request: "nr-7"), nodeId: "me")! == (true, "nr-7"))
        #expect(NodeRunner.approvalState(list("pending-reapproval"), nodeId: "me")! == (true, nil))
        #expect(NodeRunner.approvalState(list("approved"), nodeId: "me")! == (false, nil))
        #expect(NodeRunner.approvalState(list("unapproved"), nodeId: "me") == nil)
        #expect(NodeRunner.approvalState(list("approved"), nodeId: "absent") == nil)
        let pairing: JSONValue = .object([("pending", .array([.object([("requestId", "nr-9"), ("nodeId", "me")])])), ("paired", .array([]))])
        #expect(NodeRunner.pendingRequestId(pairing, nodeId: "me") == "nr-9")
        #expect(NodeRunner.pendingRequestId(pairing, nodeId: "other") == nil)
    }
}
