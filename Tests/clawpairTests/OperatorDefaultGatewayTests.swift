import ClawpairTestSupport
import Foundation
import Testing

/// Issue #24 §7 and §15: an operator command on a machine paired only as a node says that, not
/// the gateway's wording about its own config; a refused --url is never told to use
/// OPENCLAW_GATEWAY_TOKEN, which a --url never gets. The stand-in gateway on loopback, with
/// loopback auto-approval off (after the node paired) so that a connection without a credential is refused.
@Suite("clawpair operator commands: node-only machine, refused --url", .serialized)
struct OperatorDefaultGatewayTests {
    @Test("node-only machine: says it holds only a node token; --url refused: --token-file, no OPENCLAW_GATEWAY_TOKEN")
    func nodeOnlyAndURL() async throws {
        try await GatewayCommandTests.withHome { home in
            let nodeHome = ["CLAWPAIR_HOME": home.directory + "/node"]
            // Paired with loopback approval on, then the same gateway (its state kept, on the same port) with it off.
            var options = TestGatewayOptions(token: GatewayCommandTests.token, stateFile: home.directory + "/gateway-state.json")
            let port = try await withTestGateway(options) { gateway in
                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--node"])
                #expect(minted.status == 0, "\(minted)")
                let paired = try home.run(["pair", "-"], environment: nodeHome, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
                return gateway.port
            }
            options.localAutoApprove = false
            options.port = port
            try await withTestGateway(options) { gateway in
                let listed = try home.run(["devices", "list"], environment: nodeHome)
                #expect(listed.status == 4, "\(listed)")
                #expect(listed.stderr.contains("this machine holds only a node token for "), "\(listed)")
                #expect(listed.stderr.contains("clawpair pair --role operator"), "\(listed)")
                #expect(!listed.stderr.contains("gateway.remote.token") && !listed.stderr.contains("gateway.auth.token"), "\(listed)")

                let byURL = try home.run(["devices", "list", "--url", gateway.url], environment: ["CLAWPAIR_HOME": home.directory + "/fresh"])
                #expect(byURL.status == 4, "\(byURL)")
                #expect(byURL.stderr.contains("--token-file"), "\(byURL)")
                #expect(!byURL.stderr.contains("OPENCLAW_GATEWAY_TOKEN"), "a --url never sends it: \(byURL)")
            }
        }
    }

    @Test("node-only chosen gateway, one other paired as operator: operator commands use that one and say so")
    func defaultThatServes() async throws {
        try await GatewayCommandTests.withHome { home in
            let machine = ["CLAWPAIR_HOME": home.directory + "/machine"]
            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { nodeGateway in
                try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { operatorGateway in
                    let nodeCode = try home.op(nodeGateway, ["qr", "--setup-code-only", "--node"])
                    #expect(try home.run(["pair", "-", "--gateway-name", "nodegw"], environment: machine, stdin: nodeCode.stdout).status == 0)
                    let fullCode = try home.op(operatorGateway, ["qr", "--setup-code-only"])
                    let paired = try home.run(["pair", "--role", "operator", "-", "--gateway-name", "opgw"], environment: machine,
                                              stdin: fullCode.stdout)
                    #expect(paired.status == 0, "\(paired)")
                    #expect(try home.run(["gateways", "use", "nodegw"], environment: machine).status == 0)

                    let listed = try home.run(["nodes", "list", "--json"], environment: machine)  // within a QR operator token's scopes
                    #expect(listed.status == 0, "\(listed)")
                    #expect(listed.stderr.contains("Using opgw: this machine holds only a node token for the chosen gateway nodegw"),
                            "\(listed)")
                    // Named explicitly, the node-only gateway is still used (and refused or approved as it decides).
                    let named = try home.run(["nodes", "list", "--gateway", "nodegw"], environment: machine)
                    #expect(!named.stderr.contains("Using opgw"), "\(named)")
                }
            }
        }
    }
}
