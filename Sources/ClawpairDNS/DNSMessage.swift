// DNS messages (RFC 1035 §4.1) with the Multicast DNS bits (RFC 6762 §18): read with
// `DNSMessage.unpack`, write with `pack`. Reading is strict about structure (every record body
// exactly fills its RDLENGTH, pointers go backwards, names and labels within limits) and never
// traps; section counts are checked against the bytes left before anything is allocated.

/// The fixed header, minus the section counts (which come from the sections themselves).
public struct DNSHeader: Sendable, Hashable {
    /// The query ID (0 in mDNS multicast messages, RFC 6762 §18.1).
    public var id: UInt16
    /// The flags word as on the wire: QR, OPCODE, AA, TC, RD, RA, Z, AD, CD, RCODE.
    public var flags: UInt16

    /// A header with this id and flags and no section counts.
    public init(id: UInt16 = 0, flags: UInt16 = 0) {
        self.id = id
        self.flags = flags
    }

    private func bit(_ mask: UInt16) -> Bool { flags & mask != 0 }
    private mutating func set(_ mask: UInt16, _ on: Bool) { flags = on ? flags | mask : flags & ~mask }

    /// QR: this is a response.
    public var isResponse: Bool { get { bit(0x8000) } set { set(0x8000, newValue) } }
    /// OPCODE.
    public var opcode: DNSOpcode {
        get { DNSOpcode(rawValue: UInt8((flags >> 11) & 0x0F)) }
        set { flags = flags & ~0x7800 | UInt16(newValue.rawValue) << 11 }
    }
    /// AA: authoritative answer (always set in mDNS responses, RFC 6762 §18.4).
    public var isAuthoritative: Bool { get { bit(0x0400) } set { set(0x0400, newValue) } }
    /// TC: truncated (in mDNS queries: more known answers follow, RFC 6762 §18.5).
    public var isTruncated: Bool { get { bit(0x0200) } set { set(0x0200, newValue) } }
    /// RD: recursion desired.
    public var recursionDesired: Bool { get { bit(0x0100) } set { set(0x0100, newValue) } }
    /// RA: recursion available.
    public var recursionAvailable: Bool { get { bit(0x0080) } set { set(0x0080, newValue) } }
    /// AD: authentic data (RFC 4035 §3.2.3).
    public var authenticData: Bool { get { bit(0x0020) } set { set(0x0020, newValue) } }
    /// CD: checking disabled (RFC 4035 §3.2.2).
    public var checkingDisabled: Bool { get { bit(0x0010) } set { set(0x0010, newValue) } }
    /// RCODE (low 4 bits; EDNS adds 8 high bits in the OPT record).
    public var responseCode: DNSResponseCode {
        get { DNSResponseCode(rawValue: UInt8(flags & 0x000F)) }
        set { flags = flags & ~0x000F | UInt16(newValue.rawValue) }
    }
}

/// One question.
public struct DNSQuestion: Sendable, Hashable {
    /// The name asked about.
    public var name: DNSName
    /// The record type asked for.
    public var type: DNSType
    /// The class asked for (`IN` by default).
    public var `class`: DNSClass
    /// mDNS QU bit: the top bit of QCLASS asks for a unicast response (RFC 6762 §5.4).
    public var unicastResponse: Bool

    /// A question; `unicastResponse` sets mDNS's QU bit.
    public init(name: DNSName, type: DNSType, class: DNSClass = .in, unicastResponse: Bool = false) {
        self.name = name
        self.type = type
        self.class = `class`
        self.unicastResponse = unicastResponse
    }

    /// QCLASS as on the wire, QU bit included.
    public var rawClass: UInt16 { self.class.rawValue | (unicastResponse ? 0x8000 : 0) }
}

/// One resource record.
public struct DNSResourceRecord: Sendable, Hashable {
    /// The owner name.
    public var name: DNSName
    /// CLASS without the top bit.
    public var `class`: DNSClass
    /// mDNS cache-flush bit: the top bit of CLASS says this record replaces cached ones of the
    /// same name, type and class (RFC 6762 §10.2). For OPT it is just the top bit of the UDP size.
    public var cacheFlush: Bool
    /// How long the record may be cached, in seconds.
    public var ttl: UInt32
    /// The record's data.
    public var data: DNSRecordData

    /// A record; `cacheFlush` sets mDNS's cache-flush bit.
    public init(name: DNSName, class: DNSClass = .in, cacheFlush: Bool = false, ttl: UInt32, data: DNSRecordData) {
        self.name = name
        self.class = `class`
        self.cacheFlush = cacheFlush
        self.ttl = ttl
        self.data = data
    }

    /// The record type (from its body).
    public var type: DNSType { data.type }

