import ClawpairCLIKit
import ClawpairCore
import Synchronization
import Testing

/// The `--json` envelope: `"ok"` first on every document, the error object on every failure,
/// printed by the frame so that every command gets it.
@Suite struct JSONEnvelopeTests {
    final class Capture: TextSink {
        let text = Mutex("")
        func write(_ text: String) { self.text.withLock { $0 += text } }
        var value: String { text.withLock { $0 } }
    }

    struct Outcome: Equatable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `tool` with one command `go` whose runner is `body`.
    static func run(_ arguments: [String], options: [OptionSpec] = [],
                    _ body: @escaping CommandRunner = { _, _ in .success }) -> Outcome {
        let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
            CommandSpec(name: "go", abstract: "Goes", options: options, runner: body),
            CommandSpec(name: "group", abstract: "Holds", subcommands: [CommandSpec(name: "inner", abstract: "Inner")]),
        ])
        let (stdout, stderr) = (Capture(), Capture())
        let status = CommandLineTool.run(root: root, arguments: arguments, version: "1.2.3", makeContext: { globals in
            CommandContext(stdout: stdout, stderr: stderr, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false,
                           environment: [:], globals: globals, nowMs: 0, readStandardInput: { _ in [] })
        })
        return Outcome(status: status, stdout: stdout.value, stderr: stderr.value)
    }

    @Test("success adds \"ok\": true first to an object without one, and leaves a command's own ok and non-objects alone")
    func success() {
        #expect(JSONEnvelope.success(.object([("a", .int(1))])) == .object([("ok", .bool(true)), ("a", .int(1))]))
        let own: JSONValue = .object([("a", .int(1)), ("ok", .bool(false))])
        #expect(JSONEnvelope.success(own) == own)
        #expect(JSONEnvelope.success(.array([.int(1)])) == .array([.int(1)]))
    }

    @Test("failure: code, message, hint (null when none), then the error's details")
    func failure() {
        let error = PresentedError(GeneralError("x"), status: .refused, message: "refused here", hint: nil, code: "auth-rejected",
                                   details: [("requestId", .string("r1"))])
        #expect(JSONEnvelope.failure(error).compact() ==
                #"{"ok":false,"error":{"code":"auth-rejected","message":"refused here","hint":null,"requestId":"r1"}}"#)
        #expect(PresentedError.standard(UsageError("bad")).code == "usage")
        #expect(PresentedError.standard(GeneralError("bad")).code == "error")
    }

    @Test("a thrown error under --json is the envelope on stdout and the message on stderr")
    func thrown() {
        let outcome = Self.run(["go", "--json"]) { _, _ in throw GeneralError("it broke", hint: "mend it", status: .notFound) }
        #expect(outcome == Outcome(status: 3, stdout: """
            {
              "ok": false,
              "error": {
                "code": "error",
                "message": "it broke",
                "hint": "mend it"
              }
            }

            """, stderr: "error: it broke\nhint: mend it\n"))
        // Without --json, stdout stays empty.
        #expect(Self.run(["go"]) { _, _ in throw GeneralError("it broke") }.stdout == "")
    }

    @Test("usage errors under --json: an unknown option, a group without its command, a --json after -- is no flag")
    func usage() throws {
        let unknown = Self.run(["go", "--nope", "--json"])
        #expect(unknown.status == 2)
        #expect(unknown.stdout.hasPrefix("{\n  \"ok\": false,\n  \"error\": {\n    \"code\": \"usage\",\n    \"message\": \"unknown option '--nope' for 'tool go'\""),
                "\(unknown)")
        let group = Self.run(["--json", "group"])
        #expect(group.status == 2 && group.stdout.contains("\"code\": \"usage\""), "\(group)")
        let positional = Self.run(["go", "--", "--json", "extra"])
        #expect(positional.status == 2 && positional.stdout.isEmpty, "\(positional)")
    }

    @Test("a command that printed its own document gets no second one; a JSON-lines stream ends with the envelope as one line")
    func printedBefore() {
        let document = Self.run(["go", "--json"]) { _, context in
            context.printJSON(.object([("ok", .bool(false)), ("why", .string("mine"))]))
            throw GeneralError("after the document")
        }
        #expect(document.stdout == "{\n  \"ok\": false,\n  \"why\": \"mine\"\n}\n")
        #expect(document.status == 1)
        let stream = Self.run(["go", "--json"]) { _, context in
            context.printJSONLine(.object([("event", .string("added"))]))
            throw GeneralError("lost the daemon")
        }
        #expect(stream.stdout == #"""
            {"event":"added"}
            {"ok":false,"error":{"code":"error","message":"lost the daemon","hint":null}}

            """#)
    }

    @Test("success documents get ok first; --version --json is a document too")
    func successDocuments() {
        let outcome = Self.run(["go", "--json"]) { _, context in
            context.printJSON(.object([("value", .int(7))]))
            return .success
        }
        #expect(outcome.stdout == "{\n  \"ok\": true,\n  \"value\": 7\n}\n")
        #expect(Self.run(["--version", "--json"]).stdout == "{\n  \"ok\": true,\n  \"name\": \"tool\",\n  \"version\": \"1.2.3\"\n}\n")
        #expect(Self.run(["--version"]).stdout == "tool 1.2.3\n")
    }
}
