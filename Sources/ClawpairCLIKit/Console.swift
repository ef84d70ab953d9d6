#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Where text goes. The real process writes to file descriptors; tests capture.
public protocol TextSink: Sendable {
    func write(_ text: String)
}

/// Writes straight to a file descriptor (retrying short writes and EINTR).
public struct FileDescriptorSink: TextSink {
    public let fd: Int32
    public init(fd: Int32) { self.fd = fd }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // EPIPE and friends: the reader went away; nothing useful to do.
                }
                offset += written
            }
        }
    }
}

/// ANSI styling that is a no-op when colour is off.
public struct TextStyle: Sendable {
    /// Whether escape sequences are emitted.
    public let enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    private func wrap(_ code: String, _ text: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
    public func bold(_ text: String) -> String { wrap("1", text) }
    public func dim(_ text: String) -> String { wrap("2", text) }
    public func red(_ text: String) -> String { wrap("31", text) }
    public func green(_ text: String) -> String { wrap("32", text) }
    public func yellow(_ text: String) -> String { wrap("33", text) }
    public func cyan(_ text: String) -> String { wrap("36", text) }

    /// Whether to colour a stream: never with `--no-color`, a non-empty `NO_COLOR`
    /// (no-color.org), `TERM=dumb`, or when the stream is not a terminal.
    public static func colorEnabled(noColorFlag: Bool, environment: [String: String], isTTY: Bool) -> Bool {
        if noColorFlag { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isTTY
    }
}

/// Everything a command may touch of its process: output streams, terminal facts, the
/// environment, the clock and the global options.
public struct CommandContext: Sendable {
    public let stdout: any TextSink
    public let stderr: any TextSink
    public let stdoutIsTTY: Bool
    public let stderrIsTTY: Bool
    public let stdinIsTTY: Bool
    public let environment: [String: String]
    public let globals: GlobalOptions
    /// Styling for stdout and stderr, already switched off where colour is not wanted.
    public let style: TextStyle
    public let errorStyle: TextStyle
    /// The current time in ms since the epoch (`CLAWPAIR_NOW_MS` pins it, for tests).
    public let nowMs: Int64
    /// Reads standard input whole, at most `limit` bytes.
    public let readStandardInput: @Sendable (_ limit: Int) throws -> [UInt8]
    /// What has been printed as JSON (for ``CommandLineTool``'s error envelope).
    public let jsonOutput: JSONOutputRecord

    public init(stdout: any TextSink, stderr: any TextSink, stdoutIsTTY: Bool, stderrIsTTY: Bool,
                stdinIsTTY: Bool, environment: [String: String], globals: GlobalOptions, nowMs: Int64,
                readStandardInput: @escaping @Sendable (Int) throws -> [UInt8],
                jsonOutput: JSONOutputRecord = JSONOutputRecord()) {
        self.jsonOutput = jsonOutput
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutIsTTY = stdoutIsTTY
        self.stderrIsTTY = stderrIsTTY
        self.stdinIsTTY = stdinIsTTY
        self.environment = environment
        self.globals = globals
        self.nowMs = nowMs
        self.readStandardInput = readStandardInput
        self.style = TextStyle(enabled: TextStyle.colorEnabled(noColorFlag: globals.noColor,
                                                               environment: environment, isTTY: stdoutIsTTY))
        self.errorStyle = TextStyle(enabled: TextStyle.colorEnabled(noColorFlag: globals.noColor,
                                                                    environment: environment, isTTY: stderrIsTTY))
    }

    /// The context of the running process: fds 0/1/2, its environment and clock.
    public static func process(globals: GlobalOptions) -> CommandContext {
        let environment = ProcessEnvironment.current()
        let now = environment["CLAWPAIR_NOW_MS"].flatMap { Int64($0) } ?? WallClock.nowMs()
        return CommandContext(
            stdout: FileDescriptorSink(fd: 1), stderr: FileDescriptorSink(fd: 2),
            stdoutIsTTY: isatty(1) == 1, stderrIsTTY: isatty(2) == 1, stdinIsTTY: isatty(0) == 1,
            environment: environment, globals: globals, nowMs: now,
            readStandardInput: { limit in
                try FileIO.read(fd: 0, limit: limit, name: "standard input")
            })
    }

    /// Writes a line to stdout, terminal-safe (``TerminalText/sanitizeOutput(_:)``: the one place
    /// where text from gateways, files and peers reaches the terminal; only clawpair's colours,
    /// newlines and tabs pass as they are).
    public func print(_ line: String) { stdout.write(TerminalText.sanitizeOutput(line) + "\n") }

    /// Writes a line to stderr unless `--quiet`, terminal-safe like ``print(_:)``.
    public func note(_ line: String) {
        if !globals.quiet { stderr.write(TerminalText.sanitizeOutput(line) + "\n") }
    }

    /// Writes a warning to stderr (even with `--quiet`: warnings are about safety).
    public func warn(_ message: String) {
        stderr.write(errorStyle.yellow("warning:") + " \(TerminalText.sanitize(message, maxScalars: 2048))\n")
    }

    /// Writes an error and its hint to stderr. Messages may quote untrusted input, so
    /// they are sanitized here, once, for every command.
    public func report(_ error: any ClawpairError) {
        let message = TerminalText.sanitize(error.message, maxScalars: 2048)
        stderr.write(errorStyle.red("error:") + " \(message)\n")
        if let hint = error.hint {
            stderr.write(errorStyle.dim("hint:") + " \(TerminalText.sanitize(hint, maxScalars: 2048))\n")
        }
    }

    /// Writes a command's JSON document to stdout, pretty-printed, with a final newline;
    /// terminal-safe (DEL, C1 and bidi controls escaped as `\u`, the value unchanged). An object
    /// without an `ok` member gets `"ok": true` first (``JSONEnvelope/success(_:)``).
    public func printJSON(_ value: JSONValue) {
        jsonOutput.recordDocument()
        stdout.write(JSONEnvelope.success(value).pretty(terminalSafe: true) + "\n")
    }

    /// Prints `value` as one compact, terminal-safe line: for streams of JSON objects
    /// (`--watch --json`, `advertise --json`), one per event, each as given.
    public func printJSONLine(_ value: JSONValue) {
        jsonOutput.recordLine()
        stdout.write(value.compact(terminalSafe: true) + "\n")
    }
}

/// The process environment as a dictionary (no Foundation).
public enum ProcessEnvironment {
    /// Every `NAME=value` entry of `environ`, split at the first `=` byte (invalid UTF-8 is
    /// replaced with U+FFFD); a later duplicate name wins. Built once per command, so it works on
    /// bytes: finding `=` by `Character` ran grapheme breaking over every variable, and with the
    /// dictionary's regrowth that was a third of the instructions of `clawpair --version`.
    public static func current() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var result: [String: String] = [:]
        result.reserveCapacity(count)
        for index in 0..<count {
            guard let entry = environ[index] else { break }
            let bytes = UnsafeRawBufferPointer(start: entry, count: strlen(entry))
            guard let eq = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            result[String(decoding: bytes[..<eq], as: UTF8.self)] = String(decoding: bytes[(eq + 1)...], as: UTF8.self)
        }
        return result
    }
}
