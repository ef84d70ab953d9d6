// Record bodies (RDATA), one case per modelled type; everything else is kept as raw bytes.
//
// Checklist, adding a record type:
//  1. Add its number to `DNSType` (with the RFC) and a case here (a struct if it has more than
//     one field), plus its `type`.
//  2. Read it in `unpack(type:from:)`: inside the RDLENGTH window, each field named in the
//     error context ("SOA serial"), names through `reader.name()` (compression allowed on read).
//  3. Write it in `pack(into:compression:)`: say whether its names may be compressed
//     (RFC 3597 §4: only the RFC 1035 types in unicast DNS; RFC 6762 §18.14 adds SRV and NSEC
//     in mDNS), and check lengths that can overflow their field.
//  4. Give it a presentation form in `description`, a generator case in the round-trip test
//     (Tests/ClawpairDNSTests/RoundTripTests.swift) and bad-input cases.

/// The body of an SRV record (RFC 2782).
public struct SRVData: Sendable, Hashable {
    /// SRV priority: lower is tried first.
    public var priority: UInt16
    /// SRV weight among targets of equal priority.
    public var weight: UInt16
    /// The service's port.
    public var port: UInt16
    /// The host name; `.` means "service not available here".
    public var target: DNSName

    /// SRV data for `target`:`port`.
    public init(priority: UInt16 = 0, weight: UInt16 = 0, port: UInt16, target: DNSName) {
        self.priority = priority
        self.weight = weight
        self.port = port
        self.target = target
    }
}

/// The body of an SOA record (RFC 1035 §3.3.13).
public struct SOAData: Sendable, Hashable {
    /// SOA MNAME: the zone's primary server.
    public var primaryServer: DNSName
    /// SOA RNAME: the mailbox of the person responsible.
    public var responsible: DNSName
    /// SOA serial number.
    public var serial: UInt32
    /// SOA refresh interval, in seconds.
    public var refresh: UInt32
    /// SOA retry interval, in seconds.
    public var retry: UInt32
    /// SOA expire limit, in seconds.
    public var expire: UInt32
    /// SOA minimum: the negative-caching TTL, in seconds.
    public var minimum: UInt32

    /// SOA data with these fields.
    public init(primaryServer: DNSName, responsible: DNSName, serial: UInt32, refresh: UInt32, retry: UInt32,
                expire: UInt32, minimum: UInt32) {
        self.primaryServer = primaryServer
        self.responsible = responsible
        self.serial = serial
        self.refresh = refresh
        self.retry = retry
        self.expire = expire
        self.minimum = minimum
    }
}

/// The body of an MX record (RFC 1035 §3.3.9).
public struct MXData: Sendable, Hashable {
    /// MX preference: lower is preferred.
    public var preference: UInt16
    /// The mail exchanger.
    public var exchange: DNSName
    /// MX data.
    public init(preference: UInt16, exchange: DNSName) {
        self.preference = preference
        self.exchange = exchange
    }
}

/// The body of an NSEC record (RFC 4034 §4): the next name and the set of types present.
/// mDNS uses it to say which types a name does not have (RFC 6762 §6.1).
public struct NSECData: Sendable, Hashable {
    /// The next owner name in the zone (mDNS uses its own name).
    public let nextDomain: DNSName
    /// The types, ascending, each once.
    public let types: [DNSType]

    /// Sorts and de-duplicates `types`.
    public init(nextDomain: DNSName, types: [DNSType]) {
        self.nextDomain = nextDomain
        self.types = Array(Set(types)).sorted()
    }
}

/// One EDNS(0) option (RFC 6891 §6.1.2).
public struct EDNSOption: Sendable, Hashable {
    /// The option code.
    public var code: UInt16
    /// The option's data, as on the wire.
    public var data: [UInt8]
    /// An option with this code and data.
    public init(code: UInt16, data: [UInt8]) {
        self.code = code
        self.data = data
    }
}

/// How names are compressed when a message is written.
public enum DNSCompression: Sendable {
    /// No compression at all.
    case none
    /// Owner names and the names in NS, CNAME, SOA, PTR and MX bodies (RFC 3597 §4; SRV targets
    /// and NSEC next names stay whole, RFC 2782, RFC 4034 §4.1.1).
    case unicast
    /// As `unicast`, plus SRV targets and NSEC next names (RFC 6762 §18.14).
    case multicast
}

