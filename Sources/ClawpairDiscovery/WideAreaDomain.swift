// Wide-area (unicast) DNS-SD domains (discovery.md §4).

/// Normalizing and comparing the wide-area discovery domain.
public enum WideAreaDomain {
    /// The environment variable naming the domain when the config does not.
    public static let environmentVariable = "OPENCLAW_WIDE_AREA_DOMAIN"

    /// TS `normalizeWideAreaDomain`: trimmed; empty means none; a trailing dot is added
    /// (`"  openclaw.internal  "` → `openclaw.internal.`).
    public static func normalize(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let trimmed = Text.trim(raw)
        guard !trimmed.isEmpty else { return nil }
        return trimmed.hasSuffix(".") ? trimmed : trimmed + "."
    }

    /// The TS rule: the configured domain when one is set (even a blank one, which means
    /// none), else `OPENCLAW_WIDE_AREA_DOMAIN`, normalized.
    public static func resolve(config: String?, environment: [String: String]) -> String? {
        normalize(config ?? environment[environmentVariable])
    }

    /// The Swift apps' rule: only the environment variable, lowercased, with `local`/`local.`
    /// meaning none.
    public static func appleRule(environment: [String: String]) -> String? {
        guard let domain = normalize(environment[environmentVariable]).map({ $0.lowercased() }),
              domain != "local." else { return nil }
        return domain
    }

    /// Whether two domains are the same, ignoring ASCII case and a trailing dot.
    public static func same(_ a: String, _ b: String) -> Bool {
        func key(_ s: String) -> String {
            let lowered = Text.lowerASCII(Text.trim(s))
            return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
        }
        return key(a) == key(b)
    }

    /// Why a domain cannot be the origin of a zone file, or nil when it can: labels of 1–63
    /// ASCII letters, digits, `-` and `_` (no `-` at either end), at most 253 characters
    /// without the trailing dot, and not `local` (that is Multicast DNS, RFC 6762 §3).
    public static func problemAsZoneOrigin(_ domain: String) -> String? {
        var name = domain
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return "the domain is empty" }
        guard name.utf8.count <= 253 else { return "the domain is longer than 253 characters" }
        guard Text.lowerASCII(name) != "local" && !Text.hasSuffixIgnoringASCIICase(name, ".local") else {
            return "local. is the Multicast DNS domain; wide-area discovery needs a unicast domain such as openclaw.internal"
        }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            let bytes = Array(label.utf8)
            guard (1...63).contains(bytes.count) else { return "the domain has an empty or over-long label" }
            guard bytes.allSatisfy({ Text.isASCIIDigit($0) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == 45 || $0 == 95 }),
                  bytes.first != 45, bytes.last != 45 else {
                return "the label '\(label)' has characters other than letters, digits, '-' and '_'"
            }
        }
        return nil
    }
}