    /// CLASS as on the wire, cache-flush bit included.
    public var rawClass: UInt16 {
        get { self.class.rawValue | (cacheFlush ? 0x8000 : 0) }
        set {
            self.class = DNSClass(rawValue: newValue)
            cacheFlush = newValue & 0x8000 != 0
        }
    }
}

/// The EDNS(0) parameters an OPT record carries in its class and TTL (RFC 6891 §6.1.3).
public struct EDNSInfo: Sendable, Hashable {
    /// The largest UDP payload the sender can reassemble.
    public var udpPayloadSize: UInt16
    /// The upper 8 bits of the 12-bit RCODE.
    public var extendedResponseCode: UInt8
    /// The EDNS version (0).
    public var version: UInt8
    /// DO: DNSSEC answers are wanted (RFC 3225).
    public var dnssecOK: Bool
    /// The EDNS options.
    public var options: [EDNSOption]

    /// An OPT record's contents (RFC 6891); 1232 bytes is the usual UDP payload size.
    public init(udpPayloadSize: UInt16 = 1232, extendedResponseCode: UInt8 = 0, version: UInt8 = 0,
                dnssecOK: Bool = false, options: [EDNSOption] = []) {
        self.udpPayloadSize = udpPayloadSize
        self.extendedResponseCode = extendedResponseCode
        self.version = version
        self.dnssecOK = dnssecOK
        self.options = options
    }

    /// The OPT pseudo-record for these parameters (owner name: the root).
    public var record: DNSResourceRecord {
        var record = DNSResourceRecord(name: .root, ttl: UInt32(extendedResponseCode) << 24
                                       | UInt32(version) << 16 | (dnssecOK ? 0x8000 : 0), data: .opt(options))
        record.rawClass = udpPayloadSize
        return record
    }
}

extension DNSResourceRecord {
    /// The EDNS parameters, when this is an OPT record.
    public var edns: EDNSInfo? {
        guard case let .opt(options) = data else { return nil }
        return EDNSInfo(udpPayloadSize: rawClass, extendedResponseCode: UInt8(ttl >> 24),
                        version: UInt8((ttl >> 16) & 0xFF), dnssecOK: ttl & 0x8000 != 0, options: options)
    }
}

/// A whole message: header, questions, and the answer, authority and additional sections.
public struct DNSMessage: Sendable, Hashable {
    /// The header.
    public var header: DNSHeader
    /// The question section.
    public var questions: [DNSQuestion]
    /// The answer section.
    public var answers: [DNSResourceRecord]
    /// The authority section.
    public var authorities: [DNSResourceRecord]
    /// The additional section.
    public var additionals: [DNSResourceRecord]

