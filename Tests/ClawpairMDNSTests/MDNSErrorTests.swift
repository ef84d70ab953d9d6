import ClawpairCore
import ClawpairMDNS
import ClawpairTestSupport
import Testing

@Suite("mDNS errors")
struct MDNSErrorTests {
    @Test("hints name no option and no clawpair command (the executable words those)")
    func hintsNameNoCommandLine() {
        let errors: [MDNSError] = [.noInterfaces, .system(SystemError(call: "socket", errno: 1)), .badServiceType("x")]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
        #expect(MDNSError.noInterfaces.hint != nil)
    }
}
