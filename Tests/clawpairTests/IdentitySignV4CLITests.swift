import ClawpairTestSupport
import Foundation
import Testing

/// `identity sign-connect --v4`: the length-prefixed payload of a trusted broker profile connect
/// (upstream `packages/gateway-client/src/device-auth.ts`, vector in `src/gateway/device-auth.test.ts`:
/// `v4|5:dev-3|14:gateway-client|7:backend|8:operator|1:2|13:operator.read|14:operator.write|13:1700000000002|7:tok-456|9:nonce-ghi|5:linux|0:|15:profile-human-1`).
@Suite("identity sign-connect --v4")
struct IdentitySignV4CLITests {
    typealias Identity = IdentityCLITests

    @Test("upstream's v4 fields with this identity's deviceId: the length-prefixed text, signed; usage errors around it")
    func v4() throws {
        let box = try Identity.Sandbox()
        try box.importVector()
        let args = ["identity", "sign-connect", "--v4", "--broker-profile", "profile-human-1", "--client-id", "gateway-client",
                    "--client-mode", "backend", "--scope", "operator.read", "--scope", "operator.write", "--signed-at-ms",
                    "1700000000002", "--nonce", "nonce-ghi", "--platform", "linux", "--print-payload"]
        let signed = try box.run(args, environment: ["CLAWPAIR_CONNECT_TOKEN": "tok-456"])
        #expect(signed.status == 0, "\(signed)")
        let lines = signed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "v4|64:\(Identity.deviceId)|14:gateway-client|7:backend|8:operator|1:2|13:operator.read|"
                + "14:operator.write|13:1700000000002|7:tok-456|9:nonce-ghi|5:linux|0:|15:profile-human-1", "\(signed)")
        #expect(lines.count == 2 && lines[1].count == 86, "one base64url Ed25519 signature")

        #expect(try box.run(["identity", "sign-connect", "--v4", "--nonce", "n"]).status == 2, "--v4 needs --broker-profile")
        #expect(try box.run(["identity", "sign-connect", "--broker-profile", "p", "--nonce", "n"]).status == 2, "the profile is v4 only")
        #expect(try box.run(["identity", "sign-connect", "--v3", "--v4", "--broker-profile", "p", "--nonce", "n"]).status == 2)
        let nonASCII = try box.run(["identity", "sign-connect", "--v4", "--broker-profile", "p", "--nonce", "n", "--platform", "Łinux"],
                                   environment: ["CLAWPAIR_CONNECT_TOKEN": "t"])
        #expect(nonASCII.status != 0, "a non-ASCII v4 field is refused, not guessed at: \(nonASCII)")
    }
}
