import ClawpairCore
import ClawpairIdentity
import ClawpairTestSupport
import Testing
@testable import ClawpairGateway

/// The limit a message went over and the stage silence happened in, as the library reports
/// them (issue #12): words and cases, against the stand-in gateway on loopback where a peer is needed.
@Suite("GatewayClient limits and stages", .serialized)
struct GatewayLimitTests {
    @Test("each limit names itself, where it came from, and its size")
    func limitWording() {
        #expect(GatewayMessageLimit.preConnect(bytes: 65536).bytes == 65536)
        #expect(GatewayMessageLimit.ceiling(bytes: 2 << 20, announced: 25 << 20).bytes == 2 << 20)
        #expect(GatewayMessageLimit.controlFrame(opcode: "pong").bytes == 125)
        #expect(GatewayError.frameTooLarge(size: 70000, limit: .preConnect(bytes: 65536)).message
                == "the gateway sent 70000 bytes in one message, more than the 65536 bytes clawpair accepts in one message before hello-ok")
        #expect(GatewayError.frameTooLarge(size: 126, limit: .announced(bytes: 1)).message
                == "the gateway sent 126 bytes in one message, more than the 1-byte maxPayload the gateway announced in hello-ok")
        #expect(GatewayError.frameTooLarge(size: 3_000_000, limit: .ceiling(bytes: 2097152, announced: 26214400)).message
                == "the gateway sent 3000000 bytes in one message, more than clawpair's 2097152-byte ceiling (the gateway announced a maxPayload of 26214400 bytes)")
        #expect(GatewayError.frameTooLarge(size: 200, limit: .controlFrame(opcode: "ping")).message
                == "the gateway sent a ping frame of 200 bytes, more than the 125 bytes RFC 6455 allows a control frame")
    }

    @Test("no connect.challenge in time is unreachable (phase challenge), from the open deadline and from the challenge timer")
    func silenceBeforeTheChallenge() async throws {
        try await withTestGateway(TestGatewayOptions(token: "limit-test-token", fault: .noChallenge)) { gateway in
            for (openTimeout, challengeTimeout) in [(Duration.milliseconds(300), Duration.seconds(6)), (.seconds(6), .milliseconds(300))] {
                let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url),
                                               configuration: GatewayClientConfiguration(challengeTimeout: challengeTimeout))
                defer { client.close() }
                #expect {
                    try client.open(timeout: openTimeout)
                } throws: { error in
                    guard case .unreachable(_, "challenge", let reason) = error as? GatewayError else { return false }
                    return reason == "the WebSocket upgrade succeeded but no connect.challenge arrived within 300 ms"
                }
            }
        }
    }

    @Test("after hello-ok, a message over the announced maxPayload names it and the message's size")
    func overTheAnnouncedLimit() async throws {
        try await withTestGateway(TestGatewayOptions(token: "limit-test-token", fault: .oversized, maxPayload: 4096)) { gateway in
            let client = try GatewayClient(endpoint: try GatewayEndpoint(parsing: gateway.url))
            defer { client.close() }
            try client.open(timeout: .seconds(5))
            let request = ConnectRequest(client: .operatorCLI(version: "test", platform: "Linux"), role: .operator,
                                         scopes: ConnectRequest.operatorScopes, auth: ConnectAuth(token: "limit-test-token"))
            try client.connect(request, identity: try DeviceIdentity.generate(createdAtMs: 0), timeout: .seconds(5))
            #expect {
                _ = try client.call("node.list", timeout: .seconds(5))
            } throws: { error in
                guard case .frameTooLarge(let size, .announced(4096)) = error as? GatewayError else { return false }
                return size > 4096
            }
        }
    }
}
