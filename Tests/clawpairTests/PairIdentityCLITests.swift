import ClawpairTestSupport
import Foundation
import Testing

/// A failed `pair` leaves no new identity behind: the identity it created is removed when the
/// gateway never recorded the device (the code was refused), and kept once the gateway knows it
/// (it paired, or a request waits). An identity that existed before is never touched. The
/// stand-in gateway on loopback.
@Suite("clawpair pair: no identity left by a failed run", .serialized)
struct PairIdentityCLITests {
    @Test("a refused code removes the identity the run created, keeps one that existed; a pairing keeps its new one")
    func refusedCodeLeavesNoIdentity() async throws {
        try await GatewayCommandTests.withHome { home in
            try await withTestGateway(TestGatewayOptions(token: GatewayCommandTests.token)) { gateway in
                let minted = try home.op(gateway, ["qr", "--setup-code-only", "--node"])
                #expect(minted.status == 0, "\(minted)")

                // A node code asked for the operator role: the gateway refuses the bootstrap token.
                let fresh = home.directory + "/fresh"
                let refused = try home.run(["pair", "--role", "operator", "-"], environment: ["CLAWPAIR_HOME": fresh], stdin: minted.stdout)
                #expect(refused.status == 4, "\(refused)")
                #expect(!FileManager.default.fileExists(atPath: fresh + "/identity/device.json"), "\(refused)")
                #expect(refused.stderr.contains("Removed the device identity this run created"), "\(refused)")

                let kept = home.directory + "/kept"
                #expect(try home.run(["identity", "new"], environment: ["CLAWPAIR_HOME": kept]).status == 0)
                let before = try String(contentsOfFile: kept + "/identity/device.json", encoding: .utf8)
                let refusedAgain = try home.run(["pair", "--role", "operator", "-"], environment: ["CLAWPAIR_HOME": kept],
                                                stdin: minted.stdout)
                #expect(refusedAgain.status == 4, "\(refusedAgain)")
                #expect(try String(contentsOfFile: kept + "/identity/device.json", encoding: .utf8) == before)

                let paired = home.directory + "/paired"
                let pairing = try home.run(["pair", "-"], environment: ["CLAWPAIR_HOME": paired], stdin: minted.stdout)
                #expect(pairing.status == 0, "\(pairing)")
                #expect(FileManager.default.fileExists(atPath: paired + "/identity/device.json"), "\(pairing)")
            }
        }
    }
}
