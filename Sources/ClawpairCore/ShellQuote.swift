/// Quoting for shell commands printed as advice ("run: chmod 600 '/path with spaces'").
public enum ShellQuote {
    /// `text` as one POSIX shell word: unchanged when it is plain (letters, digits and
    /// `/._-+:@%=,`), else single-quoted with each `'` written as `'\''`.
    public static func quote(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                || ($0.value >= 0x61 && $0.value <= 0x7A) || "/._-+:@%=,".unicodeScalars.contains($0)
        }
        if plain { return text }
        var out = "'"
        for c in text { out += c == "'" ? "'\\''" : String(c) }
        return out + "'"
    }
}
