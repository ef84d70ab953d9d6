import ClawpairCore

extension CommandContext {
    /// Writes a `-v` diagnostic to stderr: nothing without `-v` (or with `--quiet`). The line is
    /// sanitized, as such notes carry domains, paths and network answers; pass the method itself
    /// where a library takes a `note` closure (`browser.scan(note: context.verboseNote)`).
    public func verboseNote(_ line: String) {
        if globals.verbosity > 0 { note(TerminalText.sanitize(line, maxScalars: TerminalText.defaultMaxScalars)) }
    }
}
