import ClawpairCLIKit
import ClawpairCore
import Testing

/// Issue #25.4 and #25.16: the one place where text from gateways, files and the environment
/// reaches the terminal — a command's lines (`print`, `note`, `output`) — lets through only
/// clawpair's own colours, newlines and tabs.
@Suite("terminal output is sanitized where it is written")
struct OutputSanitizingTests {
    static let hostile = [
        "\u{1B}]0;pwned\u{07}",                 // OSC 0: window title
        "\u{1B}]52;c;cm0gLXJmIH4=\u{07}",        // OSC 52: clipboard write
        "\u{1B}[2J",                              // clear screen
        "\u{9B}31m",                              // C1 CSI
        "\u{202E}evil",                           // bidi override
        "a\rb",                                   // carriage return overwrites the line
    ]

    @Test("print, note and output escape every control a peer could send; clawpair's own SGR colours stay")
    func linesAreSanitized() {
        let (context, out, err) = Self.context()
        for text in Self.hostile {
            context.print("role: \(text)")
            context.note("scope: \(text)")
            context.output(json: .null, text: "token: \(text)\n")
        }
        for written in [out.value, err.value] {
            #expect(!written.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" || $0 == "\u{202E}" || $0 == "\r" },
                    "\(written.debugDescription)")
        }
        #expect(out.value.contains("role: \\x1b]0;pwned\\x07"))
        let style = TextStyle(enabled: true)
        let (colored, colorOut, _) = Self.context()
        colored.print(style.bold("name") + "\t" + style.red("down"))
        #expect(colorOut.value == "\u{1B}[1mname\u{1B}[0m\t\u{1B}[31mdown\u{1B}[0m\n")
    }

    @Test("sanitizeOutput keeps only SGR sequences: a cursor move or an unterminated escape is escaped")
    func onlySGRPasses() {
        #expect(TerminalText.sanitizeOutput("plain text\nnext") == "plain text\nnext")
        #expect(TerminalText.sanitizeOutput("\u{1B}[0;1;31mx\u{1B}[0m") == "\u{1B}[0;1;31mx\u{1B}[0m")
        #expect(TerminalText.sanitizeOutput("\u{1B}[10;5H") == "\\x1b[10;5H")
        #expect(TerminalText.sanitizeOutput("\u{1B}[") == "\\x1b[")
        #expect(TerminalText.sanitizeOutput("path /home/u/\u{1B}]0;x\u{07}") == "path /home/u/\\x1b]0;x\\x07")
    }

    static func context() -> (CommandContext, Captured, Captured) {
        let out = Captured(), err = Captured()
        let context = CommandContext(stdout: out, stderr: err, stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: false,
                                     environment: [:], globals: GlobalOptions(), nowMs: 0, readStandardInput: { _ in [] })
        return (context, out, err)
    }
}
