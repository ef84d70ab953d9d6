import ClawpairCore

extension CommandContext {
    /// A command's result: under `--json` the document `json` (see ``printJSON(_:)``), else
    /// `text` written to standard output as it is (each line already ending in a newline). Only
    /// the one printed is built.
    public func output(json: @autoclosure () -> JSONValue, text: @autoclosure () -> String) {
        if globals.json { printJSON(json()) } else { stdout.write(text()) }
    }

    /// Warns that `what` (e.g. `this setup code`), a secret, was given on the command line, where
    /// other users can see it, and names `command`, which reads it from standard input instead.
    public func warnOnCommandLine(_ what: String, instead command: String) {
        warn("\(what) was given on the command line, where other users can see it (ps, shell history); "
             + "pipe it in instead: \(command)")
    }
}
