import ClawpairCore

extension ParsedArguments {
    /// The whole number `--option` gives, when it is within `range`; `fallback` when the option
    /// is not given. Another value is a usage error `--option must be a whole number from A to B,
    /// not 'TEXT'` (the text sanitized and cut to 32 characters).
    public func wholeNumber(_ option: String, in range: ClosedRange<Int>, default fallback: Int) throws(UsageError) -> Int {
        guard let text = value(option) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), "
                             + "not '\(TerminalText.sanitize(text, maxScalars: 32))'")
        }
        return number
    }

    /// The case of `Choice` whose raw value is `--option`'s value after `normalize` (e.g.
    /// `{ $0.lowercased() }` for names accepted in any case); nil when the option is not given.
    /// Another name is a usage error `unknown NOUN 'TEXT'` with `hint`, by default `use a, b or c`
    /// listing every case.
    public func choice<Choice: RawRepresentable & CaseIterable>(_ option: String, noun: String,
                                                               normalizing normalize: (String) -> String,
                                                               hint: String? = nil) throws(UsageError) -> Choice?
        where Choice.RawValue == String {
        guard let text = value(option) else { return nil }
        guard let choice = Choice(rawValue: normalize(text)) else {
            let names = Choice.allCases.map(\.rawValue)
            let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            throw UsageError("unknown \(noun) '\(TerminalText.sanitize(text, maxScalars: 32))'", hint: hint ?? "use \(list)")
        }
        return choice
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
