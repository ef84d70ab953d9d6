// RFC 6762 timing and addresses, in one place.

/// Multicast DNS constants (RFC 6762).
public enum MDNSTiming {
    /// The mDNS port (§1).
    public static let port: UInt16 = 5353
    /// The IPv4 group 224.0.0.251 (§3).
    public static let ipv4Group: [UInt8] = [224, 0, 0, 251]
    /// The IPv6 group ff02::fb (§3).
    public static let ipv6Group: [UInt8] = [0xFF, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFB]
    /// The first continuous query interval; each later one doubles (§5.2).
    public static let firstQueryInterval: Duration = .seconds(1)
    /// The longest interval between continuous queries (§5.2).
    public static let maxQueryInterval: Duration = .seconds(3600)
    /// How long a record stays after a goodbye (TTL 0), or after a cache-flush replaced it (§10.1, §10.2).
    public static let goodbyeGrace: Duration = .seconds(1)
    /// A known answer is listed in a query only while more than half its TTL remains (§7.1).
    public static let knownAnswerFraction = 0.5
    /// Interval between follow-up queries for an instance's SRV/TXT or a host's addresses that
    /// have not arrived yet.
    public static let resolveRetryInterval: Duration = .milliseconds(500)
    /// The largest mDNS message accepted (§17: 9000 bytes incl. headers).
    public static let maxMessageBytes = 9000
}