    /// A message with these sections.
    public init(header: DNSHeader = DNSHeader(), questions: [DNSQuestion] = [], answers: [DNSResourceRecord] = [],
                authorities: [DNSResourceRecord] = [], additionals: [DNSResourceRecord] = []) {
        self.header = header
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// A one-question query. `recursionDesired` suits a unicast resolver; leave it off for mDNS.
    public static func query(id: UInt16, name: DNSName, type: DNSType, recursionDesired: Bool = false,
                             unicastResponse: Bool = false) -> DNSMessage {
        var header = DNSHeader(id: id)
        header.recursionDesired = recursionDesired
        return DNSMessage(header: header, questions: [DNSQuestion(name: name, type: type, unicastResponse: unicastResponse)])
    }

    /// The EDNS parameters of the first OPT record in the additional section, if any.
    public var edns: EDNSInfo? { additionals.lazy.compactMap(\.edns).first }

    /// Every record of the answer, authority and additional sections, in that order.
    public var allRecords: [DNSResourceRecord] { answers + authorities + additionals }

    // MARK: Reading

    /// Reads a message. Bytes after the last record are ignored (RFC 1035 is silent about them;
    /// use ``unpack(_:from:)`` to see where the message ended).
    public static func unpack(_ bytes: [UInt8]) throws(DNSError) -> DNSMessage {
        try unpack(bytes, from: 0).0
    }

    /// Reads a message starting at `offset`; returns it and the offset just after its last record.
    /// Compression pointers are relative to `offset`'s message, so `offset` is normally 0.
    public static func unpack(_ bytes: [UInt8], from offset: Int) throws(DNSError) -> (DNSMessage, Int) {
        guard bytes.count <= DNSLimits.maxMessageSize else { throw DNSError(.messageTooLarge(size: bytes.count)) }
        var reader = DNSReader(bytes, offset: offset, pointerFloor: offset + DNSLimits.headerSize)
        let id: UInt16, flags: UInt16, counts: [Int]
        do {
            id = try reader.u16()
            flags = try reader.u16()
            counts = [Int(try reader.u16()), Int(try reader.u16()), Int(try reader.u16()), Int(try reader.u16())]
        } catch {
            throw error.within("header")
        }
        var message = DNSMessage(header: DNSHeader(id: id, flags: flags))
        try checkCount(counts[0], minSize: DNSLimits.minQuestionSize, reader: reader, section: "question")
        message.questions.reserveCapacity(counts[0])
        for index in 0..<counts[0] {
            do { message.questions.append(try unpackQuestion(&reader)) } catch { throw error.within("question \(index + 1)") }
        }
        message.answers = try unpackSection("answer", count: counts[1], &reader)
        message.authorities = try unpackSection("authority", count: counts[2], &reader)
        message.additionals = try unpackSection("additional", count: counts[3], &reader)
        return (message, reader.offset)
    }

    private static func checkCount(_ count: Int, minSize: Int, reader: DNSReader, section: String) throws(DNSError) {
        guard count * minSize <= reader.remaining else {
            throw DNSError(.countTooLarge(count: count, remainingBytes: reader.remaining), offset: reader.offset,
                           context: ["\(section) count"])
        }
    }

    private static func unpackQuestion(_ reader: inout DNSReader) throws(DNSError) -> DNSQuestion {
        let name: DNSName
        do { name = try reader.name() } catch { throw error.within("name") }
        let type: UInt16, rawClass: UInt16
        do {
            type = try reader.u16()
            rawClass = try reader.u16()
        } catch { throw error.within("type and class") }
        return DNSQuestion(name: name, type: DNSType(type), class: DNSClass(rawValue: rawClass),
                           unicastResponse: rawClass & 0x8000 != 0)
    }

    private static func unpackSection(_ section: String, count: Int,
                                      _ reader: inout DNSReader) throws(DNSError) -> [DNSResourceRecord] {
        try checkCount(count, minSize: DNSLimits.minRecordSize, reader: reader, section: section)
        var records: [DNSResourceRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            do { records.append(try unpackRecord(&reader)) } catch { throw error.within("\(section) \(index + 1)") }
        }
        return records
    }

    private static func unpackRecord(_ reader: inout DNSReader) throws(DNSError) -> DNSResourceRecord {
        let name: DNSName
        do { name = try reader.name() } catch { throw error.within("name") }
        let type: DNSType, rawClass: UInt16, ttl: UInt32, length: Int
        do {
            type = DNSType(try reader.u16())
            rawClass = try reader.u16()
            ttl = try reader.u32()
            length = Int(try reader.u16())
        } catch { throw error.within("record header") }
        let data: DNSRecordData
        do {
            data = try reader.window(length) { body throws(DNSError) in try DNSRecordData.unpack(type: type, from: &body) }
        } catch {
            // A body error already names its field ("SRV target"); a window error names the type.
            throw error.context.isEmpty ? error.within("\(type) body") : error
        }
        var record = DNSResourceRecord(name: name, ttl: ttl, data: data)
        record.rawClass = rawClass
        return record
    }

    // MARK: Writing

    /// Writes the message, compressing names as `compression` allows. Fails when a section has
    /// more than 65535 entries, a TXT string is over 255 bytes, a body is over 65535 bytes, or the
    /// message would exceed ``DNSLimits/maxMessageSize``.
    public func pack(compression: DNSCompression = .unicast) throws(DNSError) -> [UInt8] {
        var writer = DNSWriter()
        writer.u16(header.id)
        writer.u16(header.flags)
        for (name, count) in [("question", questions.count), ("answer", answers.count),
                              ("authority", authorities.count), ("additional", additionals.count)] {
            guard count <= DNSLimits.maxSectionCount else {
                throw DNSError(.tooManyEntries(count: count), context: ["\(name) section"])
            }
            writer.u16(UInt16(count))
        }
        let compress = compression != .none
        for question in questions {
            writer.name(question.name, compress: compress)
            writer.u16(question.type.rawValue)
            writer.u16(question.rawClass)
        }
        for (section, records) in [("answer", answers), ("authority", authorities), ("additional", additionals)] {
            for (index, record) in records.enumerated() {
                do {
                    try Self.pack(record, into: &writer, compression: compression)
                } catch {
                    throw error.within("\(section) \(index + 1)")
                }
            }
        }
        guard writer.bytes.count <= DNSLimits.maxMessageSize else {
            throw DNSError(.messageTooLarge(size: writer.bytes.count))
        }
        return writer.bytes
    }

    private static func pack(_ record: DNSResourceRecord, into writer: inout DNSWriter,
                             compression: DNSCompression) throws(DNSError) {
        writer.name(record.name, compress: compression != .none)
        writer.u16(record.type.rawValue)
        writer.u16(record.rawClass)
        writer.u32(record.ttl)
        let lengthAt = writer.bytes.count
        writer.u16(0)
        try record.data.pack(into: &writer, compression: compression)
        let length = writer.bytes.count - lengthAt - 2
        guard length <= DNSLimits.maxRecordDataLength else { throw DNSError(.dataTooLong(length: length)) }
        writer.patch16(UInt16(length), at: lengthAt)
    }
}
