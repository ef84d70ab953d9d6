import ClawpairCLIKit
import ClawpairCore
import Synchronization
import Testing

/// How ``CommandLineTool`` ends a command that threw: through the presentation it is given.
@Suite struct CommandLineErrorTests {
    /// A library-style error: a message and a hint, no status.
    struct LibraryError: ClawpairError {
        var message: String { "the thing failed" }
        var hint: String? { "try the other thing" }
    }
    struct PlainError: Error, CustomStringConvertible {
        var description: String { "plain failure" }
    }

    final class Capture: TextSink {
        let text = Mutex("")
        func write(_ text: String) { self.text.withLock { $0 += text } }
        var value: String { text.withLock { $0 } }
    }

    /// Runs a one-command tool whose runner throws `error`; returns the status and stderr.
    static func run(throwing error: any Error & Sendable,
                    present: (any Error) -> PresentedError = PresentedError.standard) -> (Int32, String) {
        let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
            CommandSpec(name: "fail", abstract: "Fails", runner: { _, _ in throw error }),
        ])
        let stderr = Capture()
        let status = CommandLineTool.run(root: root, arguments: ["fail"], version: "1", makeContext: { globals in
            CommandContext(stdout: Capture(), stderr: stderr, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false,
                           environment: [:], globals: globals, nowMs: 0, readStandardInput: { _ in [] })
        }, present: present)
        return (status, stderr.value)
    }

    @Test("standard presentation: command-line errors keep their status; library errors are 1 with their hint")
    func standard() {
        #expect(Self.run(throwing: UsageError("bad", hint: "see --help")) == (2, "error: bad\nhint: see --help\n"))
        #expect(Self.run(throwing: GeneralError("no", status: .refused)) == (4, "error: no\n"))
        #expect(Self.run(throwing: LibraryError()) == (1, "error: the thing failed\nhint: try the other thing\n"))
        #expect(Self.run(throwing: PlainError()) == (1, "error: plain failure\n"))
        #expect(Self.run(throwing: ContextualError("reading /x", LibraryError()))
                == (1, "error: reading /x: the thing failed\nhint: try the other thing\n"))
    }

    @Test("the executable's presentation decides status, message and hint of every thrown error")
    func custom() {
        let (status, stderr) = Self.run(throwing: LibraryError()) { error in
            PresentedError(error, status: .notFound, message: "presented", hint: "the command line's hint")
        }
        #expect(status == 3)
        #expect(stderr == "error: presented\nhint: the command line's hint\n")
        // A usage error from parsing goes through it too.
        let root = CommandSpec(name: "tool", abstract: "A tool", runner: { _, _ in .success })
        let seen = Mutex<[String]>([])
        let parsed = CommandLineTool.run(root: root, arguments: ["--no-such-option"], version: "1", makeContext: { globals in
            CommandContext(stdout: Capture(), stderr: Capture(), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false,
                           environment: [:], globals: globals, nowMs: 0, readStandardInput: { _ in [] })
        }, present: { error in
            seen.withLock { $0.append("\(type(of: error))") }
            return PresentedError.standard(error)
        })
        #expect(parsed == 2)
        #expect(seen.withLock { $0 } == ["UsageError"])
    }
}
