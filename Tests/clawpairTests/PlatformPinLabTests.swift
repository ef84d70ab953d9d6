import ClawpairTestSupport
import Foundation
import Testing

/// Gateways pin the platform and device family a device was paired with and compare them
/// exactly on every connect (upstream `src/gateway/server/ws-connection/connect-device-metadata.ts`;
/// the stand-in gateway follows it). clawpair sends one constant, `linux`/`Linux`, on every connect:
/// pairing with the library's defaults, operator commands, `gateways check` (also as a node), and
/// the kernel release never enters it.
@Suite("platform pin: one platform string (network lab)", .serialized, .networkLab)
struct PlatformPinLabTests {
    typealias Pairing = GatewayPairingLabTests

    /// Every operator command path a paired machine uses, and `gateways check` (one connect per
    /// stored role: operator and node).
    static let operatorPaths: [[String]] = [
        ["devices", "list"], ["nodes", "list"], ["nodes", "status"], ["nodes", "pending"], ["gateways", "check"],
    ]
    /// Paths that need operator.pairing, which a setup code's hand-off does not grant: they
    /// connect (no re-approval) and are then refused the call, not the connection.
    static let pairingScopePaths: Set<[String]> = [["devices", "list"], ["nodes", "pending"]]

    /// Whether `result` of `path` is what a paired device gets: success, or for a path that needs
    /// operator.pairing the missing-scope refusal of the call (never a pairing request).
    static func connected(_ path: [String], _ result: ProcessResult) -> Bool {
        if result.status.isSuccess { return true }
        return pairingScopePaths.contains(path) && result.stderr.contains("[MISSING_SCOPE]")
    }

    /// Pairs an operator (full code) and then a node (node code) on the node host, each approved
    /// by the operator on the gateway host; returns the clawpair home.
    static func pairOperatorAndNode(_ lab: Pairing.Lab, name: String) async throws -> String {
        let home = try lab.nodeHome(name)
        for (extra, role) in [([String](), "operator"), (["--node"], "node")] {
            let code = try await lab.mint(extra)
            let before = lab.gateway.logs("pending").count
            let pair = try lab.nodeHost.spawn([ClawpairBinary.path, "pair", "--role", role, "--code-file", code, "--name", name],
                                              environment: ["CLAWPAIR_HOME": home], label: "pair \(role)")
            _ = try await lab.gateway.waitForLog("pending", occurrence: before + 1, timeout: .seconds(20))
            let approved = try await lab.asOperator(["devices", "approve", "--latest", "--yes"])
            #expect(approved.status.isSuccess, "\(approved)")
            #expect(try await pair.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pair.outputExcerpt)")
        }
        return home
    }

    @Test("paired with the library's defaults: every operator path and a node connect need no re-approval, also under another kernel release")
    func noReapproval() async throws {
        try await Pairing.withPairingLab { lab in
            let home = try await Self.pairOperatorAndNode(lab, name: "pinned")
            let pending = lab.gateway.logs("pending").count
            let refused = lab.gateway.logs("connect-refused").count
            let arch = try await lab.nodeHost.run(["uname", "-m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // setarch --uname-2.6 makes uname(2) report a 2.6.x release: a kernel upgrade, as far as
            // any client that put the release in its platform could tell.
            for prefix in [[], ["setarch", arch, "--uname-2.6"]] {
                for path in Self.operatorPaths {
                    let command = prefix.isEmpty ? [ClawpairBinary.path] + path : prefix + [ClawpairBinary.path] + path
                    let result = try await lab.nodeHost.run(command, environment: ["CLAWPAIR_HOME": home])
                    #expect(Self.connected(path, result), "\(prefix) \(path): \(result)")
                }
            }
            #expect(lab.gateway.logs("pending").count == pending, "no command made a new pairing request")
            let checks = lab.gateway.logs("connect-ok").filter { $0["role"] as? String == "node" && $0["auth"] as? String == "device-token" }
            #expect(checks.count >= 2, "gateways check connected as the node with its stored token")
            #expect(lab.gateway.logs("connect-refused").count == refused, "\(lab.gateway.logs("connect-refused").suffix(3))")
        }
    }

    @Test("a device paired reporting 'Linux <release>' is told once, precisely, to approve the metadata-upgrade; then it works")
    func legacyPlatformMetadataUpgrade() async throws {
        try await withNetworkLab { networkLab in
            let g = try await networkLab.addHost("G")
            let n = try await networkLab.addHost("N")
            let link = try await networkLab.link(g, n)
            let directory = networkLab.temporaryDirectory.path
            let tokenFile = try networkLab.writeFile("token", contents: Pairing.token + "\n")
            var options = TestGatewayOptions(token: Pairing.token, publicURL: "ws://\(link.a.ipv4):\(Pairing.port)",
                                             hosts: [link.a.ipv4, "127.0.0.1"], port: Pairing.port)
            options.stateFile = directory + "/gateway-state.json"
            func lab(_ gateway: TestGateway) -> Pairing.Lab {
                Pairing.Lab(gatewayHost: g, nodeHost: n, gateway: gateway, gatewayIP: link.a.ipv4, tokenFile: tokenFile,
                            operatorHome: directory + "/operator-home", directory: directory)
            }
            let first = try await startTestGateway(options, in: g)
            let home = try await Self.pairOperatorAndNode(lab(first), name: "legacy")
            await first.stop(grace: .seconds(2))

            // What an older clawpair left on the gateway: the device pinned as "Linux <release>".
            let stateURL = URL(fileURLWithPath: options.stateFile!)
            var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: stateURL)) as? [String: Any])
            var paired = try #require(state["paired"] as? [String: [String: Any]])
            let deviceId = try #require(paired.first { $0.value["displayName"] as? String == "legacy" }?.key)
            paired[deviceId]?["platform"] = "Linux 6.1.0-28-amd64"
            state["paired"] = paired
            try JSONSerialization.data(withJSONObject: state).write(to: stateURL)

            let gateway = try await startTestGateway(options, in: g)
            let restarted = lab(gateway)
            let check = try await n.run([ClawpairBinary.path, "gateways", "check"], environment: ["CLAWPAIR_HOME": home])
            #expect(check.status == .exited(4), "\(check)")
            let request = try #require(gateway.logs("pending").last)
            let requestId = try #require(request["requestId"] as? String)
            #expect(check.stderr.contains("metadata-upgrade"), "\(check.stderr)")
            #expect(check.stderr.contains("older clawpair releases sent 'Linux <kernel release>'; it now always sends 'linux', "
                                          + "so this happens once): approve that request once on the gateway host: "
                                          + "clawpair devices approve \(requestId)"), "\(check.stderr)")
            #expect(!check.stderr.contains("revoked"), "the token was not revoked: \(check.stderr)")

            for pendingRequest in gateway.logs("pending") {
                let id = try #require(pendingRequest["requestId"] as? String)
                _ = try await restarted.asOperator(["devices", "approve", id])
            }
            let settled = gateway.logs("pending").count
            for path in Self.operatorPaths {
                let result = try await n.run([ClawpairBinary.path] + path, environment: ["CLAWPAIR_HOME": home])
                #expect(Self.connected(path, result), "\(path): \(result)")
            }
            #expect(gateway.logs("pending").count == settled, "approved once, asked never again")
            await gateway.stop(grace: .seconds(2))
        }
    }
}
