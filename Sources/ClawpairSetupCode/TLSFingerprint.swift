// TLS certificate fingerprint normalization (`setup-codes.md` §6; TS `normalizeTlsFingerprint`).

/// SHA-256 certificate fingerprints as setup codes and TXT records carry them.
public enum TLSFingerprint {
    /// Normalizes a fingerprint to 64 lowercase hex digits, or `nil` when it is not one.
    ///
    /// Trims whitespace, removes one leading `sha256:` (any case), then accepts exactly 64 hex
    /// digits or exactly 32 colon-separated hex pairs. `sha-256:`, partial colon forms and any
    /// other length are invalid.
    public static func normalize(_ text: String) -> String? {
        guard text.utf8.count <= 256 else { return nil }
        var bytes = Array(TextRules.jsTrim(text).utf8)
        let prefix = Array("sha256:".utf8)
        if bytes.count >= prefix.count && bytes[0..<prefix.count].map(TextRules.lowerASCII) == prefix {
            bytes.removeFirst(prefix.count)
        }
        var hex: [UInt8] = []
        if bytes.count == 64 {
            hex = bytes
        } else if bytes.count == 95 {
            for (i, c) in bytes.enumerated() {
                if i % 3 == 2 {
                    guard c == UInt8(ascii: ":") else { return nil }
                } else {
                    hex.append(c)
                }
            }
        } else {
            return nil
        }
        guard hex.count == 64, hex.allSatisfy({ TextRules.hexValue($0) != nil }) else { return nil }
        return String(decoding: hex.map(TextRules.lowerASCII), as: UTF8.self)
    }
}
