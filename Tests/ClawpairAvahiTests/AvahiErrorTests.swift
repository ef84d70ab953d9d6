import ClawpairAvahi
import ClawpairCore
import ClawpairTestSupport
import Testing

@Suite("Avahi errors")
struct AvahiErrorTests {
    @Test("hints name no option and no clawpair command (the executable words those)")
    func hintsNameNoCommandLine() {
        let errors: [AvahiError] = [.daemonNotRunning, .libraryUnavailable("libavahi-client.so.3")]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
        #expect(errors.allSatisfy { $0.hint?.contains("built-in mDNS querier") == true })
    }
}
