import ClawpairCore

extension CommandContext {
    /// A command's result: under `--json` the document `json` (see ``printJSON(_:)``), else
    /// `text` written to standard output as it is (each line already ending in a newline). Only
    /// the one printed is built.
    public func output(json: @autoclosure () -> JSONValue, text: @autoclosure () -> String) {
        if globals.json { printJSON(json()) } else { stdout.write(text()) }
    }
}