/// A record body.
public enum DNSRecordData: Sendable, Hashable {
    case a(IPv4Address)
    case aaaa(IPv6Address)
    case ns(DNSName)
    case cname(DNSName)
    case ptr(DNSName)
    case soa(SOAData)
    case mx(MXData)
    /// Character-strings, raw bytes, each at most 255. An empty body reads as one empty string
    /// (RFC 6763 §6.1), and an empty list is written as one empty string.
    case txt([[UInt8]])
    case srv(SRVData)
    case nsec(NSECData)
    /// The options of an OPT pseudo-record; its UDP size, extended RCODE and flags live in the
    /// record's class and TTL (see ``DNSResourceRecord/edns``).
    case opt([EDNSOption])
    /// Any other type, body kept as raw bytes (RFC 3597). Written back as is.
    case unknown(type: DNSType, data: [UInt8])

    /// The record type this body belongs to.
    public var type: DNSType {
        switch self {
        case .a: return .a
        case .aaaa: return .aaaa
        case .ns: return .ns
        case .cname: return .cname
        case .ptr: return .ptr
        case .soa: return .soa
        case .mx: return .mx
        case .txt: return .txt
        case .srv: return .srv
        case .nsec: return .nsec
        case .opt: return .opt
        case let .unknown(type, _): return type
        }
    }

    /// Reads a body of `type` from `reader`, which is already windowed to RDLENGTH.
    static func unpack(type: DNSType, from reader: inout DNSReader) throws(DNSError) -> DNSRecordData {
        func field<T>(_ name: String, _ read: (inout DNSReader) throws(DNSError) -> T) throws(DNSError) -> T {
            do { return try read(&reader) } catch { throw error.within(name) }
        }
        switch type {
        case .a:
            let bytes = try field("A address") { r throws(DNSError) in try r.take(4) }
            return .a(IPv4Address(bytes: bytes)!)
        case .aaaa:
            let bytes = try field("AAAA address") { r throws(DNSError) in try r.take(16) }
            return .aaaa(IPv6Address(bytes: bytes)!)
        case .ns: return .ns(try field("NS name") { r throws(DNSError) in try r.name() })
        case .cname: return .cname(try field("CNAME name") { r throws(DNSError) in try r.name() })
        case .ptr: return .ptr(try field("PTR name") { r throws(DNSError) in try r.name() })
        case .soa:
            let mname = try field("SOA primary server") { r throws(DNSError) in try r.name() }
            let rname = try field("SOA responsible") { r throws(DNSError) in try r.name() }
            let serial = try field("SOA serial") { r throws(DNSError) in try r.u32() }
            let refresh = try field("SOA refresh") { r throws(DNSError) in try r.u32() }
            let retry = try field("SOA retry") { r throws(DNSError) in try r.u32() }
            let expire = try field("SOA expire") { r throws(DNSError) in try r.u32() }
            let minimum = try field("SOA minimum") { r throws(DNSError) in try r.u32() }
            return .soa(SOAData(primaryServer: mname, responsible: rname, serial: serial, refresh: refresh,
                                retry: retry, expire: expire, minimum: minimum))
        case .mx:
            let preference = try field("MX preference") { r throws(DNSError) in try r.u16() }
            let exchange = try field("MX exchange") { r throws(DNSError) in try r.name() }
            return .mx(MXData(preference: preference, exchange: exchange))
        case .txt:
            var strings: [[UInt8]] = []
            while reader.remaining > 0 {
                let index = strings.count + 1
                let string = try field("TXT string \(index)") { r throws(DNSError) in
                    let length = try r.u8()
                    return try r.take(Int(length))
                }
                strings.append(string)
            }
            return .txt(strings.isEmpty ? [[]] : strings)
        case .srv:
            let priority = try field("SRV priority") { r throws(DNSError) in try r.u16() }
            let weight = try field("SRV weight") { r throws(DNSError) in try r.u16() }
            let port = try field("SRV port") { r throws(DNSError) in try r.u16() }
            let target = try field("SRV target") { r throws(DNSError) in try r.name() }
            return .srv(SRVData(priority: priority, weight: weight, port: port, target: target))
        case .nsec:
            let next = try field("NSEC next domain") { r throws(DNSError) in try r.name() }
            let types = try field("NSEC type bitmap") { r throws(DNSError) in try unpackBitmap(&r) }
            return .nsec(NSECData(nextDomain: next, types: types))
        case .opt:
            var options: [EDNSOption] = []
            while reader.remaining > 0 {
                let index = options.count + 1
                let option = try field("OPT option \(index)") { r throws(DNSError) in
                    let code = try r.u16()
                    let length = try r.u16()
                    return EDNSOption(code: code, data: try r.take(Int(length)))
                }
                options.append(option)
            }
            return .opt(options)
        default:
            return .unknown(type: type, data: try reader.take(reader.remaining))
        }
    }

