import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair node run` against the stand-in gateway in the network lab: a node code is minted,
/// `pair` + `node run` bring the node online, the operator invokes its commands and gets
/// upstream's shapes, presence and host stats arrive, SIGTERM ends it with 0, and a revoked node
/// token makes it exit 78 with the token cleared.
@Suite("clawpair node run (network lab)", .serialized, .networkLab)
struct NodeRunLabTests {
    typealias Pairing = GatewayPairingLabTests

    /// Pairs a node named `name` on the node host; returns its clawpair home.
    static func pairNode(_ lab: Pairing.Lab, name: String) async throws -> String {
        let code = try await lab.mint()
        let home = try lab.nodeHome(name)
        let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code, "--name", name],
                                          environment: ["CLAWPAIR_HOME": home], label: "pair")
        let pending = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
        let requestId = try #require(pending["requestId"] as? String)
        #expect(try await lab.asOperator(["devices", "approve", requestId]).status.isSuccess)
        #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
        #expect(pair.stderr.contains("Bring this machine online as the node: clawpair node run"), "\(pair.stderr)")
        return home
    }

    @Test("node run comes online, answers every command in upstream's shapes, reports presence and stats, and stops on SIGTERM")
    func onlineAndInvoked() async throws {
        try await Pairing.withPairingLab { lab in
            let home = try await Self.pairNode(lab, name: "lab-node")
            let node = try lab.nodeHost.spawn([ClawpairBinary.path, "node", "run", "--json", "--commands", "system.which"],
                                              environment: ["CLAWPAIR_HOME": home, "PATH": "/usr/bin:/bin"], label: "node run")
            let connected = try await node.waitForLine(containing: "\"event\":\"connected\"", on: .stdout, timeout: .seconds(30))
            #expect(connected.contains(lab.remoteURL), "\(connected)")
            // The pairing's own connect was with the bootstrap token; node run's is with the stored node token.
            let hello = try await lab.gateway.waitForLog("connect-ok") { $0["auth"] as? String == "device-token" }
            #expect(hello["role"] as? String == "node" && hello["clientId"] as? String == "node-host")
            let presence = try await lab.gateway.waitForLog("node-event", timeout: .seconds(10)) { $0["name"] as? String == "node.presence.alive" }
            #expect((presence["payload"] as? [String: Any])?["trigger"] as? String == "connect")
            #expect((presence["payload"] as? [String: Any])?["platform"] as? String == "linux")
            let stats = try await lab.gateway.waitForLog("node-event", timeout: .seconds(10)) { $0["name"] as? String == "node.host.stats" }
            let sample = try #require(stats["payload"] as? [String: Any])
            #expect((sample["cpuCount"] as? Int ?? 0) >= 1 && (sample["memoryTotalBytes"] as? Int ?? 0) > 0)

            let status = try await lab.asOperator(["nodes", "invoke", "lab-node", "device.status", "--json"])
            #expect(status.status.isSuccess, "\(status)")
            let payload = try #require(try Pairing.json(status.stdout)["payload"] as? [String: Any])
            #expect(Set(payload.keys) == ["battery", "thermal", "storage", "network", "uptimeSeconds"])
            #expect((payload["thermal"] as? [String: Any])?["state"] is String)
            let info = try await lab.asOperator(["nodes", "invoke", "lab-node", "device.info", "--json"])
            let infoPayload = try #require(try Pairing.json(info.stdout)["payload"] as? [String: Any])
            #expect(Set(infoPayload.keys) == ["deviceName", "modelIdentifier", "systemName", "systemVersion", "appVersion", "appBuild", "locale"])
            let which = try await lab.asOperator(["nodes", "invoke", "lab-node", "system.which", "--params", #"{"bins":["ls","nope-xyz"]}"#, "--json"])
            let bins = try #require((try Pairing.json(which.stdout)["payload"] as? [String: Any])?["bins"] as? [String: String])
            #expect(bins == ["ls": "/usr/bin/ls"] || bins == ["ls": "/bin/ls"], "\(which)")
            let notify = try await lab.asOperator(["nodes", "invoke", "lab-node", "system.notify", "--params", #"{"title":"hi","body":"lab"}"#, "--json"])
            // No desktop in the lab: the notification goes to the journal, or is refused when no journal runs either.
            if notify.status.isSuccess {
                #expect((try Pairing.json(notify.stdout)["payload"] as? [String: Any])?["deliveredTo"] as? String != nil)
            } else {
                #expect(notify.stderr.contains("UNAVAILABLE") || notify.stdout.contains("UNAVAILABLE"), "\(notify)")
            }
            let bad = try await lab.asOperator(["nodes", "invoke", "lab-node", "system.which", "--params", #"{"bins":"ls"}"#, "--json"])
            #expect(!bad.status.isSuccess)
            #expect(bad.stdout.contains("INVALID_REQUEST"), "\(bad)")
            // The session goes on after a refused invoke.
            #expect(try await lab.asOperator(["nodes", "invoke", "lab-node", "device.info"]).status.isSuccess)

            node.signal(SIGTERM)
            #expect(try await node.waitForExit(timeout: .seconds(10)) == .exited(0), "\(node.outputExcerpt)")
            #expect(node.stdout.contains("\"event\":\"ended\""), "\(node.stdout)")
            let statusFile = try String(contentsOfFile: home + "/node/status.json", encoding: .utf8)
            #expect(statusFile.contains("\"state\":\"stopped\""), "\(statusFile)")
        }
    }

    @Test("a revoked node token makes node run exit 78 with the token cleared")
    func revokedTokenExits78() async throws {
        try await Pairing.withPairingLab { lab in
            let home = try await Self.pairNode(lab, name: "revoked-node")
            let node = try lab.nodeHost.spawn([ClawpairBinary.path, "node", "run"], environment: ["CLAWPAIR_HOME": home], label: "node run")
            _ = try await node.waitForLine(containing: "connected to", on: .stderr, timeout: .seconds(30))
            let hello = try await lab.gateway.waitForLog("connect-ok") { $0["role"] as? String == "node" }
            let deviceId = try #require(hello["deviceId"] as? String)
            #expect(try await lab.asOperator(["devices", "revoke", "--device", deviceId, "--role", "node"]).status.isSuccess)
            #expect(try await node.waitForExit(timeout: .seconds(60)) == .exited(78), "\(node.outputExcerpt)")
            #expect(node.stderr.contains("clawpair pair - < code.txt"), "\(node.stderr)")
            let records = try FileManager.default.contentsOfDirectory(atPath: home + "/gateways").filter { $0.hasSuffix(".json") }
            let stored = try String(contentsOfFile: home + "/gateways/" + records[0], encoding: .utf8)
            #expect(!stored.contains("\"node\":"), "\(stored)")
        }
    }
}
