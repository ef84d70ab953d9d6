import ClawpairTestSupport
import Foundation
import Testing

/// Issue #12's stages and limits against the hostile gateway (Tests/Fixtures/hostile_gateway.py)
/// on loopback: silence before `connect.challenge` is exit 3 (nothing reachable) at every step,
/// silence after it exit 1; a message over a limit is exit 1 and the error names the limit that
/// applied, where it came from, and the size the gateway sent.
@Suite("clawpair: stage exit statuses and limit messages (hostile gateway, loopback)", .serialized)
struct GatewayLimitsHostileTests {
    static let timeoutMs = 1500

    static func devicesList(_ scenario: String, _ arguments: [String]) async throws -> GatewayHostileTests.Run {
        try await GatewayHostileTests.withGateway(scenario, arguments) { gateway, home in
            try await GatewayHostileTests.clawpair(["devices", "list", "--url", gateway.url, "--timeout", String(Self.timeoutMs)],
                                                   home: home)
        }
    }

    @Test("a gateway that goes silent: exit 3 before connect.challenge, exit 1 after it", arguments: [
        ("upgrade", 3, "(ws): no WebSocket upgrade within 1500 ms"),
        ("upgraded", 3, "(challenge): the WebSocket upgrade succeeded but no connect.challenge arrived within 1500 ms"),
        ("hello", 1, "the gateway went silent for"),
    ])
    func silence(stallAt: String, status: Int32, message: String) async throws {
        let run = try await Self.devicesList("stall", ["--stall-at", stallAt])
        #expect(run.status == .exited(status), "stall at \(stallAt): \(run.status)\n\(run.stderr)")
        #expect(run.stderr.contains(message), "stall at \(stallAt): \(run.stderr)")
        GatewayHostileTests.expectBounded(run, "stall at \(stallAt)")
    }

    @Test("a gateway that sent connect.challenge and never answers connect: exit 1, like every silence after it")
    func silenceAfterChallenge() async throws {
        let run = try await Self.devicesList("never-read", [])
        #expect(run.status == .exited(1), "\(run.status)\n\(run.stderr)")
        #expect(run.stderr.contains("the gateway did not send the connect response within"), "\(run.stderr)")
    }

    @Test("a message over a limit: exit 1, naming the limit, its source and the size sent", arguments: [
        // Before hello-ok: clawpair's own 64 KiB, whatever the gateway will announce.
        (["--oversize-at", "challenge", "--oversize-bytes", "70000"],
         "the gateway sent 70000 bytes in one message, more than the 65536 bytes clawpair accepts in one message before hello-ok"),
        // After hello-ok: the maxPayload it announced, for a frame over the decoder's 125-byte floor and one under it.
        (["--oversize-at", "hello", "--max-payload", "1", "--oversize-bytes", "300"],
         "the gateway sent 300 bytes in one message, more than the 1-byte maxPayload the gateway announced in hello-ok"),
        (["--oversize-at", "hello", "--max-payload", "1", "--oversize-bytes", "100"],
         "the gateway sent 100 bytes in one message, more than the 1-byte maxPayload the gateway announced in hello-ok"),
        (["--oversize-at", "hello", "--max-payload", "4096", "--oversize-bytes", "5000"],
         "the gateway sent 5000 bytes in one message, more than the 4096-byte maxPayload the gateway announced in hello-ok"),
        // After hello-ok, a maxPayload over clawpair's ceiling: the ceiling applies.
        (["--oversize-at", "hello", "--max-payload", "26214400", "--oversize-bytes", "3000000"],
         "the gateway sent 3000000 bytes in one message, more than clawpair's 2097152-byte ceiling (the gateway announced a maxPayload of 26214400 bytes)"),
        // A control frame: RFC 6455's 125 bytes, with the frame's true (16-bit extended) length.
        (["--oversize-at", "ping", "--oversize-bytes", "200"],
         "the gateway sent a ping frame of 200 bytes, more than the 125 bytes RFC 6455 allows a control frame"),
    ])
    func overLimit(arguments: [String], message: String) async throws {
        let run = try await Self.devicesList("oversize", arguments)
        #expect(run.status == .exited(1), "\(arguments): \(run.status)\n\(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        GatewayHostileTests.expectBounded(run, "\(arguments)")
    }
}