    /// Reads RFC 4034 §4.1.2 window blocks up to the end of the body: window numbers strictly
    /// ascending, each 1–32 octets. Trailing zero octets (which RFC 4034 says to omit) are
    /// tolerated.
    private static func unpackBitmap(_ reader: inout DNSReader) throws(DNSError) -> [DNSType] {
        var types: [DNSType] = []
        var lastWindow = -1
        while reader.remaining > 0 {
            let at = reader.offset
            let window = Int(try reader.u8())
            let length = Int(try reader.u8())
            // An empty window says nothing. RFC 4034 forbids it, but python-zeroconf sends one
            // before the real window 0 of the NSEC it adds to IPv4-only answers; be liberal.
            if length == 0 { continue }
            guard window > lastWindow else {
                throw DNSError(.invalidTypeBitmap("window \(window) after window \(lastWindow)"), offset: at)
            }
            guard length <= DNSLimits.maxBitmapWindowLength else {
                throw DNSError(.invalidTypeBitmap("window \(window) has length \(length)"), offset: at + 1)
            }
            lastWindow = window
            let bits = try reader.take(length)
            for (index, byte) in bits.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                    types.append(DNSType(UInt16(window << 8 | index << 3 | bit)))
                }
            }
        }
        return types
    }

    /// Writes the body (without RDLENGTH).
    func pack(into writer: inout DNSWriter, compression: DNSCompression) throws(DNSError) {
        let rfc1035 = compression != .none
        let multicast = compression == .multicast
        switch self {
        case let .a(address): writer.append(address.bytes)
        case let .aaaa(address): writer.append(address.bytes)
        case let .ns(name), let .cname(name), let .ptr(name): writer.name(name, compress: rfc1035)
        case let .soa(soa):
            writer.name(soa.primaryServer, compress: rfc1035)
            writer.name(soa.responsible, compress: rfc1035)
            for value in [soa.serial, soa.refresh, soa.retry, soa.expire, soa.minimum] { writer.u32(value) }
        case let .mx(mx):
            writer.u16(mx.preference)
            writer.name(mx.exchange, compress: rfc1035)
        case let .txt(strings):
            for (index, string) in (strings.isEmpty ? [[]] : strings).enumerated() {
                guard string.count <= DNSLimits.maxCharacterString else {
                    throw DNSError(.stringTooLong(length: string.count), context: ["TXT string \(index + 1)"])
                }
                writer.u8(UInt8(string.count))
                writer.append(string)
            }
        case let .srv(srv):
            writer.u16(srv.priority)
            writer.u16(srv.weight)
            writer.u16(srv.port)
            writer.name(srv.target, compress: multicast)
        case let .nsec(nsec):
            writer.name(nsec.nextDomain, compress: multicast)
            var windows: [Int: [UInt8]] = [:]
            for type in nsec.types {
                let window = Int(type.rawValue >> 8)
                let low = Int(type.rawValue & 0xFF)
                var bits = windows[window] ?? []
                if bits.count <= low >> 3 { bits += Array(repeating: 0, count: (low >> 3) + 1 - bits.count) }
                bits[low >> 3] |= 0x80 >> UInt8(low & 7)
                windows[window] = bits
            }
            for window in windows.keys.sorted() {
                let bits = windows[window]!
                writer.u8(UInt8(window))
                writer.u8(UInt8(bits.count))
                writer.append(bits)
            }
        case let .opt(options):
            for (index, option) in options.enumerated() {
                guard option.data.count <= 0xFFFF else {
                    throw DNSError(.dataTooLong(length: option.data.count), context: ["OPT option \(index + 1)"])
                }
                writer.u16(option.code)
                writer.u16(UInt16(option.data.count))
                writer.append(option.data)
            }
        case let .unknown(_, data): writer.append(data)
        }
    }
}
