import ClawpairTestSupport
import Foundation
import Testing

/// Issue #24 §9: a failing operator command leaves no identity behind, and the hint of a
/// missing file named on the command line never says "create one with identity new" (which
/// would replace the identity that exists, and every pairing with it).
@Suite("clawpair: no identity as a side effect, no identity-new hint for a missing file")
struct OperatorSideEffectTests {
    @Test("devices approve with no gateway answering creates no identity; a gateway that answers keeps the new one")
    func noIdentityWhenNothingAnswers() async throws {
        try await GatewayCommandTests.withHome { home in
            let identity = home.directory + "/home/identity/device.json"
            let failed = try home.run(["devices", "approve", "someone", "--timeout", "2s"],
                                      environment: ["OPENCLAW_GATEWAY_PORT": "1", "OPENCLAW_CONFIG_PATH": home.directory + "/none.json"])
            #expect(failed.status == 3, "\(failed)")
            #expect(!FileManager.default.fileExists(atPath: identity), "no identity was created: \(failed)")
            #expect(!failed.stderr.contains("Created this machine's device identity"), "\(failed)")

            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { gateway in
                let listed = try home.op(gateway, ["devices", "list"])
                #expect(listed.status == 0, "\(listed)")
                #expect(listed.stderr.contains("Created this machine's device identity"), "\(listed)")
                #expect(FileManager.default.fileExists(atPath: identity))
            }
        }
    }

    @Test("a missing identity file named with --identity: check the path, not 'identity new'")
    func missingNamedFile() throws {
        try GatewayCommandTests.withHomeSync { home in
            #expect(try home.run(["identity", "new"]).status == 0)
            let shown = try home.run(["identity", "show", "--identity", home.directory + "/typo.json"])
            #expect(shown.status == 3, "\(shown)")
            #expect(!shown.stderr.contains("identity new"), "\(shown)")
            #expect(shown.stderr.contains("hint: check the file name (this machine's own identity is "), "\(shown)")
            let none = try home.run(["identity", "show"], environment: ["CLAWPAIR_HOME": home.directory + "/empty"])
            #expect(none.status == 3 && none.stderr.contains("identity new"), "the store's own identity missing: \(none)")
        }
    }
}
