import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair devices`, `nodes`, `qr` (minting) and `gateways` against the stand-in gateway
/// (Tests/Fixtures/openclaw_gateway.py) on loopback, where the gateway approves operators
/// silently as real gateways do for direct local connections.
@Suite("clawpair gateway commands (loopback)", .serialized)
struct GatewayCommandTests {
    static let token = "test-shared-token-0123456789"

    /// A private clawpair home and a token file, removed afterwards.
    struct Home {
        let directory: String
        var tokenFile: String { directory + "/token" }
        var environment: [String: String] { ["CLAWPAIR_HOME": directory + "/home", "HOME": directory] }

        init() throws {
            directory = NSTemporaryDirectory() + "clawpair-gw-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try (GatewayCommandTests.token + "\n").write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        /// Writes a registry record for `url` that holds no token of this machine's.
        func registerGateway(name: String, url: String) throws {
            let gateways = directory + "/home/gateways"
            try FileManager.default.createDirectory(atPath: gateways, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let record = "{\"version\": 1, \"id\": \"gw-00000000000000aa\", \"name\": \"\(name)\", \"urls\": [\"\(url)\"], "
                + "\"deviceId\": \"someone-else\", \"tokens\": {}, \"pairedAtMs\": 1}\n"
            let file = gateways + "/gw-00000000000000aa.json"
            try record.write(toFile: file, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }

        /// `clawpair <arguments> --url <gateway> --token-file <token>`: an operator command.
        func op(_ gateway: TestGateway, _ arguments: [String]) throws -> ClawpairBinary.Result {
            try run(arguments + ["--url", gateway.url, "--token-file", tokenFile])
        }

        func run(_ arguments: [String], environment extra: [String: String] = [:], stdin: String? = nil) throws -> ClawpairBinary.Result {
            try ClawpairBinary.run(arguments, stdin: stdin, environment: environment.merging(extra) { _, new in new })
        }
    }

    static func withHome<T>(_ body: (Home) async throws -> T) async throws -> T {
        let home = try Home()
        defer { home.remove() }
        return try await body(home)
    }

    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let dictionary = object as? [String: Any] else { throw TestError("not a JSON object: \(text)") }
        return dictionary
    }

    @Test("devices list: human and --json, the operator approved silently over loopback")
    func devicesList() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let human = try home.op(gateway, ["devices", "list"])
                #expect(human.status == 0, "\(human)")
                #expect(human.stdout.contains("Pending (0)"))
                #expect(human.stdout.contains("Paired (1)"))
                #expect(human.stderr.contains("Created this machine's device identity"))

                // OPENCLAW_GATEWAY_URL may use the environment's token (upstream's URL override safety).
                let result = try home.run(["devices", "list", "--json", "-v"],
                                          environment: ["OPENCLAW_GATEWAY_URL": gateway.url, "OPENCLAW_GATEWAY_TOKEN": Self.token])
                #expect(result.status == 0, "\(result)")
                #expect(result.stderr.contains("credential: OPENCLAW_GATEWAY_TOKEN"), "\(result)")
                let payload = try Self.json(result.stdout)
                #expect((payload["pending"] as? [Any])?.isEmpty == true)
                let paired = try #require(payload["paired"] as? [[String: Any]])
                #expect(paired.count == 1)
                #expect(paired.first?["clientId"] as? String == "cli")
                #expect(paired.first?["connected"] as? Bool == true)
                // Token values never reach the output.
                #expect(!result.stdout.contains(Self.token))

                let connect = try await gateway.waitForLog("connect-ok")
                #expect(connect["clientId"] as? String == "cli")
                #expect(connect["role"] as? String == "operator")
            }
        }
    }

    @Test("a wrong token ends with exit 4 and the gateway's detail code")
    func wrongToken() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let wrong = ["OPENCLAW_GATEWAY_URL": gateway.url, "OPENCLAW_GATEWAY_TOKEN": "wrong"]
                let result = try home.run(["devices", "list"], environment: wrong)
                #expect(result.status == 4, "\(result)")
                #expect(result.stderr.contains("refused the credentials"))
                #expect(result.stderr.contains("AUTH_TOKEN_MISMATCH"))
                #expect(result.stderr.contains("hint: pass the gateway's token"))

                let json = try home.run(["devices", "list", "--json"], environment: wrong)
                #expect(json.status == 4)
                let error = try #require(try Self.json(json.stdout)["error"] as? [String: Any])
                #expect(error["code"] as? String == "auth-rejected")
            }
        }
    }

    @Test("a token on the command line works but warns; a loopback registry gateway's token comes from openclaw.json")
    func credentialSources() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let inline = try home.run(["devices", "list", "--url", gateway.url, "--token", Self.token])
                #expect(inline.status == 0, "\(inline)")
                #expect(inline.stderr.contains("warning: a gateway token on the command line is visible to other users"))

                let config = home.directory + "/openclaw.json"
                try "// JSON5, as OpenClaw writes it\n{gateway: {auth: {mode: 'token', token: '\(Self.token)'}}}\n"
                    .write(toFile: config, atomically: true, encoding: .utf8)
                try home.registerGateway(name: "local", url: gateway.url)
                let configured = try home.run(["devices", "list", "-v", "--gateway", "local"], environment: ["OPENCLAW_CONFIG_PATH": config])
                #expect(configured.status == 0, "\(configured)")
                #expect(configured.stderr.contains("credential: gateway.auth.token in \(config)"), "\(configured)")

                // A --url override never reads the config file; OPENCLAW_GATEWAY_URL neither.
                for (arguments, environment) in [(["--url", gateway.url], ["OPENCLAW_CONFIG_PATH": config]),
                                                 ([], ["OPENCLAW_CONFIG_PATH": config, "OPENCLAW_GATEWAY_URL": gateway.url])] {
                    let overridden = try home.run(["devices", "list", "-v"] + arguments, environment: environment)
                    #expect(overridden.status == 4, "\(overridden)")
                    #expect(overridden.stderr.contains("credential: no credential"), "\(overridden)")
                }
            }
        }
    }

    @Test("a --url never receives OPENCLAW_GATEWAY_TOKEN: the gateway sees no token, the hint says why")
    func urlOverrideWithholdsEnvironmentToken() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let environment = ["OPENCLAW_GATEWAY_TOKEN": Self.token, "OPENCLAW_GATEWAY_PASSWORD": "a-password"]
                let result = try home.run(["devices", "list", "-v", "--url", gateway.url], environment: environment)
                #expect(result.status == 4, "\(result)")
                #expect(result.stderr.contains("credential: no credential"), "\(result)")
                #expect(result.stderr.contains("AUTH_TOKEN_MISSING"), "\(result)")
                #expect(result.stderr.contains("hint: OPENCLAW_GATEWAY_TOKEN and OPENCLAW_GATEWAY_PASSWORD are not sent to a gateway "
                                               + "named with --url"), "\(result)")
                let refused = try await gateway.waitForLog("connect-refused")
                #expect(refused["detailCode"] as? String == "AUTH_TOKEN_MISSING")

                let json = try home.run(["devices", "list", "--json", "--url", gateway.url], environment: environment)
                #expect(json.status == 4)
                let error = try #require(try Self.json(json.stdout)["error"] as? [String: Any])
                #expect(error["code"] as? String == "auth-rejected")
                #expect((error["hint"] as? String)?.contains("--token-file") == true)

                // The explicit file still applies to the --url gateway.
                let explicit = try home.run(["devices", "list", "--url", gateway.url, "--token-file", home.tokenFile],
                                            environment: ["OPENCLAW_GATEWAY_TOKEN": "wrong"])
                #expect(explicit.status == 0, "\(explicit)")
            }
        }
    }

    @Test("approve --json prints no token value, even when the gateway returns one; nodes approve neither")
    func approveRedactsTokens() async throws {
        try await Self.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.seedNodeRequests = ["kitchen-pi"]
            options.extraArguments = ["--seed-device-request", "phone", "--approve-returns-token"]
            try await withTestGateway(options) { gateway in
                let pending = try await gateway.waitForLog("pending")
                let requestId = try #require(pending["requestId"] as? String)
                let approved = try home.op(gateway, ["devices", "approve", requestId, "--json"])
                #expect(approved.status == 0, "\(approved)")
                let device = try #require(try Self.json(approved.stdout)["device"] as? [String: Any])
                #expect(device["token"] as? String == "<redacted>", "\(approved.stdout)")
                #expect(device["deviceId"] as? String == pending["deviceId"] as? String)

                let nodes = try Self.json(try home.op(gateway, ["nodes", "pending", "--json"]).stdout)
                let nodeRequest = try #require((nodes["pending"] as? [[String: Any]])?.first?["requestId"] as? String)
                let node = try home.op(gateway, ["nodes", "approve", nodeRequest, "--json"])
                #expect(node.status == 0, "\(node)")
                #expect(node.stdout.contains("\"ok\": true,\n  \"step\": \"command-surface\""), "the step leads the payload: \(node.stdout)")
                let record = try #require(try Self.json(node.stdout)["node"] as? [String: Any])
                #expect(record["token"] as? String == "<redacted>", "\(node.stdout)")
            }
        }
    }

    @Test("rotating this device's own token: in band, redacted in --json unless --reveal")
    func rotateOwnTokenInBand() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let list = try Self.json(try home.op(gateway, ["devices", "list", "--json"]).stdout)
                let me = try #require((list["paired"] as? [[String: Any]])?.first?["deviceId"] as? String)
                let rotate = ["devices", "rotate", "--device", me, "--role", "operator", "--json"]
                let redacted = try Self.json(try home.op(gateway, rotate).stdout)
                #expect(redacted["tokenDelivery"] as? String == "in-band")
                #expect(redacted["token"] as? String == "<redacted>")
                let revealed = try Self.json(try home.op(gateway, rotate + ["--reveal"]).stdout)
                let token = try #require(revealed["token"] as? String)
                #expect(token != "<redacted>" && token.count == 43, "\(revealed)")
                let human = try home.op(gateway, Array(rotate.dropLast()))
                #expect(human.status == 0, "\(human)")
                #expect(human.stderr.contains("The gateway returned the new token; --reveal prints it."))
            }
        }
    }

    @Test("a refused connect ends with our Close frame: answering the gateway's, or first when it holds the socket")
    func closeFrameAfterRefusal() async throws {
        try await Self.withHome { home in
            for delay in [0, 3000] {
                var options = TestGatewayOptions(token: Self.token)
                options.extraArguments = ["--refusal-close-delay-ms", String(delay)]
                try await withTestGateway(options) { gateway in
                    let result = try home.run(["devices", "list", "--url", gateway.url, "--token", "wrong"])
                    #expect(result.status == 4, "\(result)")
                    let closed = try await gateway.waitForLog("connect-closed")
                    // 1008 echoes the gateway's close; 1000 is the client closing first.
                    #expect(closed["clientCloseCode"] as? Int == (delay == 0 ? 1008 : 1000), "\(closed)")
                }
            }
        }
    }

    @Test("approve, reject and remove check ids first and say which id was meant")
    func approveRejectRemove() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let unknown = "0123456789abcdef0123456789abcdef"
                let bad = try home.op(gateway, ["devices", "approve", unknown])
                #expect(bad.status == 3, "\(bad)")
                #expect(bad.stderr.contains("no pending pairing request matches \(unknown)"))

                let list = try Self.json(try home.op(gateway, ["devices", "list", "--json"]).stdout)
                let me = try #require((list["paired"] as? [[String: Any]])?.first?["deviceId"] as? String)
                let asRequest = try home.op(gateway, ["devices", "approve", me])
                #expect(asRequest.status == 2, "\(asRequest)")
                #expect(asRequest.stderr.contains("is a paired device's id or name, with no pending request"))

                let latest = try home.op(gateway, ["devices", "approve", "--latest"])
                #expect(latest.status == 3, "\(latest)")
                #expect(latest.stderr.contains("no pairing request is pending"))

                // remove names devices as approve, reject and rename do (issue #24 §11): nothing matches is exit 3.
                let removeWrong = try home.op(gateway, ["devices", "remove", "no-such-device"])
                #expect(removeWrong.status == 3, "\(removeWrong)")
                #expect(removeWrong.stderr.contains("no paired device matches no-such-device"), "\(removeWrong)")
            }
        }
    }

    @Test("devices reject names the device as approve does: by display name, prefix; unknown is exit 3")
    func rejectResolvesNames() async throws {
        try await Self.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--seed-device-request", "phone", "--seed-device-request", "tablet"]
            try await withTestGateway(options) { gateway in
                let phone = try await gateway.waitForLog("pending")
                let tablet = try await gateway.waitForLog("pending", occurrence: 2)
                let phoneRequest = try #require(phone["requestId"] as? String)
                let phoneDevice = try #require(phone["deviceId"] as? String)
                let byName = try home.op(gateway, ["devices", "reject", "Phone"])
                #expect(byName.status == 0, "\(byName)")
                #expect(byName.stdout == "Rejected request \(phoneRequest) from device \(phoneDevice.prefix(12))….\n", "\(byName)")
                #expect(byName.stderr.contains("Phone (name) is request \(phoneRequest)"), "\(byName)")
                let rejected = try await gateway.waitForLog("rejected")
                #expect(rejected["requestId"] as? String == phoneRequest)

                let tabletDevice = try #require(tablet["deviceId"] as? String)
                let byPrefix = try home.op(gateway, ["devices", "reject", String(tabletDevice.prefix(8)) + "…", "--json"])
                #expect(byPrefix.status == 0, "\(byPrefix)")
                #expect(try Self.json(byPrefix.stdout)["requestId"] as? String == tablet["requestId"] as? String, "\(byPrefix)")

                let gone = try home.op(gateway, ["devices", "reject", "phone"])
                #expect(gone.status == 3, "\(gone)")
                #expect(gone.stderr.contains("no pending pairing request matches phone"), "\(gone)")
            }
        }
    }

    @Test("qr shows the trusted-proxy auth label of a gateway whose ingress auth is a trusted proxy")
    func qrTrustedProxyLabel() async throws {
        try await Self.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.extraArguments = ["--auth-mode", "trusted-proxy"]
            try await withTestGateway(options) { gateway in
                let human = try home.op(gateway, ["qr", "--no-ascii"])
                #expect(human.status == 0, "\(human)")
                let lines = human.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.contains("Auth: trusted-proxy"), "\(human)")
                #expect(lines.contains("Access: full"), "\(human)")
                let json = try Self.json(try home.op(gateway, ["qr", "--json"]).stdout)
                #expect(json["auth"] as? String == "trusted-proxy", "\(json)")
            }
        }
    }

    @Test("qr mints a code that setup-code decode and qr scan read back")
    func qrMint() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--json"])
                #expect(minted.status == 0, "\(minted)")
                let payload = try Self.json(minted.stdout)
                let code = try #require(payload["setupCode"] as? String)
                #expect(payload["access"] as? String == "full")
                #expect(payload["auth"] as? String == "token")
                #expect(payload["gatewayUrl"] as? String == gateway.url)
                #expect(payload["expiresAtMs"] is Int)

                let decoded = try home.run(["setup-code", "decode", "--json", "-"], stdin: code)
                #expect(decoded.status == 0, "\(decoded)")
                #expect(try Self.json(decoded.stdout)["url"] as? String == gateway.url || decoded.stdout.contains(gateway.url))

                let image = home.directory + "/pair.png"
                let png = try home.op(gateway, ["qr", "--node", "-o", image])
                #expect(png.status == 0, "\(png)")
                #expect(png.stdout.contains("Access: node"))
                let mode = try FileManager.default.attributesOfItem(atPath: image)[.posixPermissions] as? Int
                #expect(mode == 0o600)
                let scanned = try home.run(["qr", "scan", image])
                #expect(scanned.status == 0, "\(scanned)")
                let pngCode = try #require(png.stdout.split(separator: "\n").first { $0.hasPrefix("Setup code: ") }).dropFirst("Setup code: ".count)
                #expect(scanned.stdout.contains(String(pngCode)))

                let downgraded = try home.run(["qr", "--url", gateway.url, "--token-file", home.tokenFile, "--no-ascii",
                                               "--public-url", "ws://192.168.1.20:18789"])
                #expect(downgraded.status == 0, "\(downgraded)")
                #expect(downgraded.stdout.contains("Access: limited"))
                #expect(downgraded.stdout.contains("uses plaintext ws://, so the setup code was limited for safety"))
                #expect(!downgraded.stdout.contains("█"))
            }
        }
    }

    @Test("each gateway fault ends with a clear error within the timeout; no connect.challenge is nothing reachable (3)",
          arguments: [
              (TestGatewayOptions.Fault.noChallenge, "(challenge): the WebSocket upgrade succeeded but no connect.challenge arrived within", Int32(3)),
              (.slowChallenge, "(challenge): the WebSocket upgrade succeeded but no connect.challenge arrived within", 3),
              (.garbage, "is not an OpenClaw gateway", 1),
              (.oversized, "more than the 4096-byte maxPayload the gateway announced in hello-ok", 1),
              (.closeMidCall, "closed the connection during the session", 1),
              (.stallCall, "went silent", 1),
          ])
    func faults(fault: TestGatewayOptions.Fault, expected: String, status: Int32) async throws {
        try await Self.withHome { home in
            var options = TestGatewayOptions(token: Self.token, fault: fault)
            options.tickMs = 300
            if fault == .oversized { options.maxPayload = 4096 }
            if fault == .slowChallenge { options.faultDelayMs = 8000 }
            try await withTestGateway(options) { gateway in
                let result = try home.op(gateway, ["nodes", "status", "--timeout", "2000"])
                #expect(result.status == status, "\(result)")
                #expect(result.stderr.contains(expected), "\(result)")
            }
        }
    }

    @Test("a server that accepts TCP and never answers: the step that hung, within --timeout, exit 3")
    func stalledUpgrade() async throws {
        try await Self.withHome { home in
            try await withFixtureServer(mode: "stall") { port in
                let result = try home.run(["devices", "list", "--timeout", "800", "--url", "ws://127.0.0.1:\(port)"],
                                          environment: ["OPENCLAW_GATEWAY_TOKEN": Self.token])
                #expect(result.status == 3, "\(result)")
                #expect(result.stderr.contains("(ws): no WebSocket upgrade within 800 ms"), "\(result)")
            }
        }
    }

    @Test("nodes pending, approve and reject work on the node.pair store")
    func nodePairStore() async throws {
        try await Self.withHome { home in
            var options = TestGatewayOptions(token: Self.token)
            options.seedNodeRequests = ["kitchen-pi", "garage"]
            try await withTestGateway(options) { gateway in
                let pending = try home.op(gateway, ["nodes", "pending", "--json"])
                #expect(pending.status == 0, "\(pending)")
                let requests = try #require(try Self.json(pending.stdout)["pending"] as? [[String: Any]])
                #expect(requests.count == 2)
                let kitchen = try #require(requests.first { $0["displayName"] as? String == "kitchen-pi" }?["requestId"] as? String)
                let garage = try #require(requests.first { $0["displayName"] as? String == "garage" }?["requestId"] as? String)
                let human = try home.op(gateway, ["nodes", "pending"])
                #expect(human.stdout.contains("Pending node requests (2)"))

                let approved = try home.op(gateway, ["nodes", "approve", kitchen])
                #expect(approved.status == 0, "\(approved)")
                #expect(approved.stdout == "Approved the command surface of node kitchen-pi (node request \(kitchen), step 2).\n", "\(approved)")
                let rejected = try home.op(gateway, ["nodes", "reject", garage])
                #expect(rejected.status == 0, "\(rejected)")
                let after = try Self.json(try home.op(gateway, ["nodes", "pending", "--json"]).stdout)
                #expect((after["pending"] as? [Any])?.isEmpty == true)
                let unknown = try home.op(gateway, ["nodes", "approve", kitchen])
                #expect(unknown.status == 3, "\(unknown)")
                #expect(unknown.stderr.hasSuffix("error: no pending node request has the id \(kitchen)\n"
                                                  + "hint: 'clawpair nodes pending' lists the current requests (a node's retry can replace its request)\n"),
                        "\(unknown)")
                let unknownJSON = try home.op(gateway, ["nodes", "reject", "no-such-id", "--json"])
                #expect(unknownJSON.status == 3, "\(unknownJSON)")
                #expect((try Self.json(unknownJSON.stdout)["ok"] as? Bool) == false)
            }
        }
    }

    @Test("nodes status with no nodes; gateways list with none")
    func emptyLists() async throws {
        try await Self.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
                let nodes = try home.op(gateway, ["nodes", "status"])
                #expect(nodes.status == 0, "\(nodes)")
                #expect(nodes.stdout.contains("No nodes."))
                let json = try Self.json(try home.op(gateway, ["nodes", "status", "--json"]).stdout)
                #expect((json["nodes"] as? [Any])?.isEmpty == true)
            }
            let none = try home.run(["gateways", "list"])
            #expect(none.status == 0)
            #expect(none.stdout.contains("No paired gateways."))
            let unknown = try home.run(["gateways", "use", "nope"])
            #expect(unknown.status == 3)
            #expect(unknown.stderr.contains("no paired gateway is called 'nope'"))
        }
    }

    /// Issue #24 §8: a code for a self-signed wss:// gateway, with the URL this machine reached,
    /// had no pin (the gateway adds one only for its own TLS bind), so no device could trust it.
    @Test("qr for a wss:// gateway reached through a pin: the code carries the pin, and says so")
    func qrPinsSelfSignedGateway() async throws {
        try await Self.withHome { home in
            let certificate = try await TestCertificate.make()
            defer { certificate.remove() }
            var options = TestGatewayOptions(token: Self.token)
            options.certificate = certificate
            try await withTestGateway(options) { gateway in
                let minted = try home.run(["qr", "--setup-code-only", "--node", "--url", gateway.url, "--token-file", home.tokenFile,
                                           "--trust", certificate.fingerprint, "--public-url", gateway.url])
                #expect(minted.status == 0, "\(minted)")
                #expect(minted.stderr.contains("the code carries its pin (SHA-256 \(certificate.fingerprint))"), "\(minted)")
                let decoded = try home.run(["setup-code", "decode", "--json", "-"], stdin: minted.stdout)
                #expect(decoded.status == 0, "\(decoded)")
                #expect(decoded.stdout.contains("\"tlsFingerprint\": \"\(certificate.fingerprint)\""), "\(decoded.stdout)")
                // The pinned code pairs without any --trust.
                let paired = try home.run(["pair", "-"], environment: ["CLAWPAIR_HOME": home.directory + "/node-home"], stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
            }
        }
    }

    @Test("TLS pairing stores the pin: probe and operator commands use it for the paired gateway")
    func pairedPinIsUsed() async throws {
        try await Self.withHome { home in
            let certificate = try await TestCertificate.make()
            defer { certificate.remove() }
            var options = TestGatewayOptions(token: Self.token)
            options.certificate = certificate
            try await withTestGateway(options) { gateway in
                let minted = try home.run(["qr", "--setup-code-only", "--node", "--url", gateway.url, "--token-file", home.tokenFile,
                                           "--tls-fingerprint", certificate.fingerprint])
                #expect(minted.status == 0, "\(minted)")
                // A second identity (its own home) pairs as a node; over loopback the gateway approves it at once.
                let node = ["CLAWPAIR_HOME": home.directory + "/node-home"]
                let paired = try home.run(["pair", "-", "--gateway-name", "tls-gw", "--json"], environment: node, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
                let record = try #require(try Self.json(paired.stdout)["gateway"] as? [String: Any])
                #expect(record["tlsFingerprint"] as? String == certificate.fingerprint)

                let probe = try home.run(["probe", "--json", gateway.url], environment: node)
                #expect(probe.status == 0, "\(probe)")
                let route = try #require((try Self.json(probe.stdout)["routes"] as? [[String: Any]])?.first)
                #expect((route["tls"] as? [String: Any])?["pinSource"] as? String == "registry", "\(probe)")
                let check = try home.run(["gateways", "check", "tls-gw"], environment: node)
                #expect(check.status == 0, "the stored pin replaces system trust: \(check)")
                // gateways check takes --trust / --tls-fingerprint like every dialing command; a pin that
                // fails prints the command again with the certificate's own fingerprint.
                let trusted = try home.run(["gateways", "check", "tls-gw", "--trust", certificate.fingerprint], environment: node)
                #expect(trusted.status == 0, "\(trusted)")
                let wrong = try home.run(["gateways", "check", "tls-gw", "--tls-fingerprint", String(repeating: "ab", count: 32)],
                                         environment: node)
                #expect(wrong.status == 4, "\(wrong)")
                #expect(wrong.stderr.contains("clawpair gateways check --tls-fingerprint \(certificate.fingerprint) tls-gw"), "\(wrong)")
            }
        }
    }

    @Test("pair --trust: a code without a pin to a self-signed gateway is exit 4 with the exact --trust command; with it, it pairs and stores the pin")
    func pairTrust() async throws {
        try await Self.withHome { home in
            let certificate = try await TestCertificate.make()
            defer { certificate.remove() }
            var options = TestGatewayOptions(token: Self.token)
            options.certificate = certificate
            try await withTestGateway(options) { gateway in
                // --public-url names the URL in the code, so the gateway adds no tlsFingerprint (it pins only its own bind URL);
                // clawpair adds the pin only to a route to the host it reached (127.0.0.1), so this one (localhost) stays
                // without, and qr says so.
                let minted = try home.run(["qr", "--setup-code-only", "--node", "--url", gateway.url, "--token-file", home.tokenFile,
                                           "--tls-fingerprint", certificate.fingerprint, "--public-url", "wss://localhost:\(gateway.port)"])
                #expect(minted.status == 0, "\(minted)")
                #expect(minted.stderr.contains("warning: the code's route wss://localhost:\(gateway.port) carries no certificate pin"),
                        "\(minted)")
                let decoded = try home.run(["setup-code", "decode", "--json", "-"], stdin: minted.stdout)
                #expect(!decoded.stdout.contains(certificate.fingerprint), "the code carries no pin: \(decoded.stdout)")
                let node = ["CLAWPAIR_HOME": home.directory + "/node-home"]
                let refused = try home.run(["pair", "-", "--wait", "0"], environment: node, stdin: minted.stdout)
                #expect(refused.status == 4, "\(refused)")
                #expect(refused.stderr.contains("clawpair pair --trust \(certificate.fingerprint) - < code.txt"), "\(refused.stderr)")
                let paired = try home.run(["pair", "-", "--trust", certificate.fingerprint, "--json"], environment: node, stdin: minted.stdout)
                #expect(paired.status == 0, "\(paired)")
                let record = try #require(try Self.json(paired.stdout)["gateway"] as? [String: Any])
                #expect(record["tlsFingerprint"] as? String == certificate.fingerprint)
                let wrong = try home.run(["pair", "-", "--trust", String(repeating: "ab", count: 32)], environment: node, stdin: minted.stdout)
                #expect(wrong.status == 4, "a pin that does not match refuses: \(wrong)")
            }
        }
    }

    @Test("TLS: the pin decides; a wrong pin or an untrusted certificate is exit 4")
    func tlsPin() async throws {
        try await Self.withHome { home in
            let certificate = try await TestCertificate.make()
            defer { certificate.remove() }
            var options = TestGatewayOptions(token: Self.token)
            options.certificate = certificate
            try await withTestGateway(options) { gateway in
                let pinned = try home.run(["devices", "list", "--url", gateway.url, "--token-file", home.tokenFile,
                                           "--tls-fingerprint", certificate.fingerprint])
                #expect(pinned.status == 0, "\(pinned)")
                let wrong = try home.run(["devices", "list", "--url", gateway.url, "--token-file", home.tokenFile,
                                          "--tls-fingerprint", String(repeating: "ab", count: 32)])
                #expect(wrong.status == 4, "\(wrong)")
                #expect(wrong.stderr.contains("TLS"))
                let untrusted = try home.op(gateway, ["devices", "list"])
                #expect(untrusted.status == 4, "\(untrusted)")
            }
        }
    }
}

/// Two-step node approval (current gateways) against the stand-in gateway on loopback: a node
/// host connects with the shared token (its device pairing is approved silently, as for any
/// loopback connect), and its command surface waits for `nodes approve`.
@Suite("clawpair nodes: two-step approval (loopback)", .serialized)
struct NodeTwoStepCLITests {
    typealias Commands = GatewayCommandTests

    @Test("current generation: the node's commands are step 2, approved by name; the older generation keeps node.pair.request")
    func commandSurface() async throws {
        try await Commands.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Commands.token)) { gateway in
                let node = try await runGatewayClient(["--url", gateway.url, "--token-file", home.tokenFile, "--role", "node",
                                                       "--client-id", "node-host", "--client-mode", "node", "--display-name", "build-box",
                                                       "--identity", home.directory + "/node.json", "--method", "-"])
                #expect(node.status == .exited(0), "\(node.stdout)\(node.stderr)")
                let surface = try await gateway.waitForLog("node-pending")
                let requestId = try #require(surface["requestId"] as? String)
                let listed = try Commands.json(try home.op(gateway, ["nodes", "pending", "--json"]).stdout)
                let entry = try #require((listed["pending"] as? [[String: Any]])?.first { $0["requestId"] as? String == requestId })
                #expect(entry["step"] as? String == "command-surface")
                #expect(entry["displayName"] as? String == "build-box")
                let human = try home.op(gateway, ["nodes", "pending"])
                #expect(human.stdout.contains("2 commands"), "\(human)")
                let approved = try home.op(gateway, ["nodes", "approve", requestId])
                #expect(approved.stdout == "Approved the command surface of node build-box (node request \(requestId), step 2).\n", "\(approved)")
                let removed = try await runGatewayClient(["--url", gateway.url, "--token-file", home.tokenFile, "--method", "node.pair.request",
                                                          "--params", "{\"nodeId\":\"x\"}", "--identity", home.directory + "/op.json"])
                #expect(removed.stdout.contains("unknown method: node.pair.request") || removed.stderr.contains("unknown method: node.pair.request"),
                        "\(removed.stdout)\(removed.stderr)")
            }
            var older = TestGatewayOptions(token: Commands.token)
            older.generation = .g3
            try await withTestGateway(older) { gateway in
                let requested = try await runGatewayClient(["--url", gateway.url, "--token-file", home.tokenFile, "--method", "node.pair.request",
                                                            "--params", "{\"nodeId\":\"x\"}", "--identity", home.directory + "/op.json"])
                #expect(requested.status == .exited(0), "\(requested.stdout)\(requested.stderr)")
                let node = try await runGatewayClient(["--url", gateway.url, "--token-file", home.tokenFile, "--role", "node",
                                                       "--client-id", "node-host", "--client-mode", "node", "--display-name", "build-box",
                                                       "--identity", home.directory + "/node.json", "--method", "-"])
                #expect(node.status == .exited(0), "\(node.stdout)\(node.stderr)")
                let listed = try Commands.json(try home.op(gateway, ["nodes", "pending", "--json"]).stdout)
                #expect((listed["pending"] as? [[String: Any]])?.map { $0["nodeId"] as? String } == ["x"], "no command-surface step: \(listed)")
            }
        }
    }
}
