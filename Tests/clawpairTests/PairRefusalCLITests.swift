import ClawpairTestSupport
import Foundation
import Testing

/// What `pair` says when the gateway refuses the code's bootstrap token (issue #24 §4): a code
/// that cannot grant the role asked for, a code used up. `pair` has no --token-file, so no hint
/// names it. The stand-in gateway on loopback.
@Suite("clawpair pair: a refused setup code", .serialized)
struct PairRefusalCLITests {
    @Test("a node code asked for the operator role, then a code used up: what happened and a new code, never --token-file")
    func refusedCodes() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--node"])
                #expect(minted.status == 0, "\(minted)")
                let asOperator = try home.run(["pair", "--role", "operator", "-"],
                                              environment: ["CLAWPAIR_HOME": home.directory + "/op"], stdin: minted.stdout)
                #expect(asOperator.status == 4, "\(asOperator)")
                #expect(asOperator.stderr.contains("refused this setup code for the operator role: the code cannot grant that role"),
                        "\(asOperator)")
                #expect(asOperator.stderr.contains("hint: pair as a node (without --role operator), or mint an operator code"),
                        "\(asOperator)")
                #expect(!asOperator.stderr.contains("--token-file") && !asOperator.stderr.contains("OPENCLAW_GATEWAY_TOKEN"),
                        "\(asOperator)")

                let first = try home.run(["pair", "-"], environment: ["CLAWPAIR_HOME": home.directory + "/one"], stdin: minted.stdout)
                #expect(first.status == 0, "\(first)")
                let again = try home.run(["pair", "--json", "-"], environment: ["CLAWPAIR_HOME": home.directory + "/two"],
                                         stdin: minted.stdout)
                #expect(again.status == 4, "\(again)")
                #expect(again.stderr.contains("the code was used up (each code pairs one device)"), "\(again)")
                #expect(again.stderr.contains("hint: mint a new code on the gateway (clawpair qr --node"), "\(again)")
                #expect(!again.stderr.contains("--token-file"), "\(again)")
                let error = try #require(try GatewayCommandTests.json(again.stdout)["error"] as? [String: Any])
                #expect(error["code"] as? String == "auth-rejected" && error["gateway"] is [String: Any], "\(again.stdout)")
            }
        }
    }
}
