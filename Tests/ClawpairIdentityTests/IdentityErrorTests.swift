import ClawpairCore
import ClawpairIdentity
import ClawpairTestSupport
import Testing

@Suite("identity errors")
struct IdentityErrorTests {
    @Test("hints name no option and no clawpair command (the executable words those)")
    func hintsNameNoCommandLine() {
        let system = SystemError(call: "open", errno: 2, path: "/x")
        let errors: [IdentityError] = [
            .sodiumUnavailable, .outOfSecureMemory, .crypto("crypto_sign"),
            .invalid(what: "public key", .duplicateField("k")), .malformed(path: "/x", .duplicateField("k")),
            .unsafePermissions(path: "/x", mode: 0o644), .symlink(path: "/x"), .notARegularFile(path: "/x"),
            .noIdentity(path: "/x"), .alreadyExists(path: "/x"),
            .deviceIdMismatch(path: "/x", stored: "a", derived: "b"),
            .tokenCacheMismatch(path: "/x", cacheDeviceId: "a", identityDeviceId: "b"),
            .insideOpenClawState(path: "/x"), .system(system), .file(.exists(path: "/x")),
        ]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
        #expect(errors.allSatisfy { !$0.message.isEmpty })
    }
}
