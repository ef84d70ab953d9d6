import ClawpairCore

extension CommandContext {
    /// Reads standard input (at most `limit` bytes) as UTF-8 text, first telling a person at a
    /// terminal `prompt` on stderr (e.g. `Paste the setup code, then press Ctrl-D:`; not with
    /// `-q`). Nil when the bytes are not UTF-8.
    public func readText(prompting prompt: String, limit: Int) throws -> String? {
        if stdinIsTTY { note(prompt) }
        return String(validating: try readStandardInput(limit), as: UTF8.self)
    }
}

extension CommandContext {
    /// Reads standard input (at most `limit` bytes) as bytes, first telling a person at a
    /// terminal `prompt` on stderr (not with `-q`), without the trailing newlines (LF, CR) that
    /// `echo` and editors add.
    public func readBytes(prompting prompt: String, limit: Int) throws -> [UInt8] {
        if stdinIsTTY { note(prompt) }
        var bytes = try readStandardInput(limit)
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// The bytes of the file at `path` (``FileIO/read(path:limit:followSymlinks:)``: a regular
    /// file, at most `limit` bytes), or of standard input when `path` is `-`.
    public func readFile(_ path: String, limit: Int) throws -> [UInt8] {
        path == "-" ? try readStandardInput(limit) : try FileIO.read(path: path, limit: limit)
    }
}
