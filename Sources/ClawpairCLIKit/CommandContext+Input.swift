extension CommandContext {
    /// Reads standard input (at most `limit` bytes) as UTF-8 text, first telling a person at a
    /// terminal `prompt` on stderr (e.g. `Paste the setup code, then press Ctrl-D:`; not with
    /// `-q`). Nil when the bytes are not UTF-8.
    public func readText(prompting prompt: String, limit: Int) throws -> String? {
        if stdinIsTTY { note(prompt) }
        return String(validating: try readStandardInput(limit), as: UTF8.self)
    }
}
