// Presentation (zone-file) text for records and messages: for logs, errors, tests and the
// `dig`-style cross-checks. Never parsed back; the wire form is the source of truth.

extension DNSRecordData: CustomStringConvertible {
    /// The body as in a zone file (`0 0 18789 studio.local.`, `"a=1" "b"`), or RFC 3597
    /// `\# <length> <hex>` for unknown types.
    public var description: String {
        switch self {
        case let .a(address): return address.description
        case let .aaaa(address): return address.description
        case let .ns(name), let .cname(name), let .ptr(name): return name.description
        case let .soa(soa):
            return "\(soa.primaryServer) \(soa.responsible) \(soa.serial) \(soa.refresh) \(soa.retry) \(soa.expire) \(soa.minimum)"
        case let .mx(mx): return "\(mx.preference) \(mx.exchange)"
        case let .txt(strings): return strings.map(Self.quoted).joined(separator: " ")
        case let .srv(srv): return "\(srv.priority) \(srv.weight) \(srv.port) \(srv.target)"
        case let .nsec(nsec): return ([nsec.nextDomain.description] + nsec.types.map(\.description)).joined(separator: " ")
        case let .opt(options):
            return options.map { "option \($0.code): \(Self.hex($0.data))" }.joined(separator: "; ")
        case let .unknown(_, data):
            return data.isEmpty ? "\\# 0" : "\\# \(data.count) \(Self.hex(data))"
        }
    }

    /// A character-string in double quotes: `"` and `\` backslash-escaped, bytes outside
    /// printable ASCII as `\DDD` (RFC 1035 §5.1).
    public static func quoted(_ string: [UInt8]) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in string {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0x20...0x7E:
                out.append(byte)
            default:
                out.append(UInt8(ascii: "\\"))
                out.append(48 + byte / 100)
                out.append(48 + (byte / 10) % 10)
                out.append(48 + byte % 10)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ data: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(data.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

extension DNSResourceRecord: CustomStringConvertible {
    /// `name TTL CLASS TYPE body`, with ` (cache-flush)` when that bit is set.
    public var description: String {
        if case .opt = data, let edns {
            return "OPT udp=\(edns.udpPayloadSize) version=\(edns.version) do=\(edns.dnssecOK ? 1 : 0) \(data)"
        }
        let flush = cacheFlush ? " (cache-flush)" : ""
        return "\(name) \(ttl) \(self.class) \(type) \(data)\(flush)"
    }
}

extension DNSQuestion: CustomStringConvertible {
    /// `name CLASS TYPE`, with ` (QU)` when a unicast response is asked for.
    public var description: String {
        "\(name) \(self.class) \(type)\(unicastResponse ? " (QU)" : "")"
    }
}

extension DNSMessage: CustomStringConvertible {
    /// A `dig`-like multi-line dump.
    public var description: String {
        var lines = ["id \(header.id) \(header.isResponse ? "response" : "query") \(header.responseCode)"
                     + (header.isAuthoritative ? " aa" : "") + (header.isTruncated ? " tc" : "")
                     + (header.recursionDesired ? " rd" : "") + (header.recursionAvailable ? " ra" : "")]
        for question in questions { lines.append("question: \(question)") }
        for record in answers { lines.append("answer: \(record)") }
        for record in authorities { lines.append("authority: \(record)") }
        for record in additionals { lines.append("additional: \(record)") }
        return lines.joined(separator: "\n")
    }
}
