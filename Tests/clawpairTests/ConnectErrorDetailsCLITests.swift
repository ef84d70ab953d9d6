import ClawpairTestSupport
import Foundation
import Testing

/// Operator commands against the stand-in gateway speaking 2026.10's connect refusals: each has
/// its exit status, its JSON code (listed in clawpair(1)) and a hint in clawpair's terms; a
/// gateway still starting is waited out within --timeout.
@Suite("connect error details (2026.10, stand-in gateway)", .serialized)
struct ConnectErrorDetailsCLITests {
    typealias Commands = GatewayCommandTests

    @Test("OPERATOR_ACCESS_DENIED, identity refusals and a recommendedNextStep: exit 4, their codes, a hint that says who must act")
    func refusals() async throws {
        try await Commands.withHome { home in
            let cases: [(String, String, String)] = [
                ("OPERATOR_ACCESS_DENIED", "operator-access-denied", "ask an administrator of the gateway to grant this device operator access"),
                ("AUTH_IDENTITY_HEADER_REQUIRED", "identity-required", "trusted proxy"),
                ("AUTH_VERIFIED_USER_REQUIRED", "identity-required", "verified users only"),
                // Waiting helps, or only the gateway's administrator can: not "pass a token".
                ("AUTH_RATE_LIMITED", "auth-rejected", "wait a while, then try again"),
                ("AUTH_TOKEN_NOT_CONFIGURED", "auth-rejected", "its administrator must set one"),
            ]
            for (detail, code, hint) in cases {
                let options = TestGatewayOptions(token: Commands.token, extraArguments: ["--connect-refusal", detail])
                try await withTestGateway(options) { gateway in
                    let human = try home.op(gateway, ["devices", "list"])
                    #expect(human.status == 4, "\(detail): \(human)")
                    #expect(human.stderr.contains("[\(detail)]") && human.stderr.contains(hint), "\(detail): \(human.stderr)")
                    let json = try home.op(gateway, ["devices", "list", "--json"])
                    #expect(json.status == 4)
                    let error = try #require(try Commands.json(json.stdout)["error"] as? [String: Any])
                    #expect(error["code"] as? String == code, "\(detail)")
                    #expect((error["gateway"] as? [String: Any])?["details"] != nil, "the gateway's own error object")
                }
            }
        }
    }

    @Test("a refused shared token with canRetryWithDeviceToken on a loopback gateway: one retry with the stored device token")
    func retriesWithStoredDeviceToken() async throws {
        try await Commands.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Commands.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--setup-code-only"])
                #expect(minted.status == 0, "\(minted)")
                let paired = try home.run(["pair", "--role", "operator", "-"], stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
                let wrong = home.directory + "/wrong-token"
                try "not-the-gateway-token\n".write(toFile: wrong, atomically: true, encoding: .utf8)
                let result = try home.run(["nodes", "list", "--token-file", wrong])
                #expect(result.status == 0, "\(result)")
                let refused = gateway.logs("connect-refused")
                #expect(refused.last?["detailCode"] as? String == "AUTH_TOKEN_MISMATCH", "\(refused)")
                #expect(gateway.logs("connect-ok").last?["auth"] as? String == "device-token")
                #expect(refused.count == 1, "one bounded retry, not a loop")
            }
        }
    }

    @Test("a gateway still starting (UNAVAILABLE startup-sidecars) is waited out: the command succeeds")
    func startingGatewayIsWaitedOut() async throws {
        try await Commands.withHome { home in
            let options = TestGatewayOptions(token: Commands.token, extraArguments: ["--starting-connects", "2"])
            try await withTestGateway(options) { gateway in
                let result = try home.op(gateway, ["devices", "list", "--timeout", "20s"])
                #expect(result.status == 0, "\(result)")
                #expect(gateway.logs("connect-refused").filter { $0["code"] as? String == "UNAVAILABLE" }.count == 2,
                        "the first two connects met a starting gateway")
                #expect(gateway.logs("connect-ok").count == 1)
            }
        }
    }
}
