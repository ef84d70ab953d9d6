#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import Dispatch
import Synchronization
import Testing

/// Captured text of a sink.
final class Captured: TextSink {
    private let text = Mutex("")
    private let written = DispatchSemaphore(value: 0)
    func write(_ text: String) {
        self.text.withLock { $0 += text }
        written.signal()
    }
    var value: String { text.withLock { $0 } }
    /// Returns once something has been written (at once when something already was).
    func waitForWrite() {
        written.wait()
        written.signal()
    }
}

/// A context writing to captures, with `stdin` as standard input.
func context(environment: [String: String] = [:], stdin: [UInt8] = [], stdinIsTTY: Bool = false, stderrIsTTY: Bool = false,
             globals: GlobalOptions = GlobalOptions()) -> (CommandContext, stdout: Captured, stderr: Captured) {
    let out = Captured(), err = Captured()
    let context = CommandContext(stdout: out, stderr: err, stdoutIsTTY: false, stderrIsTTY: stderrIsTTY, stdinIsTTY: stdinIsTTY,
                                 environment: environment, globals: globals, nowMs: 1_000_000,
                                 readStandardInput: { limit in Array(stdin.prefix(limit)) })
    return (context, out, err)
}

/// SecretInput: a file, standard input, the environment, or a literal with a warning; the
/// option names in every message are the caller's.
@Suite("SecretInput")
struct SecretInputTests {
    static let input = SecretInput(what: "widget key", fileOption: "key-file", valueOption: "key", environmentVariable: "WIDGET_KEY")
    static let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
        CommandSpec(name: "use", abstract: "Uses a key", options: [
            .value("key-file", "FILE", help: "The key file."), .value("key", "KEY", help: "The key."),
        ], runner: { _, _ in .success }),
    ])

    func parse(_ arguments: [String]) throws -> ParsedArguments {
        try ArgumentParser.parse(["use"] + arguments, root: Self.root)
    }

    @Test("each source, trailing newlines removed; the literal warns and names the caller's options")
    func sources() throws {
        let path = "/tmp/clawpair-secret-\(getpid()).txt"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = write(fd, "from-file\r\n", 11)
        close(fd)
        defer { unlink(path) }
        let (c1, _, e1) = context()
        #expect(try Self.input.read(parse(["--key-file", path]), c1) == "from-file")
        #expect(e1.value == "")

        let (c2, _, _) = context(stdin: Array("from-stdin\n".utf8))
        #expect(try Self.input.read(parse(["--key", "-"]), c2) == "from-stdin")

        let (c3, _, _) = context(environment: ["WIDGET_KEY": "from-env"])
        #expect(try Self.input.read(parse([]), c3) == "from-env")
        var noEnvironment = Self.input
        noEnvironment.readsEnvironment = false
        #expect(try noEnvironment.read(parse([]), c3) == nil)

        let (c4, _, e4) = context()
        #expect(try Self.input.read(parse(["--key", "literal"]), c4) == "literal")
        #expect(e4.value == "warning: a widget key on the command line is visible to other users (ps, shell history); "
                + "prefer --key-file FILE, --key - (stdin) or WIDGET_KEY\n")
    }

    @Test("both options, an empty secret and non-UTF-8 input are errors worded with the caller's names")
    func errors() throws {
        let (c, _, _) = context(stdin: [0xFF, 0xFE])
        #expect(throws: UsageError("give the widget key once: --key-file or --key, not both")) {
            try Self.input.read(parse(["--key-file", "/dev/null", "--key", "x"]), c)
        }
        let (empty, _, _) = context(stdin: Array("\n".utf8))
        #expect { try Self.input.read(parse(["--key", "-"]), empty) } throws: { error in
            (error as? GeneralError)?.message == "the widget key is empty"
        }
        #expect { try Self.input.read(parse(["--key", "-"]), c) } throws: { error in
            (error as? GeneralError)?.message == "standard input does not hold UTF-8 text"
                && (error as? GeneralError)?.hint == "give the file that holds just the widget key"
        }
    }
}

