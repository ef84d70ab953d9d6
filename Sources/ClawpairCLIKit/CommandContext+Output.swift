import ClawpairCore

extension CommandContext {
    /// A command's result: under `--json` the document `json` (see ``printJSON(_:)``), else
    /// `text` written to standard output, terminal-safe (each line already ending in a newline). Only
    /// the one printed is built.
    public func output(json: @autoclosure () -> JSONValue, text: @autoclosure () -> String) {
        if globals.json { printJSON(json()) } else { stdout.write(TerminalText.sanitizeOutput(text())) }
    }

    /// Warns that `what` (e.g. `this setup code`), a secret, was given on the command line, where
    /// other users can see it, and names `command`, which reads it from standard input instead.
    public func warnOnCommandLine(_ what: String, instead command: String) {
        warn("\(what) was given on the command line, where other users can see it (ps, shell history); "
             + "pipe it in instead: \(command)")
    }
}
extension CommandContext {
    /// Prints a command's one result: `json` under `--json`, else `lines` on stdout and `notes`
    /// on stderr (``note(_:)``, so not with `--quiet`). Returns ``ExitStatus/success``.
    @discardableResult
    public func printResult(_ json: @autoclosure () -> JSONValue, lines: @autoclosure () -> [String],
                            notes: [String] = []) -> ExitStatus {
        if globals.json {
            printJSON(json())
        } else {
            for line in lines() { print(line) }
            for line in notes { note(line) }
        }
        return .success
    }
}
