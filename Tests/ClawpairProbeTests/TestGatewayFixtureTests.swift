import ClawpairTestSupport
import Foundation
import Testing

/// The stand-in gateway (Tests/Fixtures/openclaw_gateway.py) against an independent client
/// (bench/py_gateway_client.py), both Python, on loopback: so that the fixture the gateway
/// and pairing tests rely on is itself checked against the spec in CI. Needs no root.
@Suite("Stand-in gateway fixture", .serialized)
struct TestGatewayFixtureTests {
    /// A private directory for token files and identities, removed afterwards.
    final class Scratch {
        let path = NSTemporaryDirectory() + "clawpair-gwfix-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Writes a secret to a 0600 file and returns its path.
        func secret(_ name: String, _ value: String) throws -> String {
            let file = "\(path)/\(name)"
            guard FileManager.default.createFile(atPath: file, contents: Data((value + "\n").utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw TestError("cannot write \(file)")
            }
            return file
        }

        func file(_ name: String) -> String { "\(path)/\(name)" }
    }

    static let token = "fixture-token-\(UInt64.random(in: 0...UInt64.max))"

    @Test func listWorksWithTheSharedToken() async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let result = try await runGatewayClient(["--url", gateway.url, "--token-file", try scratch.secret("token", Self.token),
                                                     "--identity", scratch.file("device.json")])
            #expect(result.status == .exited(0), "\(result.stdout)\(result.stderr)")
            let payload = try #require(result.json)
            #expect(payload["pending"] as? [Any] != nil)
            let paired = try #require(payload["paired"] as? [[String: Any]])
            // Loopback connects are approved silently; the list shows the caller, connected, redacted.
            #expect(paired.count == 1)
            #expect(paired.first?["connected"] as? Bool == true)
            #expect(paired.first?["approvedScopes"] == nil)
            let tokens = try #require(paired.first?["tokens"] as? [[String: Any]])
            #expect(tokens.allSatisfy { $0["token"] == nil })
            let ok = try await gateway.waitForLog("connect-ok")
            #expect(ok["auth"] as? String == "token")
            #expect(ok["deviceId"] as? String == paired.first?["deviceId"] as? String)
            try await gateway.waitForLog("rpc") { $0["method"] as? String == "device.pair.list" && $0["ok"] as? Bool == true }
            // No line carries the shared token.
            #expect(!gateway.process.stdout.contains(Self.token))
        }
    }

    @Test func aWrongTokenIsRefusedWithTheUpstreamDetailCode() async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let result = try await runGatewayClient(["--url", gateway.url, "--token-file", try scratch.secret("token", "not-the-token")])
            #expect(result.status == .exited(4), "\(result.stdout)\(result.stderr)")
            #expect(result.errorCode == "AUTH_TOKEN_MISMATCH")
            let error = try #require(result.json?["error"] as? [String: Any])
            #expect(error["code"] as? String == "INVALID_REQUEST")
            let refused = try await gateway.waitForLog("connect-refused")
            #expect(refused["detailCode"] as? String == "AUTH_TOKEN_MISMATCH")
        }
    }

    @Test func aWrongOrMissingPasswordIsRefused() async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(password: "fixture-password")) { gateway in
            let wrong = try await runGatewayClient(["--url", gateway.url, "--password-file", try scratch.secret("pw", "nope")])
            #expect(wrong.status == .exited(4))
            #expect(wrong.errorCode == "AUTH_PASSWORD_MISMATCH")
            let missing = try await runGatewayClient(["--url", gateway.url])
            #expect(missing.errorCode == "AUTH_PASSWORD_MISSING")
            let right = try await runGatewayClient(["--url", gateway.url, "--password-file", try scratch.secret("pw2", "fixture-password")])
            #expect(right.status == .exited(0), "\(right.stdout)")
        }
    }

    @Test(arguments: [
        (["--bad-signature"], "DEVICE_AUTH_SIGNATURE_INVALID"),
        (["--nonce-override", "not-the-challenge"], "DEVICE_AUTH_NONCE_MISMATCH"),
        (["--nonce-override", ""], "DEVICE_AUTH_NONCE_REQUIRED"),
        (["--signed-at-offset-ms", "121000"], "DEVICE_AUTH_SIGNATURE_EXPIRED"),
        (["--device-id-override", String(repeating: "0", count: 64)], "DEVICE_AUTH_DEVICE_ID_MISMATCH"),
        (["--extra-param", #"{"unknownField":1}"#], "INVALID_REQUEST"),
    ])
    func deviceProofFailuresAreRefused(extra: [String], code: String) async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let result = try await runGatewayClient(["--url", gateway.url, "--token-file", try scratch.secret("token", Self.token)] + extra)
            #expect(result.status == .exited(6), "\(result.stdout)\(result.stderr)")
            #expect(result.errorCode == code)
            #expect(gateway.logs("connect-ok").isEmpty)
        }
    }

    @Test func v3SignaturesAndOlderProtocolNodesAreAccepted() async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let token = try scratch.secret("token", Self.token)
            let v3 = try await runGatewayClient(["--url", gateway.url, "--token-file", token, "--sign", "v3",
                                                 "--device-family", "Desktop", "--method", "-"])
            #expect(v3.status == .exited(0), "\(v3.stdout)")
            #expect(v3.json?["type"] as? String == "hello-ok")
            let node = try await runGatewayClient(["--url", gateway.url, "--token-file", token, "--role", "node",
                                                   "--min-protocol", "3", "--max-protocol", "3", "--method", "-"])
            #expect(node.json?["protocol"] as? Int == 3, "\(node.stdout)")
            let operatorV3 = try await runGatewayClient(["--url", gateway.url, "--token-file", token,
                                                         "--min-protocol", "3", "--max-protocol", "3", "--method", "-"])
            #expect(operatorV3.errorCode == "PROTOCOL_MISMATCH")
        }
    }

    @Test func pairingRequiresApprovalWhenLoopbackAutoApprovalIsOff() async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(token: Self.token, localAutoApprove: false)) { gateway in
            let token = try scratch.secret("token", Self.token)
            let device = ["--url", gateway.url, "--token-file", token, "--identity", scratch.file("device.json")]
            let first = try await runGatewayClient(device)
            #expect(first.status == .exited(5))
            let details = try #require((first.json?["error"] as? [String: Any])?["details"] as? [String: Any])
            #expect(details["code"] as? String == "PAIRING_REQUIRED")
            #expect(details["reason"] as? String == "not-paired")
            let requestId = try #require(details["requestId"] as? String)
            let pending = try await gateway.waitForLog("pending")
            #expect(pending["requestId"] as? String == requestId)
            // Same request again: same id. Different scopes: superseded by a new id.
            let again = try await runGatewayClient(device)
            #expect(((again.json?["error"] as? [String: Any])?["details"] as? [String: Any])?["requestId"] as? String == requestId)
            let changed = try await runGatewayClient(device + ["--scopes", "operator.pairing"])
            let newId = try #require(((changed.json?["error"] as? [String: Any])?["details"] as? [String: Any])?["requestId"] as? String)
            #expect(newId != requestId)
            try await gateway.waitForLog("superseded") { $0["requestId"] as? String == requestId }
            // A device-less operator with the shared token approves; the stale id is unknown.
            let stale = try await runGatewayClient(["--url", gateway.url, "--token-file", token, "--no-device",
                                                    "--method", "device.pair.approve", "--params", #"{"requestId":"\#(requestId)"}"#])
            #expect(stale.status == .exited(1))
            #expect((stale.json?["error"] as? [String: Any])?["message"] as? String == "unknown requestId")
            let approve = try await runGatewayClient(["--url", gateway.url, "--token-file", token, "--no-device",
                                                      "--method", "device.pair.approve", "--params", #"{"requestId":"\#(newId)"}"#])
            #expect(approve.status == .exited(0), "\(approve.stdout)")
            try await gateway.waitForLog("approved") { $0["requestId"] as? String == newId }
            let paired = try await runGatewayClient(device + ["--scopes", "operator.pairing"])
            #expect(paired.status == .exited(0), "\(paired.stdout)")
            // Asking for admin on top is a scope upgrade, never approved silently.
            let upgrade = try await runGatewayClient(device + ["--scopes", "operator.pairing,operator.admin"])
            #expect(((upgrade.json?["error"] as? [String: Any])?["details"] as? [String: Any])?["reason"] as? String == "scope-upgrade")
        }
    }

    @Test func setupCodeBootstrapsAnIOSNodeWithTheOperatorHandoff() async throws {
        let scratch = try Scratch()
        try await withTestGateway(TestGatewayOptions(token: Self.token, localAutoApprove: false)) { gateway in
            let token = try scratch.secret("token", Self.token)
            let issued = try await runGatewayClient(["--url", gateway.url, "--token-file", token, "--no-device",
                                                     "--method", "device.pair.setupCode", "--params", #"{"includeQr":false}"#])
            let result = try #require(issued.json, "\(issued.stdout)")
            #expect(result["access"] as? String == "full", "loopback ws:// is not downgraded")
            #expect(result["urlSource"] as? String == "gateway.bind=loopback")
            let setupId = try #require(result["setupId"] as? String)
            let code = try #require(result["setupCode"] as? String)
            var base64 = code.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let json = try #require(Data(base64Encoded: base64))
            let payload = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(payload["url"] as? String == gateway.url)
            #expect(payload["expiresAtMs"] as? Int == result["expiresAtMs"] as? Int)
            let bootstrap = try scratch.secret("bootstrap", try #require(payload["bootstrapToken"] as? String))
            let logged = try await gateway.waitForLog("setup-code")
            #expect(logged["setupCode"] as? String == code)

            let phone = ["--url", gateway.url, "--bootstrap-token-file", bootstrap, "--role", "node",
                         "--client-id", "openclaw-ios", "--client-mode", "node", "--platform", "iOS 18.4.0",
                         "--device-family", "iPhone", "--display-name", "Test iPhone", "--sign", "v3", "--method", "-"]
            let hello = try await runGatewayClient(phone + ["--identity", scratch.file("phone.json")])
            let auth = try #require(hello.json?["auth"] as? [String: Any], "\(hello.stdout)")
            #expect(auth["role"] as? String == "node")
            let handoff = try #require(auth["deviceTokens"] as? [[String: Any]])
            #expect(handoff.map { $0["role"] as? String } == ["node", "operator"])
            #expect((handoff[1]["scopes"] as? [String])?.contains("operator.pairing") == false)
            let ok = try await gateway.waitForLog("connect-ok") { $0["clientId"] as? String == "openclaw-ios" }
            #expect(ok["auth"] as? String == "bootstrap")

            let status = try await runGatewayClient(["--url", gateway.url, "--token-file", token, "--no-device",
                                                     "--method", "device.pair.setupStatus", "--params", #"{"setupId":"\#(setupId)"}"#])
            let completion = try #require(status.json?["completion"] as? [String: Any], "\(status.stdout)")
            #expect(completion["deviceName"] as? String == "Test iPhone")
            // Both roles were redeemed, so the token is used up, also for a second phone.
            let second = try await runGatewayClient(phone + ["--identity", scratch.file("phone2.json")])
            #expect(second.errorCode == "AUTH_BOOTSTRAP_TOKEN_INVALID")
        }
    }

    @Test func noChallengeMakesTheClientTimeOut() async throws {
        try await withTestGateway(TestGatewayOptions(token: Self.token, fault: .noChallenge)) { gateway in
            let started = ContinuousClock.now
            let result = try await runGatewayClient(["--url", gateway.url, "--timeout", "1"])
            #expect(result.status == .exited(3))
            #expect(result.errorCode == "TIMEOUT")
            #expect(result.json?["stage"] as? String == "challenge")
            #expect(ContinuousClock.now - started >= .milliseconds(900))
        }
    }

    @Test(arguments: [
        (TestGatewayOptions.Fault.garbage, "BAD_FRAME", "challenge"),
        (.oversized, "CLOSED", "rpc"),
        (.closeMidCall, "CLOSED", "rpc"),
        (.stallCall, "TIMEOUT", "rpc"),
    ])
    func faults(fault: TestGatewayOptions.Fault, code: String, stage: String) async throws {
        let scratch = try Scratch()
        let options = TestGatewayOptions(token: Self.token, fault: fault, tickMs: 200, maxPayload: fault == .oversized ? 4096 : nil)
        try await withTestGateway(options) { gateway in
            let result = try await runGatewayClient(["--url", gateway.url, "--token-file", try scratch.secret("token", Self.token),
                                                     "--timeout", "1", "--max-size", "4096"])
            #expect(result.status == .exited(3), "\(result.stdout)\(result.stderr)")
            #expect(result.errorCode == code)
            #expect(result.json?["stage"] as? String == stage)
        }
    }

    @Test("a remote device is never approved silently, even with the shared token; a LAN setup code is limited", .networkLab)
    func remoteConnectsWaitForApprovalInALab() async throws {
        let scratch = try Scratch()
        let token = try scratch.secret("token", Self.token)
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let server = try await lab.addHost("gateway")
            let link = try await lab.link(client, server)
            let options = TestGatewayOptions(token: Self.token, hosts: [link.b.ipv4, "127.0.0.1"])
            try await withTestGateway(options, in: server) { gateway in
                #expect(gateway.url == "ws://\(link.b.ipv4):\(gateway.port)")
                let device = ["--url", gateway.url, "--token-file", token, "--identity", scratch.file("device.json")]
                let first = try await runGatewayClient(device, in: client)
                #expect(first.status == .exited(5), "\(first.stdout)\(first.stderr)")
                let details = try #require((first.json?["error"] as? [String: Any])?["details"] as? [String: Any])
                let requestId = try #require(details["requestId"] as? String)
                let pending = try await gateway.waitForLog("pending")
                #expect(pending["requestId"] as? String == requestId)
                // Approved over the gateway's own loopback by a device-less operator.
                let approve = try await runGatewayClient(["--url", "ws://127.0.0.1:\(gateway.port)", "--token-file", token, "--no-device",
                                                          "--method", "device.pair.approve", "--params", #"{"requestId":"\#(requestId)"}"#],
                                                         in: server)
                #expect(approve.status == .exited(0), "\(approve.stdout)")
                let code = try await runGatewayClient(device + ["--method", "device.pair.setupCode", "--params", #"{"includeQr":false}"#],
                                                      in: client)
                let result = try #require(code.json, "\(code.stdout)\(code.stderr)")
                #expect(result["gatewayUrl"] as? String == gateway.url)
                #expect(result["access"] as? String == "limited")
                #expect(result["accessDowngraded"] as? Bool == true)
                let ok = try await gateway.waitForLog("connect-ok") { $0["deviceId"] as? String != nil }
                #expect(ok["auth"] as? String == "token")
            }
        }
    }

    @Test func stopsPromptlyWithStatusZero() async throws {
        let gateway = try await startTestGateway(TestGatewayOptions(token: Self.token))
        let started = ContinuousClock.now
        let status = await gateway.stop()
        #expect(status == .exited(0))
        // A hang bound, not a speed claim: exited(0) already says it ended on SIGTERM, not a kill.
        #expect(ContinuousClock.now - started < .milliseconds(Harness.hangSlackMs))
    }
}
