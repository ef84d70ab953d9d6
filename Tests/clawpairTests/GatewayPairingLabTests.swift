import ClawpairTestSupport
import Foundation
import Testing

/// Pairing across a network: the stand-in gateway runs in lab host G (listening on its link
/// address and on loopback), an operator uses clawpair on G over loopback, and a second clawpair
/// in lab host N pairs from a setup code, as a node on a headless machine would.
@Suite("clawpair pair (network lab)", .serialized, .networkLab)
struct GatewayPairingLabTests {
    static let token = "lab-shared-token-abcdef0123456789"
    static let port = 18789

    struct Lab {
        let gatewayHost: LabHost
        let nodeHost: LabHost
        let gateway: TestGateway
        let gatewayIP: String
        let tokenFile: String
        let operatorHome: String
        let directory: String

        var localURL: String { "ws://127.0.0.1:\(GatewayPairingLabTests.port)" }
        var remoteURL: String { "ws://\(gatewayIP):\(GatewayPairingLabTests.port)" }

        /// clawpair as the operator on the gateway host.
        func asOperator(_ arguments: [String]) async throws -> ProcessResult {
            try await gatewayHost.run([ClawpairBinary.path] + arguments + ["--url", localURL, "--token-file", tokenFile],
                                      environment: ["CLAWPAIR_HOME": operatorHome], timeout: .seconds(30))
        }

        /// A fresh clawpair home for a device on the node host (clawpair creates it, 0700).
        func nodeHome(_ name: String) throws -> String {
            directory + "/" + name
        }

        /// Mints a setup code as the operator and writes it to a file only the test reads.
        func mint(_ extra: [String] = ["--node"]) async throws -> String {
            let minted = try await asOperator(["qr", "--setup-code-only", "--public-url", remoteURL] + extra)
            try #require(minted.status.isSuccess, "\(minted)")
            let file = directory + "/code-\(UUID().uuidString.prefix(6)).txt"
            try minted.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
    }

    static func withPairingLab(generation: TestGatewayOptions.Generation = .g4, extraArguments: [String] = [],
                               _ body: (Lab) async throws -> Void) async throws {
        try await withNetworkLab { lab in
            let g = try await lab.addHost("G")
            let n = try await lab.addHost("N")
            let link = try await lab.link(g, n)
            let directory = lab.temporaryDirectory.path
            let tokenFile = try lab.writeFile("token", contents: token + "\n")
            let operatorHome = directory + "/operator-home"
            var options = TestGatewayOptions(token: token, publicURL: "ws://\(link.a.ipv4):\(port)",
                                             hosts: [link.a.ipv4, "127.0.0.1"], port: port)
            options.generation = generation
            options.extraArguments = extraArguments
            let gateway = try await startTestGateway(options, in: g)
            try await body(Lab(gatewayHost: g, nodeHost: n, gateway: gateway, gatewayIP: link.a.ipv4, tokenFile: tokenFile,
                               operatorHome: operatorHome, directory: directory))
            await gateway.stop(grace: .seconds(2))
        }
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestError("not a JSON object: \(text)")
        }
        return object
    }

