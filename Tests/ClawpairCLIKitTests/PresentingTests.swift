import ClawpairCLIKit
import ClawpairCore
import Testing

/// `PresentedError.presenting`: a program's rules for its library errors, applied through the
/// wrappers, with the command line's own errors as they are.
@Suite("presenting errors with a program's rules")
struct PresentingTests {
    struct Refusal: ClawpairError {
        var message: String { "refused here" }
        var hint: String? { "the library's hint" }
        var code: String { "my-refusal" }
    }

    struct Plain: Error, CustomStringConvertible {
        var description: String { "plain failure" }
    }

    static func present(_ error: any Error) -> PresentedError {
        PresentedError.presenting(error, status: { $0 is Refusal ? .refused : .failure },
                                  hint: { $0 is Refusal ? "the program's hint" : $0.hint },
                                  details: { $0 is Refusal ? [("requestId", .string("r1"))] : [] })
    }

    @Test("a library error gets the program's status, hint and details and its own code")
    func library() {
        let shown = Self.present(Refusal())
        #expect(shown.exitStatus == .refused)
        #expect(shown.message == "refused here")
        #expect(shown.hint == "the program's hint")
        #expect(shown.code == "my-refusal")
        #expect(JSONValue.object(shown.details) == .object([("requestId", .string("r1"))]))
        let other = Self.present(SystemError(call: "open", errno: 2, path: "/x"))
        #expect(other.exitStatus == .failure)
        #expect(other.code == "io-error")
        #expect(other.hint == SystemError(call: "open", errno: 2, path: "/x").hint)
    }

    @Test("wrappers are presented as what they wrap, with their own message")
    func wrappers() {
        let context = Self.present(ContextualError("reading /x", Refusal()))
        #expect(context.exitStatus == .refused)
        #expect(context.message == "reading /x: refused here")
        #expect(context.hint == "the program's hint")
        #expect(context.code == "my-refusal")
        #expect(context.details.map(\.0) == ["requestId"])
        #expect(context.underlying is ContextualError)
        let boxed = Self.present(ContextualError("a", ClawpairErrorBox(Refusal())))
        #expect(boxed.exitStatus == .refused)
        #expect(boxed.message == "a: refused here")
        let usage = Self.present(ContextualError("parsing", UsageError("bad option")))
        #expect(usage.exitStatus == .usage)
        #expect(usage.code == "usage")
    }

    @Test("command-line errors and presented errors keep theirs; anything else is 1 with its description")
    func others() {
        let general = Self.present(GeneralError("gone", hint: "look elsewhere", status: .notFound))
        #expect(general.exitStatus == .notFound)
        #expect(general.hint == "look elsewhere")
        #expect(general.code == "not-found")
        let presented = PresentedError(Plain(), status: .refused, message: "m", hint: nil, code: "tls-trust")
        #expect(Self.present(presented).code == "tls-trust")
        let plain = Self.present(Plain())
        #expect(plain.exitStatus == .failure)
        #expect(plain.message == "plain failure")
        #expect(plain.hint == nil)
        #expect(plain.code == "error")
    }
}

/// `SecretInput.isGiven`: the command line names the secret, whatever the environment holds.
@Suite struct SecretInputGivenTests {
    static let spec = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
        CommandSpec(name: "go", abstract: "Goes", options: [
            .value("token-file", "FILE", help: "f"), .value("token", "TOKEN", help: "t"),
        ], runner: { _, _ in .success }),
    ])
    static let token = SecretInput(what: "token", fileOption: "token-file", valueOption: "token", environmentVariable: "TOOL_TOKEN")

    @Test("the file option or the value option names it; nothing else does")
    func given() throws {
        #expect(Self.token.isGiven(try ArgumentParser.parse(["go", "--token-file", "/x"], root: Self.spec)))
        #expect(Self.token.isGiven(try ArgumentParser.parse(["go", "--token", "-"], root: Self.spec)))
        #expect(!Self.token.isGiven(try ArgumentParser.parse(["go"], root: Self.spec)))
    }
}
