extension TXTPair {
    /// A `KEY=VALUE` entry as a program or a user writes one: split
    /// at the first `=`, so the value may hold `=` or be empty. Nil when there is no `=` or the
    /// key is empty (DNS-SD, RFC 6763 §6.4: a TXT string starting with `=` has no key).
    public init?(entry: String) {
        guard let eq = entry.firstIndex(of: "="), eq != entry.startIndex else { return nil }
        self.init(String(entry[..<eq]), String(entry[entry.index(after: eq)...]))
    }
}
