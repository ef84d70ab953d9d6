// The name avahi-daemon's Bonjour-compat layer moves to when a name is taken. On a conflict with
// another host during probing it renames by itself (avahi-compat-libdns_sd/compat.c,
// AVAHI_ENTRY_GROUP_COLLISION → avahi_alternative_service_name); when the name is already
// registered on this daemon (by avahi-publish, another advertiser, a second `clawpair advertise`)
// DNSServiceRegister fails with kDNSServiceErr_NameConflict instead, and the advertiser renames
// with the same rule (avahi-common/alternative.c), so both cases end on the name Avahi's own
// rename would choose.

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
