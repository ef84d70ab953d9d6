// Every bound the codec enforces, in one place, each with where it comes from.

/// The limits of the DNS wire format that the codec enforces when it reads and writes messages.
public enum DNSLimits {
    /// Largest message the codec reads or writes: the TCP length prefix and the IPv4/IPv6 UDP
    /// payload are 16-bit (RFC 1035 §4.2.2). Multicast DNS messages are smaller still
    /// (RFC 6762 §17: at most 9000 bytes), which callers may check for themselves.
    public static let maxMessageSize = 65_535

    /// The fixed header: ID, flags and four 16-bit section counts (RFC 1035 §4.1.1).
    public static let headerSize = 12

    /// Longest label: the top two bits of the length octet select the label type, leaving six
    /// bits of length (RFC 1035 §2.3.4, §4.1.4).
    public static let maxLabelLength = 63

    /// Longest name in wire form, length octets and the final root octet included
    /// (RFC 1035 §2.3.4, §3.1).
    public static let maxNameLength = 255

    /// Most compression pointers followed while reading one name. Every pointer must point
    /// before the place the decoder started reading the current run of labels, so loops are
    /// impossible anyway; the cap bounds the work. A conforming encoder that compresses at every
    /// label boundary needs at most one jump per label, and a 255-byte name has at most 127
    /// labels (RFC 1035 §4.1.4 allows a pointer to a prior pointer-terminated name).
    public static let maxPointerJumps = 127

    /// Highest offset a compression pointer can hold: 14 bits (RFC 1035 §4.1.4).
    public static let maxPointerOffset = 0x3FFF

    /// Longest character-string (one TXT string): its length is one octet (RFC 1035 §3.3).
    public static let maxCharacterString = 255

    /// Largest RDATA: RDLENGTH is 16-bit (RFC 1035 §4.1.3).
    public static let maxRecordDataLength = 65_535

    /// Most entries in one section: the counts are 16-bit (RFC 1035 §4.1.1).
    public static let maxSectionCount = 65_535

    /// The smallest question on the wire: a root name (1 octet), QTYPE and QCLASS.
    static let minQuestionSize = 5

    /// The smallest resource record on the wire: a root name (1 octet), TYPE, CLASS, TTL and
    /// RDLENGTH.
    static let minRecordSize = 11

    /// An NSEC type-bitmap window holds 1 to 32 octets (RFC 4034 §4.1.2).
    public static let maxBitmapWindowLength = 32
}
