import ClawpairTestSupport
import Foundation
import Testing

/// `devices approve` by name or prefix (and its preview), `devices rename/clear`, `nodes
/// list/status/rename/remove`, `qr --voice-node`, against the stand-in gateway on loopback.
@Suite("clawpair approvals and upstream parity (loopback)", .serialized)
struct ApprovalsCLITests {
    typealias Home = GatewayCommandTests.Home
    static let token = GatewayCommandTests.token
    static func json(_ text: String) throws -> [String: Any] { try GatewayCommandTests.json(text) }

    static func pending(_ home: Home, _ gateway: TestGateway) throws -> [[String: Any]] {
        try #require(try json(try home.op(gateway, ["devices", "list", "--json"]).stdout)["pending"] as? [[String: Any]])
    }

    @Test("approve resolves a name or a prefix to the device's current request, says so, and prints role and scopes")
    func approveByNameAndPrefix() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--seed-device-request", "Pixel 8", "--seed-device-request", "ThinkPad",
                                      "--seed-device-request", "pixel 8"]
            try await withTestGateway(options) { gateway in
                let requests = try Self.pending(home, gateway)
                #expect(requests.count == 3)

                // Two devices are called "pixel 8": exit 2 naming both.
                let ambiguous = try home.op(gateway, ["devices", "approve", "PIXEL 8"])
                #expect(ambiguous.status == 2, "\(ambiguous)")
                #expect(ambiguous.stderr.contains("PIXEL 8 matches 2 devices' requests: "), "\(ambiguous)")
                #expect(ambiguous.stderr.contains("hint: give more of the id: clawpair devices approve <request-id>"))

                let byName = try home.op(gateway, ["devices", "approve", "thinkpad"])
                #expect(byName.status == 0, "\(byName)")
                let thinkpad = try #require(requests.first { $0["displayName"] as? String == "ThinkPad" })
                let thinkpadRequest = try #require(thinkpad["requestId"] as? String)
                let thinkpadDevice = try #require(thinkpad["deviceId"] as? String)
                #expect(byName.stderr.contains("thinkpad (name) is request \(thinkpadRequest)"), "\(byName)")
                #expect(byName.stdout == "Approved ThinkPad (\(thinkpadDevice.prefix(12))…) as operator with scopes operator.read.\n",
                        "\(byName)")

                // A device id cut as the table shows it.
                let pixel = try #require(requests.first { $0["displayName"] as? String == "Pixel 8" })
                let pixelDevice = try #require(pixel["deviceId"] as? String)
                let byPrefix = try home.op(gateway, ["devices", "approve", String(pixelDevice.prefix(12)) + "…", "--json"])
                #expect(byPrefix.status == 0, "\(byPrefix)")
                #expect(byPrefix.stderr.contains("(device id prefix) is request \(pixel["requestId"] as? String ?? "?")"), "\(byPrefix)")
                let approved = try Self.json(byPrefix.stdout)
                #expect(approved["requestId"] as? String == pixel["requestId"] as? String)

                // Already paired: exit 2; nothing matches: exit 3.
                let again = try home.op(gateway, ["devices", "approve", thinkpadDevice])
                #expect(again.status == 2, "\(again)")
                #expect(again.stderr.contains("is a paired device's id or name, with no pending request"))
                let none = try home.op(gateway, ["devices", "approve", "nobody-here"])
                #expect(none.status == 3, "\(none)")
                #expect(none.stderr.contains("no pending pairing request matches nobody-here"))
            }
        }
    }

    @Test("approve with no name previews the newest request and approves nothing; list sorts newest first")
    func approvePreviewAndListOrder() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--seed-device-request", "older", "--seed-device-request", "newer"]
            try await withTestGateway(options) { gateway in
                let preview = try home.op(gateway, ["devices", "approve"])
                #expect(preview.status == 0, "\(preview)")
                let requests = try Self.pending(home, gateway)
                #expect(requests.count == 2)
                // Newest first; equal times (both seeded in the same millisecond) by request id.
                let ordered = requests.sorted { a, b in
                    let ta = a["ts"] as? Int ?? 0, tb = b["ts"] as? Int ?? 0
                    return ta != tb ? ta > tb : (a["requestId"] as? String ?? "") < (b["requestId"] as? String ?? "")
                }
                let newest = try #require(ordered.first)
                #expect(preview.stdout.contains("To approve it: clawpair devices approve \(newest["requestId"] as? String ?? "?")"),
                        "\(preview)")
                #expect(preview.stderr.contains("nothing was approved"))
                let json = try Self.json(try home.op(gateway, ["devices", "approve", "--json"]).stdout)
                #expect(json["approved"] as? Bool == false)
                #expect(try Self.pending(home, gateway).count == 2)

                let list = try home.op(gateway, ["devices", "list"])
                let older = try #require(list.stdout.range(of: " older "))
                let newer = try #require(list.stdout.range(of: " newer "))
                #expect((newest["displayName"] as? String == "newer") == (newer.lowerBound < older.lowerBound), "\(list.stdout)")
            }
        }
    }

    @Test("devices rename labels a device; clear needs --yes and keeps this machine's device")
    func renameAndClear() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--seed-device-request", "tablet", "--seed-device-request", "phone"]
            try await withTestGateway(options) { gateway in
                #expect(try home.op(gateway, ["devices", "approve", "tablet"]).status == 0)
                let list = try Self.json(try home.op(gateway, ["devices", "list", "--json"]).stdout)
                let tablet = try #require((list["paired"] as? [[String: Any]])?.first { $0["displayName"] as? String == "tablet" })
                let tabletId = try #require(tablet["deviceId"] as? String)

                let renamed = try home.op(gateway, ["devices", "rename", "tablet", "Kitchen tablet"])
                #expect(renamed.status == 0, "\(renamed)")
                #expect(renamed.stdout == "Renamed device \(tabletId.prefix(12))… to Kitchen tablet.\n")
                let relisted = try Self.json(try home.op(gateway, ["devices", "list", "--json"]).stdout)
                let label = (relisted["paired"] as? [[String: Any]])?.first { $0["deviceId"] as? String == tabletId }?["operatorLabel"]
                #expect(label as? String == "Kitchen tablet")
                let tooLong = try home.op(gateway, ["devices", "rename", "tablet", String(repeating: "x", count: 65)])
                #expect(tooLong.status == 2, "\(tooLong)")

                let refused = try home.op(gateway, ["devices", "clear"])
                #expect(refused.status == 2, "\(refused)")
                #expect(refused.stderr.contains("add --yes"))
                let cleared = try home.op(gateway, ["devices", "clear", "--yes", "--pending", "--json"])
                #expect(cleared.status == 0, "\(cleared)")
                let result = try Self.json(cleared.stdout)
                #expect(result["removedDevices"] as? [String] == [tabletId], "\(cleared)")
                #expect((result["rejectedPending"] as? [String])?.count == 1)
                let after = try Self.json(try home.op(gateway, ["devices", "list", "--json"]).stdout)
                #expect((after["pending"] as? [Any])?.isEmpty == true)
                #expect((after["paired"] as? [Any])?.count == 1)
                let human = try home.op(gateway, ["devices", "clear", "--yes"])
                #expect(human.stdout == "Removed 0 devices.\n", "\(human)")
                #expect(human.stderr.contains("Kept this machine's device"))
            }
        }
    }

    @Test("nodes list, status --connected / --last-connected with offline nodes, rename and remove")
    func nodes() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.seedNodeRequests = ["kitchen-pi"]
            try await withTestGateway(options) { gateway in
                let empty = try home.op(gateway, ["nodes", "list"])
                #expect(empty.status == 0, "\(empty)")
                #expect(empty.stdout == "No nodes.\n")
                let bare = try home.op(gateway, ["nodes", "list", "--last-connected", "24"])
                #expect(bare.status == 2, "\(bare)")
                #expect(bare.stderr.contains("give a duration with a unit"))

                let request = try #require((try Self.json(try home.op(gateway, ["nodes", "pending", "--json"]).stdout)["pending"]
                                            as? [[String: Any]])?.first)
                let nodeId = try #require(request["nodeId"] as? String)
                #expect(try home.op(gateway, ["nodes", "approve", try #require(request["requestId"] as? String)]).status == 0)

                let renamed = try home.op(gateway, ["nodes", "rename", nodeId, "Kitchen display", "--json"])
                #expect(renamed.status == 0, "\(renamed)")
                #expect(try Self.json(renamed.stdout)["displayName"] as? String == "Kitchen display")

                let removed = try home.op(gateway, ["nodes", "remove", nodeId])
                #expect(removed.status == 0, "\(removed)")
                #expect(removed.stdout == "Removed node \(nodeId).\n")
                let unknown = try home.op(gateway, ["nodes", "rename", "no-such-node", "x"])
                #expect(unknown.status == 3, "\(unknown)")
                #expect(unknown.stderr.contains("no node matches no-such-node"))
            }
        }
    }

    @Test("qr --voice-node asks for the voice-node profile; only one profile flag")
    func qrVoiceNode() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--voice-node", "--json"])
                #expect(minted.status == 0, "\(minted)")
                #expect(try Self.json(minted.stdout)["access"] as? String == "voice-node")
                let both = try home.op(gateway, ["qr", "--voice-node", "--node"])
                #expect(both.status == 2, "\(both)")
                #expect(both.stderr.contains("give one of --limited, --node and --voice-node"))
            }
        }
    }

    @Test("a missing scope is exit 4: an operator paired with a limited code (no operator.pairing) lists nodes but not devices")
    func missingScope() async throws {
        try await GatewayCommandTests.withHome { home in
            let operatorHome = ["CLAWPAIR_HOME": home.directory + "/limited"]
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--limited"])
                #expect(minted.status == 0, "\(minted)")
                let paired = try home.run(["pair", "-", "--role", "operator"], environment: operatorHome, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
                let nodes = try home.run(["nodes", "list"], environment: operatorHome)
                #expect(nodes.status == 0, "operator.read is enough for node.list: \(nodes)")
                let devices = try home.run(["devices", "list"], environment: operatorHome)
                #expect(devices.status == 4, "\(devices)")
                #expect(devices.stderr.contains("operator.pairing"), "\(devices.stderr)")
                let json = try home.run(["devices", "list", "--json"], environment: operatorHome)
                #expect(json.status == 4, "\(json)")
                let envelope = try Self.json(json.stdout)
                let error = try #require(envelope["error"] as? [String: Any], "\(json.stdout)")
                #expect(envelope["ok"] as? Bool == false && error["message"] as? String != nil, "\(json.stdout)")
            }
        }
    }

    @Test("a paired node offline: status --connected says so; gateways check: refused after remove (4, pair again), unreachable (3)")
    func offlineNodeAndCheck() async throws {
        try await GatewayCommandTests.withHome { home in
            let nodeHome = ["CLAWPAIR_HOME": home.directory + "/node"]
            let gatewayURL = try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--node"])
                #expect(minted.status == 0, "\(minted)")
                let paired = try home.run(["pair", "-"], environment: nodeHome, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")

                let all = try home.op(gateway, ["nodes", "list"])
                #expect(all.status == 0, "\(all)")
                #expect(all.stdout.contains("NAME") && all.stdout.contains("approved"), "\(all)")
                let connected = try home.op(gateway, ["nodes", "status", "--connected"])
                #expect(connected.status == 3, "a filter that matches nothing found nothing: \(connected)")
                #expect(connected.stdout == "No nodes match (1 other offline or not seen recently).\n", "\(connected)")
                let recent = try Self.json(try home.op(gateway, ["nodes", "status", "--last-connected", "24h", "--json"]).stdout)
                #expect((recent["nodes"] as? [Any])?.count == 1)

                let accepted = try home.run(["gateways", "check"], environment: nodeHome)
                #expect(accepted.status == 0, "\(accepted)")
                #expect(accepted.stdout.hasPrefix("Gateway ") && accepted.stdout.hasSuffix(" at \(gateway.url)\nnode: accepted\n"),
                        "which gateway and URL: \(accepted)")

                let nodeId = try #require((recent["nodes"] as? [[String: Any]])?.first?["nodeId"] as? String)
                // By a prefix, as approve, reject and rename take it (issue #24 §11).
                let removed = try home.op(gateway, ["devices", "remove", String(nodeId.prefix(12))])
                #expect(removed.status == 0, "\(removed)")
                #expect(removed.stderr.contains("\(nodeId.prefix(12)) is paired device \(nodeId)"), "\(removed)")
                #expect(removed.stdout.hasPrefix("Removed device \(nodeId.prefix(12))"), "\(removed)")
                let refused = try home.run(["gateways", "check"], environment: nodeHome)
                #expect(refused.status == 4, "\(refused)")
                #expect(refused.stdout.hasPrefix("Gateway ") && refused.stdout.hasSuffix(" (\(gateway.url))\nnode: refused\n"), "\(refused)")
                #expect(refused.stderr.contains("hint: the gateway no longer accepts this device's node token (rotated, revoked or removed): "
                                                + "pair again"), "\(refused)")
                #expect(!refused.stderr.contains("--token-file"))
                return gateway.url
            }
            let gone = try home.run(["gateways", "check", "--timeout", "2s"], environment: nodeHome)
            #expect(gone.status == 3, "\(gone)")
            #expect(gone.stdout.hasPrefix("Gateway ") && gone.stdout.hasSuffix(" (\(gatewayURL))\nnode: unreachable\n"),
                    "\(gone)")
        }
    }

    @Test("a gateway that refuses credentials without details.code (joyhousebot): devices list and gateways check exit 4")
    func refusalWithoutDetailCode() async throws {
        try await GatewayCommandTests.withHome { home in
            let nodeHome = ["CLAWPAIR_HOME": home.directory + "/node"]
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--auth-refusal-style", "joyhousebot"]
            try await withTestGateway(options) { gateway in
                let wrong = try home.run(["devices", "list", "--url", gateway.url, "--token", "wrong"])
                #expect(wrong.status == 4, "\(wrong)")
                let refusal = try await gateway.waitForLog("connect-refused")
                #expect(refusal["detailCode"] is NSNull && refusal["message"] as? String == "token_mismatch", "\(refusal)")
                let wrongJSON = try home.run(["devices", "list", "--url", gateway.url, "--token", "wrong", "--json"])
                #expect(wrongJSON.status == 4, "\(wrongJSON)")
                _ = try Self.json(wrongJSON.stdout)

                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--node"])
                #expect(try home.run(["pair", "-"], environment: nodeHome, stdin: minted.stdout).status == 0)
                let nodes = try Self.json(try home.op(gateway, ["nodes", "status", "--last-connected", "24h", "--json"]).stdout)
                let nodeId = try #require((nodes["nodes"] as? [[String: Any]])?.first?["nodeId"] as? String)
                #expect(try home.op(gateway, ["devices", "remove", nodeId]).status == 0)
                let refused = try home.run(["gateways", "check"], environment: nodeHome)
                #expect(refused.status == 4, "\(refused)")
                #expect(refused.stdout.hasSuffix("\nnode: refused\n"), "\(refused)")
            }
        }
    }

    /// pty_run.py's whole result for `devices watch` on a pseudo-terminal run through `steps`.
    static func watchOnTerminalResult(_ home: Home, _ gateway: TestGateway, _ steps: [String]) throws -> [String: Any] {
        let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_run.py").path
        let result = try ClawpairBinary.runProgram(Harness.python3, [fixture] + steps + [ClawpairBinary.path, "devices", "watch",
                                                   "--url", gateway.url, "--token-file", home.tokenFile],
                                                   environment: home.environment.merging(["PATH": "/usr/bin:/bin", "TERM": "xterm"]) { _, new in new })
        return try json(result.stdout)
    }

    /// `devices watch` on a pseudo-terminal (Tests/Fixtures/pty_run.py): `steps` are
    /// `--send TEXT KEYS` / `--signal TEXT SIGNAL` triples.
    static func watchOnTerminal(_ home: Home, _ gateway: TestGateway, _ steps: [String]) throws -> (status: Int, terminal: String, restored: Bool) {
        let object = try watchOnTerminalResult(home, gateway, steps)
        let encoded = try #require(object["terminal"] as? String, "\(object)")
        let bytes = try #require(Data(base64Encoded: encoded))
        #expect(object["unsent"] as? Int == 0, "\(String(decoding: bytes, as: UTF8.self))")
        return (try #require(object["status"] as? Int), String(decoding: bytes, as: UTF8.self), try #require(object["restored"] as? Bool))
    }

    @Test("devices watch on a terminal: a approves the newest request, r rejects it, q or SIGTERM quits, the terminal restored")
    func watchKeys() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--seed-device-request", "phone"]
            try await withTestGateway(options) { gateway in
                let phone = try #require(try Self.pending(home, gateway).first?["requestId"] as? String)
                // An operator request is more than a node's baseline: a asks first, naming role and scopes (issue #24 §10).
                let approving = try Self.watchOnTerminal(home, gateway, ["--send", "newest: \(phone) (phone); keys: a approve newest, "
                                                                         + "r reject newest, q quit", "a",
                                                                         "--send", "press y to approve, any other key cancels", "y",
                                                                         "--send", "approved \(phone) by key", "q"])
                #expect(approving.status == 0, "\(approving.terminal)")
                #expect(approving.terminal.contains("approve \(phone) (phone) as role operator with scopes "), "\(approving.terminal)")
                #expect(approving.restored, "\(approving.terminal)")
                #expect(approving.terminal.contains("no request pending; keys: a approve newest, r reject newest, q quit"), "\(approving.terminal)")
                let approved = try await gateway.waitForLog("approved") { $0["requestId"] as? String == phone }
                #expect(approved["requestId"] as? String == phone)
            }
            var second = TestGatewayOptions(token: Self.token)
            second.extraArguments = ["--seed-device-request", "laptop"]
            try await withTestGateway(second) { gateway in
                let laptop = try #require(try Self.pending(home, gateway).first?["requestId"] as? String)
                let rejecting = try Self.watchOnTerminal(home, gateway, ["--send", "newest: \(laptop) (laptop)", "r",
                                                                         "--signal", "rejected \(laptop) by key", "TERM"])
                #expect(rejecting.status == 0, "\(rejecting.terminal)")
                #expect(rejecting.restored, "\(rejecting.terminal)")
                _ = try await gateway.waitForLog("rejected") { $0["requestId"] as? String == laptop }
                #expect(try Self.pending(home, gateway).isEmpty)
            }
        }
    }

    @Test("devices watch: approves by rule and logs it, streams JSON lines, survives a gateway restart, stops on SIGTERM")
    func watchSurvivesRestart() async throws {
        try await GatewayCommandTests.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.stateFile = home.directory + "/gateway-state.json"
            options.extraArguments = ["--seed-device-request", "phone", "--seed-device-request", "laptop"]
            let first = try await startTestGateway(options)
            var watcher: ChildProcess?
            do {
                let watch = try Subprocess.spawn([ClawpairBinary.path, "devices", "watch", "--json", "--url", first.url, "--token-file",
                                                  home.tokenFile, "--approve-role", "operator", "--approve-from", "192.0.2.0/24",
                                                  "--approve-from", "fd00::/8", "--yes"],
                                                 environment: home.environment.mapValues { Optional($0) }, label: "watch")
                watcher = watch
                let connected = try Self.json(try await watch.waitForLine(containing: "\"event\":\"connected\"", on: .stdout, timeout: .seconds(20)))
                #expect((connected["pending"] as? [Any])?.count == 2, "\(connected)")
                #expect(connected["reconnect"] as? Bool == false)
                // Both seeded requests match the rules (operator, from 192.0.2.7): approved and logged.
                let approved = try Self.json(try await watch.waitForLine(containing: "\"event\":\"approved\"", on: .stdout, timeout: .seconds(20)))
                #expect((approved["rule"] as? String)?.contains("role operator, from 192.0.2.0/24") == true, "\(approved)")
                _ = try await watch.waitForLine(containing: "by rule: matches role operator", on: .stderr, timeout: .seconds(20))
                let resolved = try Self.json(try await watch.waitForLine(containing: "\"event\":\"resolved\"", on: .stdout, timeout: .seconds(20)))
                #expect(resolved["decision"] as? String == "approved")

                // The gateway restarts on the same port with the same state: the watch reconnects.
                _ = await first.stop()
                // The gateway's restart close (1012) is answered at once (GatewaySession's policy); the
                // attempts while it is down back off from 500 ms.
                let lost = try Self.json(try await watch.waitForLine(containing: "\"event\":\"disconnected\"", on: .stdout, timeout: .seconds(20)))
                #expect(lost["retryInMs"] as? Int == 0, "\(lost)")
                let down = try Self.json(try await watch.waitForLine(matching: /"event":"disconnected".*"retryInMs":500/, on: .stdout,
                                                                     timeout: .seconds(20)))
                #expect(down["error"] is String)
                var again = options
                again.port = first.port
                again.extraArguments = []
                let second = try await startTestGateway(again)
                defer { Task { _ = await second.stop() } }
                let back = try Self.json(try await watch.waitForLine(matching: /"event":"connected".*"reconnect":true/, on: .stdout,
                                                                     timeout: .seconds(30)))
                #expect((back["pending"] as? [Any])?.isEmpty == true, "\(back)")

                watch.signal(SIGTERM)
                #expect(try await watch.waitForExit(timeout: .seconds(10)) == .exited(0), "\(watch.stderr)")
                #expect(!watch.stdout.contains(Self.token))
                // Every stdout line is one JSON object.
                for line in watch.stdout.split(separator: "\n") { _ = try Self.json(String(line)) }
                _ = await second.stop()
            } catch {
                _ = await watcher?.terminate(grace: .seconds(1))
                _ = await first.stop()
                throw error
            }
        }
    }

    @Test("devices watch: rules need --yes, --yes needs a rule, a bad CIDR is a usage error")
    func watchUsage() throws {
        let home = try Home()
        defer { home.remove() }
        let noYes = try home.run(["devices", "watch", "--approve-role", "node"])
        #expect(noYes.status == 2, "\(noYes)")
        #expect(noYes.stderr.contains("--approve-role and --approve-from approve devices: add --yes"))
        let onlyYes = try home.run(["devices", "watch", "--yes"])
        #expect(onlyYes.status == 2, "\(onlyYes)")
        let badCIDR = try home.run(["devices", "watch", "--approve-from", "10.0.0.0/40", "--yes"])
        #expect(badCIDR.status == 2, "\(badCIDR)")
        #expect(badCIDR.stderr.contains("invalid --approve-from: 10.0.0.0/40"))
    }

    @Test("qr --wait: says when a device used the code (setupStatus / setup event), exit 0")
    func qrWait() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let qr = try Subprocess.spawn([ClawpairBinary.path, "qr", "--wait", "--setup-code-only", "--node", "--url", gateway.url,
                                               "--token-file", home.tokenFile], environment: home.environment.mapValues { Optional($0) }, label: "qr")
                do {
                    let code = try await qr.waitForLine(matching: /^[A-Za-z0-9_-]{20,}$/, on: .stdout, timeout: .seconds(20))
                    _ = try await qr.waitForLine(containing: "Waiting for a device to use the code", on: .stderr, timeout: .seconds(20))
                    let paired = try home.run(["pair", "-", "--name", "kitchen"], environment: ["CLAWPAIR_HOME": home.directory + "/node"],
                                              stdin: code + "\n")
                    #expect(paired.status == 0, "\(paired)")
                    #expect(try await qr.waitForExit(timeout: .seconds(20)) == .exited(0), "\(qr.stderr)")
                    #expect(qr.stderr.contains("The code was used by kitchen ("), "\(qr.stderr)")
                    #expect(qr.stderr.contains("access node."), "\(qr.stderr)")
                } catch {
                    _ = await qr.terminate(grace: .seconds(1))
                    throw error
                }
            }
        }
    }
}
