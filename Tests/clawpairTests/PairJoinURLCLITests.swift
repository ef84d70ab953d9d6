import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair pair` with a join URL (as `openclaw connect` redeems one) against the stand-in
/// gateway on loopback, where plain http join URLs are allowed and the device is approved silently.
@Suite("clawpair pair: join URLs (loopback)", .serialized)
struct PairJoinURLCLITests {
    typealias Commands = GatewayCommandTests

    /// A join URL minted with device.pair.setupCode {bootstrapProfile: node, joinUrl: true}.
    static func mintJoinURL(_ gateway: TestGateway, _ home: GatewayCommandTests.Home) async throws -> String {
        let minted = try await runGatewayClient(["--url", gateway.url, "--token-file", home.tokenFile, "--identity", home.directory + "/op.json",
                                                 "--method", "device.pair.setupCode",
                                                 "--params", #"{"bootstrapProfile":"node","joinUrl":true,"includeQr":false}"#])
        let url = try #require(minted.json?["joinUrl"] as? String, "\(minted.stdout)\(minted.stderr)")
        #expect(url.hasPrefix("http://127.0.0.1:\(gateway.port)/j/"))
        return url
    }

    @Test("a join URL from --target-file pairs once; the file is removed; the used URL says so and how to mint another")
    func redeemOnce() async throws {
        try await Commands.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Commands.token)) { gateway in
                let url = try await Self.mintJoinURL(gateway, home)
                let file = home.directory + "/target"
                try (url + "\n").write(toFile: file, atomically: true, encoding: .utf8)
                let paired = try home.run(["pair", "--target-file", file, "--name", "joined"])
                #expect(paired.status == 0, "\(paired)")
                #expect(paired.stderr.contains("Redeemed the join URL at http://127.0.0.1:\(gateway.port) (it works only once)."), "\(paired)")
                #expect(!paired.stderr.contains("visible to other users"))
                #expect(paired.stderr.contains("Step 2: unless the code approved them, an operator approves this node's commands on the gateway "
                                               + "('clawpair nodes pending' lists it there)."), "\(paired)")
                #expect(!FileManager.default.fileExists(atPath: file), "the target file is removed after the read")
                #expect(!paired.stdout.contains(url) && !paired.stderr.contains(url), "the join URL is a secret")

                let again = try home.run(["pair", url])
                #expect(again.status == 4, "\(again)")
                #expect(again.stderr.hasSuffix("error: the gateway at http://127.0.0.1:\(gateway.port) does not know this join code: it was used "
                                               + "already, expired, or never existed\nhint: a join URL works once and for about 10 minutes: "
                                               + "mint another on the gateway\n"), "\(again)")
                #expect(again.stderr.hasPrefix("warning: a setup code on the command line is visible"), "a join URL is a secret too")
            }
        }
    }

    @Test("join URLs that cannot be used, and target files that cannot be read, are refused before anything is fetched")
    func refusedInputs() async throws {
        try await Commands.withHome { home in
            let plaintext = try home.run(["pair", "http://192.168.1.5:18789/j/AbCdEfGhIjKlMnOpQrStUv"])
            #expect(plaintext.status == 2, "\(plaintext)")
            #expect(plaintext.stderr.contains("error: plain http join URLs are allowed only for loopback gateways (192.168.1.5 is not)"))
            let malformed = try home.run(["pair", "https://gw.example.com/j/AbCdEfGhIjKlMnOpQrStUv?x=1"])
            #expect(malformed.status == 2, "\(malformed)")
            #expect(malformed.stderr.contains("must end with exactly /j/<code>"))
            let empty = home.directory + "/empty"
            try "\n".write(toFile: empty, atomically: true, encoding: .utf8)
            let emptyRun = try home.run(["pair", "--target-file", empty])
            #expect(emptyRun.status == 2, "\(emptyRun)")
            #expect(emptyRun.stderr.contains("is empty"))
            #expect(FileManager.default.fileExists(atPath: empty), "an empty target file stays")
            let directory = try home.run(["pair", "--target-file", home.directory])
            #expect(directory.status != 0 && directory.stderr.contains("not a regular file"), "\(directory)")
            let both = try home.run(["pair", "x", "--target-file", empty])
            #expect(both.status == 2 && both.stderr.contains("give the setup code once"), "\(both)")
            let role = try home.run(["pair", "--role", "Admin", "-"])
            #expect(role.status == 2 && role.stdout.isEmpty, "\(role)")
            #expect(role.stderr == "error: unknown role 'Admin'\nhint: use node or operator\n")
            #expect(try home.run(["pair", "--role", "NODE", "x", "--code-file", empty]).stderr.contains("give the setup code once"),
                    "a role in capitals is a role")
        }
    }

    @Test("devices join-code mints a single-use URL, warns when the gateway is only bound to loopback, and pair redeems it")
    func joinCodeCommand() async throws {
        try await Commands.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: Commands.token)) { gateway in
                let minted = try home.op(gateway, ["devices", "join-code"])
                #expect(minted.status == 0, "\(minted)")
                let url = minted.stdout.trimmingCharacters(in: .newlines)
                #expect(url.range(of: #"^http://127\.0\.0\.1:\#(gateway.port)/j/[A-Za-z0-9_-]{22}$"#, options: .regularExpression) != nil, "\(url)")
                let lines = minted.stderr.split(separator: "\n").map(String.init)
                #expect(lines.contains { $0.hasPrefix("Single use, valid until ") && $0.hasSuffix(". On the node: clawpair pair --target-file FILE") },
                        "\(minted.stderr)")
                #expect(lines.last == "warning: the gateway is only bound to loopback: this join URL works only on this machine or through a "
                        + "tunnel; set gateway.publicOrigin to the gateway's public HTTPS origin so other machines can join", "\(minted.stderr)")
                let json = try Commands.json(try home.op(gateway, ["devices", "join-code", "--json"]).stdout)
                #expect(json["ok"] as? Bool == true && json["loopbackOnly"] as? Bool == true && json["expiresAtMs"] as? Int != nil)
                // Another machine's home: this one's identity is the operator's.
                let paired = try home.run(["pair", "-", "--name", "joined", "--wait", "0"], environment: ["CLAWPAIR_HOME": home.directory + "/node"],
                                          stdin: url + "\n")
                #expect(paired.status == 0, "\(paired)")
            }
            // Issue #24 §12: a gateway that mints a plain http join URL for a LAN address gets a real
            // message and code, not a Swift value.
            var plaintext = TestGatewayOptions(token: Commands.token, publicURL: "ws://192.168.77.10:18789")
            plaintext.extraArguments = ["--plaintext-join-urls"]
            try await withTestGateway(plaintext) { gateway in
                let refused = try home.op(gateway, ["devices", "join-code", "--json"])
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.stderr.contains("error: the gateway minted a plain http:// join URL for 192.168.77.10, which no node redeems"),
                        "\(refused)")
                #expect(refused.stderr.contains("hint: serve the gateway over TLS (wss://) to mint join URLs, or pair the node with a setup code"),
                        "\(refused)")
                #expect(!refused.stderr.contains("plaintext(host"), "\(refused)")
                let error = try #require(try Commands.json(refused.stdout)["error"] as? [String: Any])
                #expect(error["code"] as? String == "join-url-plaintext", "\(refused.stdout)")
            }
            var older = TestGatewayOptions(token: Commands.token)
            older.generation = .g3
            try await withTestGateway(older) { gateway in
                let refused = try home.op(gateway, ["devices", "join-code"])
                #expect(refused.status == 1, "an older gateway has no join URLs: \(refused)")
                #expect(refused.stderr.contains("device.pair.setupCode failed"), "\(refused)")
            }
        }
    }
}
