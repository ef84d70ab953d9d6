import ClawpairTestSupport
import Foundation
import Testing

/// `nodes describe`, and the 2026.10 node fields in `nodes list/status`, against the stand-in
/// gateway with a node paired and connected through `gateways check`.
@Suite("nodes describe and 2026.10 node fields (network lab)", .serialized, .networkLab)
struct NodesDescribeCLITests {
    typealias Pairing = GatewayPairingLabTests

    static let stats = #"{"cpuCount":4,"loadAverage":[0.52,0.48,0.4],"memoryTotalBytes":4294967296,"#
        + #""memoryFreeBytes":1288490188,"diskTotalBytes":53687091200,"diskAvailableBytes":21474836480}"#

    @Test("describe a node by name: approval state, connect history and host stats, text and JSON; an older gateway is not asked")
    func describe() async throws {
        try await Pairing.withPairingLab(extraArguments: ["--node-host-stats", Self.stats]) { lab in
            let home = try lab.nodeHome("describe-me")
            let code = try await lab.mint()
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code, "--name", "describe-me"],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair node")
            _ = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
            #expect(try await lab.asOperator(["devices", "approve", "--latest", "--yes"]).status.isSuccess)
            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
            // One node-role connect and disconnect: the gateway records both.
            #expect(try await lab.nodeHost.run([ClawpairBinary.path, "gateways", "check"], environment: ["CLAWPAIR_HOME": home])
                        .status.isSuccess)

            let text = try await lab.asOperator(["nodes", "describe", "describe-me"])
            #expect(text.status.isSuccess, "\(text)")
            #expect(text.stdout.contains("state     approved · paired"), "\(text.stdout)")
            #expect(text.stdout.contains("history   last connected "), "\(text.stdout)")
            #expect(text.stdout.contains("· disconnected "), "\(text.stdout)")
            #expect(text.stdout.contains("host      4 CPUs · load 0.52 0.48 0.40 · memory 1.1 of 4.0 GiB free · disk 20.0 of 50.0 GiB free"),
                    "\(text.stdout)")

            let json = try Pairing.json(try await lab.asOperator(["nodes", "describe", "describe-me", "--json"]).stdout)
            #expect(json["ok"] as? Bool == true)
            #expect(json["displayName"] as? String == "describe-me")
            #expect(json["approvalState"] as? String == "approved")
            #expect(json["lastConnectedAtMs"] is Int && json["lastDisconnectedAtMs"] is Int)
            #expect((json["hostStats"] as? [String: Any])?["cpuCount"] as? Int == 4)

            let status = try await lab.asOperator(["nodes", "status"])
            #expect(status.stdout.contains("host      4 CPUs"), "\(status.stdout)")
            let listed = try Pairing.json(try await lab.asOperator(["nodes", "list", "--json"]).stdout)
            let node = try #require((listed["nodes"] as? [[String: Any]])?.first)
            #expect(node["active"] as? Bool == false && node["lastConnectedAtMs"] is Int)
        }
        // A gateway without node.describe (its hello-ok does not list it): said so, never called.
        try await Pairing.withPairingLab(extraArguments: ["--without-method", "node.describe"]) { lab in
            let result = try await lab.asOperator(["nodes", "describe", "anything", "--json"])
            #expect(result.status == .exited(1), "\(result)")
            let error = try #require(try Pairing.json(result.stdout)["error"] as? [String: Any])
            #expect(error["code"] as? String == "unsupported-method")
            #expect((error["message"] as? String)?.contains("does not support node.describe (a newer OpenClaw has it)") == true, "\(error)")
            #expect(!lab.gateway.logs("rpc").contains { $0["method"] as? String == "node.describe" })
        }
    }
}
