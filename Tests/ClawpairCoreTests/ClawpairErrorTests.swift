import ClawpairCore
import ClawpairTestSupport
import Testing

@Suite("errors of ClawpairCore")
struct ClawpairErrorTests {
    @Test("hints name no option and no clawpair command (the executable words those)")
    func hintsNameNoCommandLine() {
        let system = SystemError(call: "open", errno: 13, path: "/x")
        let errors: [any ClawpairError] = [
            system, SystemError(call: "open", errno: 2, path: "/x"), SystemError(call: "read", errno: 21),
            AtomicFileError.system(system), AtomicFileError.exists(path: "/x"),
            AtomicFileError.insecureDirectory(path: "/x", mode: 0o777), AtomicFileError.notADirectory(path: "/x"),
        ]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
        // The checker itself: options and commands are found.
        #expect(LibraryHints.commandLineWords(in: "pass --force (or 'clawpair identity new')") == ["--force", "clawpair identity"])
    }

    @Test("wrappers keep the wrapped error's message and hint")
    func wrappers() {
        let inner = AtomicFileError.exists(path: "/x")
        let context = ContextualError("writing /x", inner)
        #expect(context.message == "writing /x: /x already exists")
        #expect(context.hint == inner.hint)
        let box = ClawpairErrorBox(context)
        #expect(box.message == context.message && box.hint == inner.hint)
        struct Plain: Error {}
        #expect(ContextualError("reading /y", Plain()).hint == nil)
    }
}
