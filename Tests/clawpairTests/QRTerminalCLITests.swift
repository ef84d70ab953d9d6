import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair qr render` on a real terminal: standard output is a pseudo-terminal of a chosen
/// window size (Tests/Fixtures/pty_window.py), so the width check, the colours of the warning and
/// the refusal to print a PNG on a terminal run as they do for a user.
@Suite struct QRTerminalCLITests {
    /// T13 (128 bytes) is version 8, 49 modules: 53 columns in the terminal formats (margin 2).
    static let t13 = QRCLITests.t13
    static let now = QRCLITests.now
    static let columns = 53
    static func warning(_ width: Int, terminal: Int) -> String {
        "the QR code is \(width) columns wide but the terminal has \(terminal): widen the window, make the font smaller, "
            + "or write an image with -o pair.png\n"
    }

    struct Run {
        let status: Int
        let stdout: String
        let stderr: String
    }

    /// Runs `clawpair arguments…` with the setup code on standard input and standard output on a
    /// `columns`-wide terminal (standard error too with `stderrTTY`).
    func onTerminal(columns: Int, _ arguments: [String], stderrTTY: Bool = false,
                    environment: [String: String] = [:]) throws -> Run {
        let fixture = Harness.fixturesDirectory.appendingPathComponent("pty_window.py").path
        var env = ["PATH": "/usr/bin:/bin", "CLAWPAIR_NOW_MS": String(Self.now)]
        env.merge(environment) { _, new in new }
        let result = try ClawpairBinary.runProgram(
            Harness.python3,
            [fixture, "--columns", String(columns)] + (stderrTTY ? ["--stderr-tty"] : []) + ["--", ClawpairBinary.path] + arguments,
            stdin: Self.t13, environment: env)
        #expect(result.status == 0 && result.stderr.isEmpty, "pty_window.py: \(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                  "\(result)")
        return Run(status: try #require(object["status"] as? Int, "\(object)"),
                   stdout: try #require(object["stdout"] as? String), stderr: try #require(object["stderr"] as? String))
    }

    static func refusal(_ width: Int, terminal: Int) -> String {
        "error: the QR code is \(width) columns wide but the terminal has \(terminal): its lines would wrap and it would not scan\n"
            + "hint: write an image instead (clawpair qr render -o pair.png), widen the window or make the font smaller, "
            + "or pass --force to draw it anyway\n"
    }

    @Test("a terminal narrower than the code: nothing drawn, exit 1, the hint suggests -o pair.png; --force draws it with a warning",
          arguments: [("utf8", 40), ("utf8", columns - 1), ("ascii", 80), ("ansi", 52)])
    func narrowRefuses(format: String, terminal: Int) throws {
        // ascii draws two characters per module: 106 columns.
        let width = format == "ascii" ? 2 * Self.columns : Self.columns
        let refused = try onTerminal(columns: terminal, ["qr", "render", "-t", format, "-"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == Self.refusal(width, terminal: terminal), "\(refused.stderr.debugDescription)")
        let run = try onTerminal(columns: terminal, ["qr", "render", "--force", "-t", format, "-"])
        let piped = try ClawpairBinary.run(["qr", "render", "-t", format, "-"], stdin: Self.t13, nowMs: Self.now)
        #expect(run.status == 0)
        #expect(run.stderr == "warning: " + Self.warning(width, terminal: terminal), "\(run.stderr.debugDescription)")
        #expect(run.stdout == piped.stdout && !run.stdout.isEmpty)
        let json = try onTerminal(columns: terminal, ["qr", "render", "-t", format, "-", "--json"])
        #expect(json.status == 0 && json.stdout.hasPrefix("{\n  \"ok\": true"), "--json draws no terminal text: \(json.stdout)")
    }

    @Test("a terminal as wide as the code or wider gets no warning", arguments: [columns, 80, 200])
    func wideIsQuiet(terminal: Int) throws {
        let run = try onTerminal(columns: terminal, ["qr", "render", "-"])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr.debugDescription)")
        #expect(run.stdout.split(separator: "\n").first?.count == Self.columns)
    }

    @Test("--scale and --margin count: 2 × (49 + 2 × 4) = 114 columns do not fit in 100")
    func scaleCounts() throws {
        let run = try onTerminal(columns: 100, ["qr", "render", "--scale", "2", "--margin", "4", "-"])
        #expect(run.stderr == Self.refusal(114, terminal: 100), "\(run.stderr.debugDescription)")
        #expect(try onTerminal(columns: 114, ["qr", "render", "--scale", "2", "--margin", "4", "-"]).stderr.isEmpty)
    }

    @Test("the warning is yellow only when stderr is a terminal and colour is allowed (NO_COLOR, TERM=dumb, --no-color)")
    func warningColour() throws {
        let plain = "warning: " + Self.warning(Self.columns, terminal: 40)
        let yellow = "\u{1B}[33mwarning:\u{1B}[0m " + Self.warning(Self.columns, terminal: 40)
        #expect(try onTerminal(columns: 40, ["qr", "render", "--force", "-"], stderrTTY: true).stderr == yellow)
        #expect(try onTerminal(columns: 40, ["qr", "render", "--force", "-"], stderrTTY: true, environment: ["NO_COLOR": "1"]).stderr == plain)
        #expect(try onTerminal(columns: 40, ["qr", "render", "--force", "-"], stderrTTY: true, environment: ["TERM": "dumb"]).stderr == plain)
        #expect(try onTerminal(columns: 40, ["--no-color", "qr", "render", "--force", "-"], stderrTTY: true).stderr == plain)
    }

    @Test("no warning where there is no terminal width to check: -o FILE, svg, --json")
    func noTerminalDrawing() throws {
        let directory = try Scratch()
        let toFile = try onTerminal(columns: 20, ["qr", "render", "-q", "-t", "utf8", "-o", directory.path("code.txt"), "-"])
        #expect(toFile.status == 0 && toFile.stderr.isEmpty && toFile.stdout.isEmpty, "\(toFile)")
        let svg = try onTerminal(columns: 20, ["qr", "render", "-t", "svg", "-"])
        #expect(svg.status == 0 && svg.stderr.isEmpty && svg.stdout.hasPrefix("<svg "), "\(svg.stderr)")
        let json = try onTerminal(columns: 20, ["--json", "qr", "render", "-"])
        #expect(json.status == 0 && json.stderr.isEmpty && json.stdout.hasPrefix("{"), "\(json.stderr)")
    }

    @Test("qr scan on a terminal: control characters escaped, several images named; piped it is raw (QRCLITests)")
    func scanOnTerminal() throws {
        let directory = try Scratch()
        let evil = directory.path("evil.png"), plain = directory.path("plain.png")
        #expect(try Tools.run("/usr/bin/qrencode", ["-8", "-o", evil], stdin: Data("a\u{1B}[31mred\u{7}".utf8)).status == 0)
        #expect(try Tools.run("/usr/bin/qrencode", ["-o", plain, "second"]).status == 0)
        let one = try onTerminal(columns: 80, ["qr", "scan", evil])
        #expect(one.status == 0 && one.stdout.replacingOccurrences(of: "\r\n", with: "\n") == "a\\x1b[31mred\\x07\n", "\(one)")
        let two = try onTerminal(columns: 80, ["qr", "scan", evil, plain])
        #expect(two.stdout.replacingOccurrences(of: "\r\n", with: "\n") == "\(evil): a\\x1b[31mred\\x07\n\(plain): second\n", "\(two)")
    }

    @Test("png is refused when standard output is a terminal (exit 2), written with -o")
    func pngRefusedOnTerminal() throws {
        let run = try onTerminal(columns: 80, ["qr", "render", "-t", "png", "-"])
        #expect(run.status == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "error: refusing to write a PNG image to the terminal\n"
                + "hint: write it to a file with -o FILE.png, or redirect standard output\n", "\(run.stderr.debugDescription)")
    }
}