/// Spinner: frames on its own thread, the line erased on stop; when it shows and which frames.
@Suite("Spinner", .timeLimit(.minutes(1)))
struct SpinnerTests {
    @Test("draws a frame at once and erases the line when stopped")
    func drawsAndErases() throws {
        let sink = Captured()
        let spinner = try #require(Spinner(sink: sink, message: "Working", frames: ["*"], clock: ManualClock()))
        // A stop before the first frame draws none; wait for it (the time limit catches a hang).
        sink.waitForWrite()
        spinner.stop()
        spinner.stop()
        #expect(sink.value.hasPrefix("\r* Working"))
        #expect(sink.value.hasSuffix(Spinner.erase))
        #expect(sink.value.dropLast(Spinner.erase.count).split(separator: "\r").allSatisfy { $0 == "* Working" },
                "\(sink.value.debugDescription): frames, then one erase")
        #expect(Spinner(sink: sink, message: "x", frames: []) == nil)
    }

    @Test("shown only for a person at a terminal; braille frames only in a UTF-8 locale")
    func whenAndWhich() {
        #expect(Spinner.shouldShow(stderrIsTTY: true, environment: [:], json: false, watch: false, quiet: false, verbose: false))
        #expect(!Spinner.shouldShow(stderrIsTTY: false, environment: [:], json: false, watch: false, quiet: false, verbose: false))
        #expect(!Spinner.shouldShow(stderrIsTTY: true, environment: ["TERM": "dumb"], json: false, watch: false, quiet: false, verbose: false))
        #expect(!Spinner.shouldShow(stderrIsTTY: true, environment: [:], json: true, watch: false, quiet: false, verbose: false))
        #expect(!Spinner.shouldShow(stderrIsTTY: true, environment: [:], json: false, watch: false, quiet: false, verbose: true))
        #expect(Spinner.frames(environment: ["LANG": "de_DE.UTF-8"]).first == "⠋")
        #expect(Spinner.frames(environment: ["LC_ALL": "C", "LANG": "de_DE.UTF-8"]) == ["|", "/", "-", "\\"])
    }

    @Test("started for a command's context only when it should show, on its standard error")
    func startInContext() throws {
        #expect(Spinner.start("Working", in: context().0) == nil)
        var json = GlobalOptions()
        json.json = true
        #expect(Spinner.start("Working", in: context(stderrIsTTY: true, globals: json).0) == nil)
        #expect(Spinner.start("Working", in: context(stderrIsTTY: true).0, watch: true) == nil)
        let (shown, _, err) = context(environment: ["LANG": "C"], stderrIsTTY: true)
        let spinner = try #require(Spinner.start("Working", in: shown))
        err.waitForWrite()
        spinner.stop()
        #expect(err.value.hasPrefix("\r| Working"))
    }
}

/// RecordText and TextColumns: sanitized fields, ages, short ids and aligned tables.
@Suite("RecordText")
struct RecordTextTests {
    @Test("fields are sanitized and '-' when absent; ids shortened; ages from epoch ms")
    func fields() {
        #expect(RecordText.field(nil) == "-" && RecordText.field("") == "-")
        #expect(RecordText.field("a\u{1B}[31mb") == TerminalText.sanitize("a\u{1B}[31mb", maxScalars: 40))
        #expect(RecordText.list(["a", "b"]) == "a,b" && RecordText.list([]) == "-")
        #expect(RecordText.shortId("0123456789abcdef") == "0123456789ab…")
        #expect(RecordText.shortId("short") == "short")
        #expect(RecordText.age(Int64(1_000), now: 1_000 + 720_000) == DurationText.describe(milliseconds: 720_000) + " ago")
        #expect(RecordText.age(Int64(2_000), now: 1_000) == "just now")
        #expect(RecordText.age(JSONValue.null, now: 1_000) == "-")
        #expect(TextColumns.label("name", width: 8) == "name    " && TextColumns.label("longlabel", width: 4) == "longlabel ")
    }

    @Test("table columns are as wide as their widest cell, two spaces apart, the header bold")
    func table() {
        let lines = RecordText.table(["ID", "NAME"], [["1", "alpha"], ["22", "b"]], style: TextStyle(enabled: false))
        #expect(lines == ["  ID  NAME", "  1   alpha", "  22  b"])
        #expect(RecordText.table(["A"], [], style: TextStyle(enabled: true)) == ["  \u{1B}[1mA\u{1B}[0m"])
    }
}

