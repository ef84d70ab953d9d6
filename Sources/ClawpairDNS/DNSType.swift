// Type, class, opcode and response-code numbers (IANA "Domain Name System (DNS) Parameters").

/// A resource-record TYPE or question QTYPE (RFC 1035 §3.2.2, §3.2.3).
public struct DNSType: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The raw value, as on the wire.
    public let rawValue: UInt16
    /// The value with this raw value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// The type with this number.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// IPv4 address (RFC 1035).
    public static let a = DNSType(1)
    /// Authoritative name server (RFC 1035).
    public static let ns = DNSType(2)
    /// Canonical name (RFC 1035).
    public static let cname = DNSType(5)
    /// Start of authority (RFC 1035).
    public static let soa = DNSType(6)
    /// Domain name pointer; DNS-SD service enumeration (RFC 1035, RFC 6763 §4).
    public static let ptr = DNSType(12)
    /// Mail exchange (RFC 1035).
    public static let mx = DNSType(15)
    /// Text strings; DNS-SD key/value pairs (RFC 1035, RFC 6763 §6).
    public static let txt = DNSType(16)
    /// IPv6 address (RFC 3596).
    public static let aaaa = DNSType(28)
    /// Service location (RFC 2782).
    public static let srv = DNSType(33)
    /// EDNS(0) pseudo-record (RFC 6891).
    public static let opt = DNSType(41)
    /// Next secure record; mDNS negative responses (RFC 4034, RFC 6762 §6.1).
    public static let nsec = DNSType(47)
    /// QTYPE `*`: all records (RFC 1035 §3.2.3).
    public static let any = DNSType(255)

    private static let mnemonics: [UInt16: String] = [
        1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA", 33: "SRV",
        41: "OPT", 47: "NSEC", 255: "ANY",
    ]

    /// The mnemonic (`SRV`), or `TYPE<n>` for types without one (RFC 3597 §5).
    public var description: String { Self.mnemonics[rawValue] ?? "TYPE\(rawValue)" }

    /// Parses a mnemonic (any case) or `TYPE<n>`.
    public init?(mnemonic text: String) {
        let upper = text.uppercased()
        if let (value, _) = Self.mnemonics.first(where: { $0.value == upper }) {
            self.init(value)
        } else if upper.hasPrefix("TYPE"), let value = UInt16(upper.dropFirst(4)) {
            self.init(value)
        } else {
            return nil
        }
    }

    /// Ordered by number.
    public static func < (lhs: DNSType, rhs: DNSType) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A CLASS or QCLASS value, without the mDNS top bit (RFC 1035 §3.2.4; RFC 6762 §18.12, §18.13
/// give the top bit its own meaning, carried separately as `unicastResponse` or `cacheFlush`).
public struct DNSClass: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The raw value, as on the wire.
    public let rawValue: UInt16
    /// Keeps the low 15 bits of `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue & 0x7FFF }
    /// The value with this raw value.
    public init(_ rawValue: UInt16) { self.init(rawValue: rawValue) }

    /// The Internet.
    public static let `in` = DNSClass(1)
    /// `NONE` (RFC 2136 §2.4).
    public static let none = DNSClass(254)
    /// QCLASS `*` (RFC 1035 §3.2.5).
    public static let any = DNSClass(255)

    /// `IN`, `NONE`, `ANY`, or `CLASS<n>` (RFC 3597 §5).
    public var description: String {
        switch rawValue {
        case 1: return "IN"
        case 254: return "NONE"
        case 255: return "ANY"
        default: return "CLASS\(rawValue)"
        }
    }
}

/// The OPCODE field of the header (RFC 1035 §4.1.1).
public struct DNSOpcode: RawRepresentable, Sendable, Hashable {
    /// The raw value, as on the wire.
    public let rawValue: UInt8
    /// Keeps the low 4 bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }
    /// A standard query.
    public static let query = DNSOpcode(rawValue: 0)
    /// A DNS UPDATE (RFC 2136).
    public static let update = DNSOpcode(rawValue: 5)
}

/// The 4-bit RCODE of the header (RFC 1035 §4.1.1; EDNS extends it, RFC 6891 §6.1.3).
public struct DNSResponseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The raw value, as on the wire.
    public let rawValue: UInt8
    /// Keeps the low 4 bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }
    /// NOERROR (0).
    public static let noError = DNSResponseCode(rawValue: 0)
    /// FORMERR (1): the server could not read the query.
    public static let formatError = DNSResponseCode(rawValue: 1)
    /// SERVFAIL (2): the server failed.
    public static let serverFailure = DNSResponseCode(rawValue: 2)
    /// NXDOMAIN (3): the name does not exist.
    public static let nameError = DNSResponseCode(rawValue: 3)
    /// NOTIMP (4): the server does not do that kind of query.
    public static let notImplemented = DNSResponseCode(rawValue: 4)
    /// REFUSED (5): the server will not answer.
    public static let refused = DNSResponseCode(rawValue: 5)

    /// `NOERROR`, `NXDOMAIN`, ... or `RCODE<n>`.
    public var description: String {
        switch rawValue {
        case 0: return "NOERROR"
        case 1: return "FORMERR"
        case 2: return "SERVFAIL"
        case 3: return "NXDOMAIN"
        case 4: return "NOTIMP"
        case 5: return "REFUSED"
        default: return "RCODE\(rawValue)"
        }
    }
}
