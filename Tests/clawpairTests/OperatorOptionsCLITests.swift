import ClawpairTestSupport
import Foundation
import Testing

/// The operator commands' option conflicts, checked before anything is sent
/// (Sources/clawpair/Support/GatewayCLI.swift, OperatorTargetChoice, SecretInput.isGiven).
@Suite("operator options that exclude each other")
struct OperatorOptionsCLITests {
    static func run(_ arguments: [String]) throws -> ClawpairBinary.Result {
        let directory = NSTemporaryDirectory() + "clawpair-operator-options-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try ClawpairBinary.run(arguments, environment: ["CLAWPAIR_HOME": directory + "/home", "HOME": directory])
    }

    @Test("--url with --gateway is a usage error, also as the JSON envelope")
    func urlAndGateway() throws {
        let human = try Self.run(["devices", "list", "--url", "ws://127.0.0.1:1", "--gateway", "lab"])
        #expect(human.status == 2, "\(human)")
        #expect(human.stderr == "error: give either --url or --gateway, not both\n", "\(human)")
        let json = try Self.run(["nodes", "status", "--url", "ws://127.0.0.1:1", "--gateway", "lab", "--json"])
        #expect(json.status == 2, "\(json)")
        #expect(json.stdout == """
            {
              "ok": false,
              "error": {
                "code": "usage",
                "message": "give either --url or --gateway, not both",
                "hint": null
              }
            }

            """, "\(json)")
    }

    @Test("a token and a password together is a usage error")
    func tokenAndPassword() throws {
        let result = try Self.run(["devices", "list", "--url", "ws://127.0.0.1:1", "--token-file", "/dev/null", "--password", "-"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasSuffix("error: give a token or a password, not both\n"), "\(result)")
    }
}