/// `-v` notes: only with -v, never with --quiet, sanitized.
@Suite("CommandContext.verboseNote")
struct VerboseNoteTests {
    func run(verbosity: Int, quiet: Bool = false) -> String {
        var globals = GlobalOptions()
        globals.verbosity = verbosity
        globals.quiet = quiet
        let (c, _, err) = context(globals: globals)
        let note: (String) -> Void = c.verboseNote
        note("domain evil\u{1B}[2J.")
        return err.value
    }

    @Test("written with -v, sanitized; dropped without it or with --quiet")
    func gated() {
        #expect(run(verbosity: 1) == "domain evil\\x1b[2J.\n")
        #expect(run(verbosity: 0) == "")
        #expect(run(verbosity: 2, quiet: true) == "")
    }
}

/// Typed option values: integers in a range and named choices, with the usage error each
/// command printed before.
@Suite("ParsedArguments values")
struct ParsedValueTests {
    enum Shade: String, CaseIterable { case light, dark, dim }
    static let root = CommandSpec(name: "tool", abstract: "A tool", subcommands: [
        CommandSpec(name: "use", abstract: "Uses values", options: [
            .value("port", "PORT", help: "A port."), .value("shade", "SHADE", help: "A shade."),
        ], runner: { _, _ in .success }),
    ])

    func parse(_ arguments: [String]) throws -> ParsedArguments {
        try ArgumentParser.parse(["use"] + arguments, root: Self.root)
    }

    @Test("an integer: nil when absent, the value in range, else 'is not' with the text sanitized")
    func integer() throws {
        #expect(try parse([]).integer("port", in: 1...65_535, isNot: "a port (1-65535)") == nil)
        #expect(try parse(["--port", "18789"]).integer("port", in: 1...65_535, isNot: "a port (1-65535)") == 18789)
        for bad in ["0", "65536", "x\u{1B}[2J", ""] {
            #expect(throws: UsageError("--port '\(TerminalText.sanitize(bad, maxScalars: 32))' is not a port (1-65535)")) {
                _ = try parse(["--port", bad]).integer("port", in: 1...65_535, isNot: "a port (1-65535)")
            }
        }
    }

    @Test("a choice: the default when absent, the case named, else 'unknown' with every case in the hint")
    func choice() throws {
        #expect(try parse([]).choice("shade", noun: "shade", default: Shade.dark) == .dark)
        #expect(try parse(["--shade", "dim"]).choice("shade", noun: "shade", default: Shade.dark) == .dim)
        #expect(throws: UsageError("unknown shade 'pink'", hint: "use light, dark or dim")) {
            _ = try parse(["--shade", "pink"]).choice("shade", noun: "shade", default: Shade.dark)
        }
    }
}

/// A library's text roles painted in the style's colours.
@Suite("TextStyle.paint")
struct TextStylePaintTests {
    @Test("each role its SGR colour with colour on, the text itself with colour off")
    func roles() {
        let on = TextStyle(enabled: true)
        let expected: [TextRole: String] = [.bold: "1", .good: "32", .bad: "31", .warning: "33", .dim: "2"]
        for role in TextRole.allCases {
            #expect(on.paint(role, "x") == "\u{1B}[\(expected[role] ?? "?")mx\u{1B}[0m", "\(role)")
            #expect(TextStyle(enabled: false).paint(role, "x") == "x")
        }
    }
}

/// Text from standard input, with a prompt for a person at a terminal.
@Suite("CommandContext.readText")
struct ReadTextTests {
    @Test("the prompt only at a terminal; UTF-8 text, nil for other bytes, cut at the limit")
    func prompts() throws {
        let (piped, _, pipedErr) = context(stdin: Array("code\n".utf8))
        #expect(try piped.readText(prompting: "Paste:", limit: 64) == "code\n")
        #expect(pipedErr.value == "")
        let (typed, _, typedErr) = context(stdin: Array("abcdef".utf8), stdinIsTTY: true)
        #expect(try typed.readText(prompting: "Paste:", limit: 3) == "abc")
        #expect(typedErr.value == "Paste:\n")
        #expect(try context(stdin: [0xFF, 0xFE]).0.readText(prompting: "Paste:", limit: 64) == nil)
    }
}