    @Test("a node pairs from a setup code: pending, approved, token stored, reconnects with it, listed by nodes status")
    func nodePairsAndIsApproved() async throws {
        try await Self.withPairingLab { lab in
            let code = try await lab.mint()
            let home = try lab.nodeHome("node")
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code, "--name", "lab-node", "--json"],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair")
            let pending = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
            let requestId = try #require(pending["requestId"] as? String)
            #expect(pending["role"] as? String == "node")
            _ = try await pair.waitForLine(containing: "clawpair devices approve \(requestId)", on: .stderr, timeout: .seconds(10))

            // The operator sees the request, previews it with --latest, and approves it by the device's id.
            let listed = try Self.json(try await lab.asOperator(["devices", "list", "--json"]).stdout)
            let request = try #require((listed["pending"] as? [[String: Any]])?.first)
            #expect(request["requestId"] as? String == requestId)
            #expect(request["clientId"] as? String == "node-host")
            #expect(request["displayName"] as? String == "lab-node")
            let preview = try await lab.asOperator(["devices", "approve", "--latest"])
            #expect(preview.status.isSuccess, "\(preview)")
            #expect(preview.stdout.contains("To approve it: clawpair devices approve \(requestId)"))
            // Named by its device id, the device's current request is approved (issue #15 §1).
            let approved = try await lab.asOperator(["devices", "approve", try #require(request["deviceId"] as? String)])
            #expect(approved.status.isSuccess, "\(approved)")
            #expect(approved.stderr.contains("(device id) is request \(requestId)"), "\(approved)")
            #expect(approved.stdout.contains("Approved lab-node"))
            #expect(approved.stdout.contains(" as node with no scopes."), "\(approved)")

            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
            let result = try Self.json(pair.stdout)
            #expect(result["ok"] as? Bool == true)
            #expect(result["role"] as? String == "node")
            #expect(result["requestId"] as? String == requestId)
            let gateway = try #require(result["gateway"] as? [String: Any])
            let gatewayId = try #require(gateway["id"] as? String)
            #expect((gateway["urls"] as? [String])?.first == lab.remoteURL)
            #expect(!pair.stdout.contains(Self.token))

            // The record: 0600 in a 0700 directory, the token inside, the gateway chosen.
            let record = home + "/gateways/\(gatewayId).json"
            let attributes = try FileManager.default.attributesOfItem(atPath: record)
            #expect(attributes[.posixPermissions] as? Int == 0o600)
            #expect(try FileManager.default.attributesOfItem(atPath: home + "/gateways")[.posixPermissions] as? Int == 0o700)
            let stored = try Self.json(try String(contentsOfFile: record, encoding: .utf8))
            #expect((stored["tokens"] as? [String: Any])?["node"] != nil)
            #expect(try String(contentsOfFile: home + "/gateways/active", encoding: .utf8) == gatewayId + "\n")

            // Reconnect with the device token.
            let check = try await lab.nodeHost.run([ClawpairBinary.path, "gateways", "check", "--json"], environment: ["CLAWPAIR_HOME": home])
            #expect(check.status.isSuccess, "\(check)")
            let checked = try Self.json(check.stdout)
            #expect((checked["results"] as? [[String: Any]])?.first?["ok"] as? Bool == true)
            let reconnect = try await lab.gateway.waitForLog("connect-ok") { $0["auth"] as? String == "device-token" }
            #expect(reconnect["role"] as? String == "node")

            let status = try Self.json(try await lab.asOperator(["nodes", "status", "--json"]).stdout)
            let nodes = try #require(status["nodes"] as? [[String: Any]])
            #expect(nodes.contains { $0["nodeId"] as? String == request["deviceId"] as? String && $0["paired"] as? Bool == true })
            let human = try await lab.asOperator(["nodes", "status"])
            #expect(human.stdout.contains("lab-node"))

            // The code is used up: another device cannot redeem it.
            let other = try await lab.nodeHost.run([ClawpairBinary.path, "pair", "--code-file", code, "--wait", "0"],
                                                   environment: ["CLAWPAIR_HOME": try lab.nodeHome("other")])
            #expect(other.status == .exited(4), "\(other)")
            // pair says what the refusal means for a code (issue #24 §4), not the gateway's wording.
            #expect(other.stderr.contains("the gateway refused this setup code: its pairing request was rejected, or the code "
                                          + "was used up"), "\(other)")
            #expect(!other.stderr.contains("--token-file"), "\(other)")

            // list/forget on the node side.
            let list = try await lab.nodeHost.run([ClawpairBinary.path, "gateways", "list"], environment: ["CLAWPAIR_HOME": home])
            #expect(list.stdout.contains("* \(lab.gatewayIP)"))
            let forget = try await lab.nodeHost.run([ClawpairBinary.path, "gateways", "forget", gatewayId], environment: ["CLAWPAIR_HOME": home])
            #expect(forget.status.isSuccess, "\(forget)")
            #expect(!FileManager.default.fileExists(atPath: record))
            #expect(!FileManager.default.fileExists(atPath: home + "/gateways/active"))
        }
    }

    @Test("an operator pairs with a full code and then works with its stored device token alone")
    func operatorPairsAndUsesStoredToken() async throws {
        try await Self.withPairingLab { lab in
            let code = try await lab.mint([])
            let home = try lab.nodeHome("operator2")
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--role", "operator", "--code-file", code],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair operator")
            let pending = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
            let requestId = try #require(pending["requestId"] as? String)
            let approved = try await lab.asOperator(["devices", "approve", "--latest", "--yes", "--json"])
            #expect(approved.status.isSuccess, "\(approved)")
            #expect(try Self.json(approved.stdout)["requestId"] as? String == requestId)
            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
            #expect(pair.stdout.contains("as operator"))

            // No --url, no token: the chosen gateway and its stored operator token.
            let nodes = try await lab.nodeHost.run([ClawpairBinary.path, "nodes", "status", "-v"], environment: ["CLAWPAIR_HOME": home])
            #expect(nodes.status.isSuccess, "\(nodes)")
            #expect(nodes.stderr.contains("credential: the operator device token stored for"))
        }
    }

    @Test("reject a request; rotate, revoke and remove a paired device")
    func rejectRotateRevokeRemove() async throws {
        try await Self.withPairingLab { lab in
            let code = try await lab.mint()
            let home = try lab.nodeHome("managed")
            // An operator pairing is held (device-pairing-wait), so the rejection is pushed to it.
            let first = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--role", "operator", "--code-file", try await lab.mint([]),
                                                "--name", "managed"],
                                               environment: ["CLAWPAIR_HOME": home], label: "pair (to reject)")
            let pending = try await lab.gateway.waitForLog("pending", timeout: .seconds(20))
            let requestId = try #require(pending["requestId"] as? String)
            let deviceId = try #require(pending["deviceId"] as? String)
            let wrongVerb = try await lab.asOperator(["devices", "remove", requestId])
            #expect(wrongVerb.status == .exited(2), "\(wrongVerb)")
            #expect(wrongVerb.stderr.contains("is a pending request id, not a paired device id"))
            let rejected = try await lab.asOperator(["devices", "reject", requestId, "--json"])
            #expect(rejected.status.isSuccess, "\(rejected)")
            #expect(try Self.json(rejected.stdout)["deviceId"] as? String == deviceId)
            _ = try await lab.gateway.waitForLog("rejected")
            // The gateway (current generation) pushes the decision to the waiting socket: pair stops.
            #expect(try await first.waitForExit(timeout: .seconds(10)) == .exited(4), "\(first.outputExcerpt)")
            #expect(first.outputExcerpt.contains("pairing request \(requestId) was rejected on the gateway"), "\(first.outputExcerpt)")

            // Pair again and approve; then manage the device's token and pairing.
            let second = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code, "--name", "managed"],
                                                environment: ["CLAWPAIR_HOME": home], label: "pair (to approve)")
            let again = try await lab.gateway.waitForLog("pending", occurrence: 2, timeout: .seconds(20))
            let secondId = try #require(again["requestId"] as? String)
            #expect(secondId != requestId)
            #expect(try await lab.asOperator(["devices", "approve", secondId]).status.isSuccess)
            #expect(try await second.waitForExit(timeout: .seconds(20)) == .exited(0), "\(second.outputExcerpt)")

            let rotated = try await lab.asOperator(["devices", "rotate", "--device", deviceId, "--role", "node", "--json"])
            #expect(rotated.status.isSuccess, "\(rotated)")
            let rotation = try Self.json(rotated.stdout)
            #expect(rotation["tokenDelivery"] as? String == "withheld-cross-device")
            // As the note says: the device is not handed the new token; its next connect is refused.
            let afterRotate = try await lab.nodeHost.run([ClawpairBinary.path, "gateways", "check"], environment: ["CLAWPAIR_HOME": home])
            #expect(afterRotate.status == .exited(4), "a withheld rotation leaves the device without a working token: \(afterRotate)")
            let revoked = try await lab.asOperator(["devices", "revoke", "--device", deviceId, "--role", "node"])
            #expect(revoked.status.isSuccess, "\(revoked)")
            #expect(revoked.stdout.contains("Revoked the node token"))
            let check = try await lab.nodeHost.run([ClawpairBinary.path, "gateways", "check"], environment: ["CLAWPAIR_HOME": home])
            #expect(check.status == .exited(4), "a revoked token is refused: \(check)")

            let removed = try await lab.asOperator(["devices", "remove", deviceId])
            #expect(removed.status.isSuccess, "\(removed)")
            let listed = try Self.json(try await lab.asOperator(["devices", "list", "--json"]).stdout)
            #expect(!((listed["paired"] as? [[String: Any]]) ?? []).contains { $0["deviceId"] as? String == deviceId })
        }
    }

    @Test("Ctrl-C while waiting for approval leaves no registry state; an unapproved wait ends with exit 4")
    func interruptedAndUnapproved() async throws {
        try await Self.withPairingLab { lab in
            let code = try await lab.mint()
            let home = try lab.nodeHome("interrupted")
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--code-file", code],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair (interrupted)")
            _ = try await pair.waitForLine(containing: "Waiting for approval", on: .stderr, timeout: .seconds(20))
            pair.signal(SIGINT)
            let ended = try await pair.waitForExit(timeout: .seconds(10))
            #expect(ended != .exited(0))
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: home + "/gateways")) ?? []
            #expect(entries.isEmpty, "\(entries)")

            let waited = try await lab.nodeHost.run([ClawpairBinary.path, "pair", "--code-file", code, "--wait", "1500"],
                                                    environment: ["CLAWPAIR_HOME": home])
            #expect(waited.status == .exited(4), "\(waited)")
            #expect(waited.stderr.contains("was not approved within"))
        }
    }
}
