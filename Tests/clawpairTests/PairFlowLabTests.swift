import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair pair` while it waits for an operator, against both upstream generations of the
/// stand-in gateway in the network lab: the progress it shows, a rejection, and the retry
/// fallback of gateways that do not hold the refused socket.
@Suite("clawpair pair: waiting (network lab)", .serialized, .networkLab)
struct PairFlowLabTests {
    typealias Pairing = GatewayPairingLabTests

    @Test("current gateway, operator: the refused socket is held (device-pairing-wait); a long wait shows elapsed time, the request id and the approve command; a rejection ends it with exit 4")
    func progressThenRejected() async throws {
        try await Pairing.withPairingLab { lab in
            let code = try await lab.mint([])
            let home = try lab.nodeHome("waiting")
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--role", "operator", "--code-file", code, "--name", "waiting",
                                               "--wait", "2m"],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair (waiting)")
            let held = try await lab.gateway.waitForLog("waiting", timeout: .seconds(20))
            let requestId = try #require(held["requestId"] as? String)
            let still = try await pair.waitForLine(containing: "Still waiting", on: .stderr, timeout: .seconds(60))
            #expect(still == "Still waiting (30s) for approval of pairing request \(requestId); on the gateway host run: "
                    + "clawpair devices approve \(requestId)")
            #expect(try await lab.asOperator(["devices", "reject", requestId]).status.isSuccess)
            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(4), "\(pair.outputExcerpt)")
            let lines = pair.stderr.split(separator: "\n").map(String.init)
            #expect(lines.suffix(2) == ["error: pairing request \(requestId) was rejected on the gateway",
                                        "hint: run 'clawpair pair' again, and have the new request approved while it is pending"],
                    "\(pair.stderr)")
            // The gateway saw the device once: no retry after the rejection.
            #expect(lab.gateway.logs("pending").count == 1)
        }
    }

    @Test("current gateway, node: no push for a node bootstrap; pair asks again about once a second and an approval lands on the next attempt")
    func nodeRetriesSteadily() async throws {
        try await Pairing.withPairingLab { lab in
            let code = try await lab.mint()
            let home = try lab.nodeHome("steady")
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code, "--name", "steady"],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair (node, steady)")
            let pending = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
            let requestId = try #require(pending["requestId"] as? String)
            _ = try await lab.gateway.waitForLog("connect-refused", occurrence: 3, timeout: .seconds(20))
            #expect(try await lab.asOperator(["devices", "approve", requestId]).status.isSuccess)
            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
            #expect(lab.gateway.logs("waiting").isEmpty, "a node is never held")
            #expect(lab.gateway.logs("pending").count == 1, "every retry reused the pending request")
        }
    }

    @Test("--wait 3s runs its full length: attempts until 3 s, then 'not approved within 3s' (it used to quit after 1 s)")
    func waitRunsItsLength() async throws {
        try await Pairing.withPairingLab { lab in
            let code = try await lab.mint()
            let home = try lab.nodeHome("short")
            let pair = try await lab.nodeHost.run([ClawpairBinary.path, "pair", "--code-file", code, "--name", "short", "--wait", "3s"],
                                                  environment: ["CLAWPAIR_HOME": home])
            #expect(pair.status == .exited(4), "\(pair)")
            #expect(pair.stderr.contains("was not approved within 3s"), "\(pair.stderr)")
            // Attempts at about 0, 1, 2 and 3 s (a 1 s, 2 s backoff made two, at 0 and 1 s).
            #expect(lab.gateway.logs("connect-refused").count >= 3, "\(lab.gateway.logs("connect-refused").count) attempts")
        }
    }

    @Test("older gateway: no held socket; pair retries and an approval lands on a retry")
    func olderGatewayRetries() async throws {
        try await Pairing.withPairingLab(generation: .g3) { lab in
            let code = try await lab.mint()
            let home = try lab.nodeHome("retrying")
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code, "--name", "retrying"],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair (g3)")
            let pending = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
            let requestId = try #require(pending["requestId"] as? String)
            // It asks again with the same request (the refusal closed at once).
            _ = try await lab.gateway.waitForLog("connect-refused", occurrence: 2, timeout: .seconds(20))
            #expect(try await lab.asOperator(["devices", "approve", requestId]).status.isSuccess)
            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
            #expect(lab.gateway.logs("waiting").isEmpty)
            #expect(pair.stderr.contains("Next: 'clawpair nodes status' on the gateway shows this machine."), "one step only: \(pair.stderr)")
            #expect(lab.gateway.logs("pending").count == 1, "every retry reused the pending request")
        }
    }
}

/// `clawpair pair` input handling that needs no gateway.
@Suite("clawpair pair: input")
struct PairInputCLITests {
    @Test("a gateway URL on the command line is no secret: no visibility warning, only the missing credential")
    func urlIsNoSecret() throws {
        let result = try ClawpairBinary.run(["pair", "ws://127.0.0.1:18789"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr == "error: the setup code carries no bootstrap token, token or password\n"
                + "hint: it only names a gateway; mint a pairing code with 'clawpair qr'\n", "\(result)")
    }

    @Test("a setup code on the command line still warns that it is visible")
    func codeInArgvWarns() throws {
        let token = "bootstrap-token-0123456789abcdef"
        let encoded = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://127.0.0.1:9", "--bootstrap-token", "-"],
                                             stdin: token + "\n", nowMs: 1_800_000_000_000)
        #expect(encoded.status == 0, "\(encoded)")
        let code = encoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try ClawpairBinary.run(["pair", code, "--timeout", "500"], nowMs: 1_800_000_000_000)
        #expect(result.stderr.hasPrefix("warning: a setup code on the command line is visible to other users"), "\(result)")
        #expect(!result.stderr.contains(token))
    }
}
