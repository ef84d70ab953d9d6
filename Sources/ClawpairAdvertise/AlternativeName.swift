// The name the advertiser moves to when a name is taken: Avahi's own rule
// (avahi-common/alternative.c, avahi_alternative_service_name, which avahi-daemon's Bonjour-compat
// layer and its examples use after AVAHI_ENTRY_GROUP_COLLISION). The entry-group registrar
// reports every collision (on this daemon at add time, or with another host while probing or
// later) and the advertiser renames with this rule, reporting each rename, up to its limit.

/// Avahi's rule for the next service name after a conflict.
public enum AlternativeServiceName {
    /// A DNS label's limit in bytes.
    public static let maxBytes = 63

    /// `name #2` for a name without a counter; `name #N+1` for one ending in ` #N` (N decimal,
    /// no leading zero); the base is cut (on a UTF-8 boundary) so the result fits 63 bytes.
    public static func next(after name: String) -> String {
        let bytes = Array(name.utf8)
        var base = bytes
        var counter = 1
        if let mark = bytes.indices.dropLast().last(where: { bytes[$0] == 0x20 && bytes[$0 + 1] == 0x23 }) {
            let digits = bytes[(mark + 2)...]
            if !digits.isEmpty, digits.first != 0x30, digits.count < 10, digits.allSatisfy({ (0x30...0x39).contains($0) }),
               let value = Int(String(decoding: digits, as: UTF8.self)) {
                base = Array(bytes[..<mark])
                counter = value
            }
        }
        let suffix = " #\(counter + 1)"
        return truncated(base, maxBytes: maxBytes - suffix.utf8.count) + suffix
    }

    static func truncated(_ text: [UInt8], maxBytes: Int) -> String {
        var bytes = Array(text.prefix(max(0, maxBytes)))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
