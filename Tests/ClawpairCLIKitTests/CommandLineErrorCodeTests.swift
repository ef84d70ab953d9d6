import ClawpairCLIKit
import ClawpairCore
import Testing

/// The code of a command-line error that names none follows its exit status.
@Suite("command-line error codes")
struct CommandLineErrorCodeTests {
    @Test("usage, not-found, refused, else error; a presented error keeps its own")
    func codes() {
        #expect(UsageError("bad").code == "usage")
        #expect(GeneralError("x", status: .usage).code == "usage")
        #expect(GeneralError("x", status: .notFound).code == "not-found")
        #expect(GeneralError("x", status: .refused).code == "refused")
        #expect(GeneralError("x").code == "error")
        let presented = PresentedError(GeneralError("x"), status: .refused, message: "x", hint: nil, code: "tls-trust")
        #expect(presented.code == "tls-trust")
        let erased: any ClawpairError = ContextualError("reading /x", GeneralError("x", status: .notFound))
        #expect(erased.code == "not-found")
    }
}
