import ClawpairCore
import ClawpairTestSupport
import ClawpairWideArea
import Testing

@Suite("wide-area errors")
struct WideAreaErrorTests {
    @Test("hints name no option and no clawpair command (the executable words those)")
    func hintsNameNoCommandLine() {
        let errors: [WideAreaError] = [.timedOut(name: "_openclaw-gw._tcp.example.com"),
                                       .serverFailed(server: "127.0.0.1", reason: "refused"),
                                       .badTCPFrame(server: "127.0.0.1", reason: "short")]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
        #expect(errors.allSatisfy { $0.hint?.contains("resolv.conf") == true })
    }
}
