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
        }
    }
}
