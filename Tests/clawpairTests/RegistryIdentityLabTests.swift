import ClawpairTestSupport
import Foundation
import Testing

/// Issue #25.1 and #25.2 end to end: the user's own gateway (lab host G) and an attacker's (host A),
/// both stand-in gateways, and the user's machine (host N) paired with G as an operator. The
/// attacker's setup code names A first and G as a fallback; pairing with it must not touch G's
/// record nor become the default, and the user's operator credentials (the stored device token,
/// OPENCLAW_GATEWAY_TOKEN) must never reach A.
@Suite("registry identity: a hostile code cannot take over a paired gateway (network lab)", .serialized, .networkLab)
struct RegistryIdentityLabTests {
    static let port = 18789
    static let homeToken = "home-shared-token-0123456789abcdef"
    static let attackerToken = "evil-shared-token-0123456789abcdef"

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestError("not a JSON object: \(text)")
        }
        return object
    }

    /// `code` (a bare base64url setup code) with its `urls` replaced by `urls`.
    static func withURLs(_ code: String, _ urls: [String]) throws -> String {
        var base64 = code.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        var payload = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        payload["url"] = urls[0]
        payload["urls"] = urls
        let encoded = try JSONSerialization.data(withJSONObject: payload).base64EncodedString()
        return encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("a code listing the user's gateway as a fallback makes a new record; the user's token and env credentials never reach it")
    func hostileFallbackCode() async throws {
        try await withNetworkLab { lab in
            let g = try await lab.addHost("G")
            let a = try await lab.addHost("A")
            let n = try await lab.addHost("N")
            let homeLink = try await lab.link(g, n)
            let evilLink = try await lab.link(a, n)
            let homeURL = "ws://\(homeLink.a.ipv4):\(Self.port)"
            let evilURL = "ws://\(evilLink.a.ipv4):\(Self.port)"
            let dir = lab.temporaryDirectory.path
            let homeTokenFile = try lab.writeFile("home-token", contents: Self.homeToken + "\n")
            let evilTokenFile = try lab.writeFile("evil-token", contents: Self.attackerToken + "\n")
            let home = try await startTestGateway(TestGatewayOptions(token: Self.homeToken, publicURL: homeURL,
                                                                     hosts: [homeLink.a.ipv4, "127.0.0.1"], port: Self.port), in: g)
            let evil = try await startTestGateway(TestGatewayOptions(token: Self.attackerToken, publicURL: evilURL,
                                                                     hosts: [evilLink.a.ipv4, "127.0.0.1"], port: Self.port), in: a)
            func operate(_ host: LabHost, _ tokenFile: String, _ arguments: [String]) async throws -> ProcessResult {
                try await host.run([ClawpairBinary.path] + arguments + ["--url", "ws://127.0.0.1:\(Self.port)", "--token-file", tokenFile],
                                   environment: ["CLAWPAIR_HOME": dir + "/operator-\(host == g ? "g" : "a")"], timeout: .seconds(30))
            }
            func mint(_ host: LabHost, _ tokenFile: String, _ url: String, fallback: String? = nil) async throws -> String {
                let minted = try await operate(host, tokenFile, ["qr", "--setup-code-only", "--public-url", url])
                try #require(minted.status.isSuccess, "\(minted)")
                let code = try fallback.map { try Self.withURLs(minted.stdout, [url, $0]) } ?? minted.stdout
                let file = dir + "/code-\(UUID().uuidString.prefix(6)).txt"
                try code.write(toFile: file, atomically: true, encoding: .utf8)
                return file
            }
            let user = dir + "/user"
            func pair(_ code: String, approveOn host: LabHost, _ tokenFile: String) async throws -> [String: Any] {
                let pairing = try n.spawn([ClawpairBinary.path, "pair", "--role", "operator", "--code-file", code, "--json"],
                                          environment: ["CLAWPAIR_HOME": user], label: "pair")
                let gateway = host == g ? home : evil
                _ = try await gateway.waitForLog("pending", timeout: .seconds(20))
                let approved = try await operate(host, tokenFile, ["devices", "approve", "--latest", "--yes"])
                #expect(approved.status.isSuccess, "\(approved)")
                #expect(try await pairing.waitForExit(timeout: .seconds(20)) == .exited(0), "\(pairing.outputExcerpt)")
                return try Self.json(pairing.stdout)
            }

            // The user pairs with their own gateway: it becomes the default.
            let first = try await pair(try await mint(g, homeTokenFile, homeURL), approveOn: g, homeTokenFile)
            let homeRecord = try #require(first["gateway"] as? [String: Any])
            #expect(first["isDefault"] as? Bool == true)

            // The attacker's code: A first, the user's gateway as a fallback.
            let second = try await pair(try await mint(a, evilTokenFile, evilURL, fallback: homeURL), approveOn: a, evilTokenFile)
            let evilRecord = try #require(second["gateway"] as? [String: Any])
            #expect(evilRecord["id"] as? String != homeRecord["id"] as? String, "a new record, not the user's")
            #expect(evilRecord["urls"] as? [String] == [evilURL], "the fallback already paired is not taken")
            #expect(second["updatedRecord"] as? Bool == false)
            #expect(second["isDefault"] as? Bool == false)
            #expect(second["previousDefault"] as? String == homeRecord["name"] as? String)
            let stored = try Self.json(try String(contentsOfFile: user + "/gateways/\(try #require(homeRecord["id"] as? String)).json",
                                                  encoding: .utf8))
            #expect(stored["urls"] as? [String] == [homeURL], "the user's record keeps its routes")

            // Operator commands (nodes status: the scopes a setup code hands off) still go to the user's gateway, with its stored token; OPENCLAW_GATEWAY_TOKEN
            // is not sent to a registry gateway (#25.2), and A hears nothing.
            let evilBefore = evil.logs().count
            let homeBefore = home.logs("connect-ok").count
            let listed = try await n.run([ClawpairBinary.path, "nodes", "status", "--json"],
                                         environment: ["CLAWPAIR_HOME": user, "OPENCLAW_GATEWAY_TOKEN": Self.homeToken])
            #expect(listed.status.isSuccess, "\(listed)")
            let homeConnect = try #require(home.logs("connect-ok").dropFirst(homeBefore).first)
            #expect(homeConnect["auth"] as? String == "device-token")
            #expect(evil.logs().count == evilBefore, "the attacker's gateway was not contacted")

            // Even with the attacker's gateway chosen as the default, it gets only the token it issued itself.
            let use = try await n.run([ClawpairBinary.path, "gateways", "use", try #require(evilRecord["name"] as? String)],
                                      environment: ["CLAWPAIR_HOME": user])
            #expect(use.status.isSuccess, "\(use)")
            let evilConnects = evil.logs("connect-ok").count
            _ = try await n.run([ClawpairBinary.path, "nodes", "status", "--json"],
                                environment: ["CLAWPAIR_HOME": user, "OPENCLAW_GATEWAY_TOKEN": Self.homeToken])
            let evilConnect = try #require(evil.logs("connect-ok").dropFirst(evilConnects).first)
            #expect(evilConnect["auth"] as? String == "device-token", "OPENCLAW_GATEWAY_TOKEN was withheld")
            #expect(!evil.logs().contains { $0["auth"] as? String == "token" && $0["log"] as? String != "connect-ok" })

            await evil.stop(grace: .seconds(2))
            await home.stop(grace: .seconds(2))
        }
    }
}
