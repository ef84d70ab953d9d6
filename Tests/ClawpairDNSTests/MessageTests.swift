@testable import ClawpairDNS
import Testing

/// Decoding hand-built messages and encoding known ones.
@Suite struct MessageTests {
    /// An mDNS response as a responder sends it: PTR answer, SRV/TXT/A/AAAA/NSEC additionals,
    /// compressed against earlier names, cache-flush bits set on the unique records.
    static func sampleResponse() -> (bytes: [UInt8], offsets: [String: Int]) {
        var b = Bytes()
        b.header(flags: 0x8400, an: 1, ar: 5)
        let service = b.count                          // 12
        b.name(["_openclaw-gw", "_tcp", "local"])
        b.u16(12); b.u16(1); b.u32(4500)
        let ptrLength = b.count; b.u16(0)
        let instance = b.count
        b.name(["Studio Mac (OpenClaw)"], pointer: service)
        b.data[ptrLength + 1] = UInt8(b.count - ptrLength - 2)
        // SRV, owner compressed to the PTR target, target host compressed to "local".
        b.name([], pointer: instance); b.u16(33); b.u16(0x8001); b.u32(120)
        let srvLength = b.count; b.u16(0)
        b.u16(0); b.u16(0); b.u16(18789)
        let host = b.count
        b.name(["studio"], pointer: service + 1 + 12 + 1 + 4)   // -> "local."
        b.data[srvLength + 1] = UInt8(b.count - srvLength - 2)
        // TXT with an empty value, a key without "=", and binary bytes.
        b.name([], pointer: instance); b.u16(16); b.u16(0x8001); b.u32(4500)
        let strings: [[UInt8]] = [Array("role=gateway".utf8), Array("flag".utf8), Array("empty=".utf8), [0x62, 0x3D, 0x00, 0xFF]]
        b.u16(UInt16(strings.reduce(0) { $0 + $1.count + 1 }))
        for s in strings { b.u8(UInt8(s.count)); b.data += s }
        // A and AAAA for the host.
        b.name([], pointer: host); b.u16(1); b.u16(0x8001); b.u32(120); b.u16(4); b.data += [192, 168, 1, 20]
        b.name([], pointer: host); b.u16(28); b.u16(0x8001); b.u32(120); b.u16(16)
        b.data += [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]
        // NSEC: the host has only A and AAAA (RFC 6762 §6.1 form: next name = itself, compressed).
        b.name([], pointer: host); b.u16(47); b.u16(0x8001); b.u32(120)
        b.u16(2 + 2 + 4)
        b.name([], pointer: host)
        b.data += [0, 4, 0x40, 0, 0, 0x08]   // window 0: bit 1 (A), bit 28 (AAAA)
        return (b.data, ["service": service, "instance": instance, "host": host])
    }

    @Test func decodesAnMDNSResponse() throws {
        let message = try DNSMessage.unpack(Self.sampleResponse().bytes)
        #expect(message.header.isResponse && message.header.isAuthoritative && !message.header.isTruncated)
        #expect(message.questions.isEmpty && message.answers.count == 1 && message.additionals.count == 5)
        let instance = name("Studio\\032Mac\\032(OpenClaw)._openclaw-gw._tcp.local")
        let host = name("studio.local")
        #expect(message.answers[0] == DNSResourceRecord(name: name("_openclaw-gw._tcp.local"), ttl: 4500, data: .ptr(instance)))
        #expect(message.answers[0].data.description == "Studio\\032Mac\\032\\(OpenClaw\\)._openclaw-gw._tcp.local.")
        #expect(message.additionals[0] == DNSResourceRecord(name: instance, cacheFlush: true, ttl: 120,
                                                            data: .srv(SRVData(port: 18789, target: host))))
        #expect(message.additionals[1].data == .txt([Array("role=gateway".utf8), Array("flag".utf8), Array("empty=".utf8), [0x62, 0x3D, 0x00, 0xFF]]))
        #expect(message.additionals[1].data.description == #""role=gateway" "flag" "empty=" "b=\000\255""#)
        #expect(message.additionals[2].data == .a(IPv4Address("192.168.1.20")!))
        #expect(message.additionals[3].data == .aaaa(IPv6Address("fe80::1")!))
        #expect(message.additionals[4].data == .nsec(NSECData(nextDomain: host, types: [.a, .aaaa])))
        #expect(message.additionals.allSatisfy { $0.cacheFlush && $0.class == .in })
        #expect(message.additionals[0].description == "Studio\\032Mac\\032\\(OpenClaw\\)._openclaw-gw._tcp.local. 120 IN SRV 0 0 18789 studio.local. (cache-flush)")
        // Everything it decoded, re-encoded and decoded again, is the same, in every mode.
        for mode in [DNSCompression.none, .unicast, .multicast] {
            #expect(try DNSMessage.unpack(message.pack(compression: mode)) == message, "\(mode)")
        }
    }

    @Test func multicastCompressionIsAsSmallAsTheResponders() throws {
        let bytes = Self.sampleResponse().bytes
        let message = try DNSMessage.unpack(bytes)
        let packed = try message.pack(compression: .multicast)
        #expect(packed.count == bytes.count)
        #expect(try message.pack(compression: .unicast).count > packed.count, "SRV target and NSEC name stay whole")
        #expect(try message.pack(compression: .none).count > message.pack(compression: .unicast).count)
    }

    @Test func queryWithQUBit() throws {
        let query = DNSMessage.query(id: 0, name: name("_openclaw-gw._tcp.local"), type: .ptr, unicastResponse: true)
        let bytes = try query.pack()
        var expected = Bytes()
        expected.header(qd: 1)
        expected.name(["_openclaw-gw", "_tcp", "local"])
        expected.u16(12); expected.u16(0x8001)
        #expect(bytes == expected.data)
        let back = try DNSMessage.unpack(bytes)
        #expect(back.questions[0].unicastResponse && back.questions[0].class == .in && back.questions[0].type == .ptr)
        #expect(back.questions[0].description == "_openclaw-gw._tcp.local. IN PTR (QU)")
    }

    @Test func headerFlags() {
        var header = DNSHeader(id: 7)
        header.isResponse = true
        header.opcode = .update
        header.isAuthoritative = true
        header.isTruncated = true
        header.recursionDesired = true
        header.recursionAvailable = true
        header.authenticData = true
        header.checkingDisabled = true
        header.responseCode = .nameError
        #expect(header.flags == 0xAFB3)
        #expect(header.opcode == .update && header.responseCode == .nameError && header.responseCode.description == "NXDOMAIN")
        header.opcode = .query
        header.isTruncated = false
        #expect(header.flags == 0x85B3)
    }

    @Test func emptyTXTIsOneEmptyString() throws {
        var b = Bytes()
        b.header(an: 1)
        b.name(["x"]); b.u16(16); b.u16(1); b.u32(0); b.u16(0)
        let message = try DNSMessage.unpack(b.data)
        #expect(message.answers[0].data == .txt([[]]))
        // Writing an empty list writes one empty string (RFC 6763 §6.1), never an empty body.
        let empty = DNSMessage(answers: [DNSResourceRecord(name: name("x"), ttl: 0, data: .txt([]))])
        #expect(try DNSMessage.unpack(empty.pack()).answers[0].data == .txt([[]]))
        #expect(try empty.pack().suffix(3) == [0, 1, 0])
    }

    @Test func ednsOption() throws {
        let edns = EDNSInfo(udpPayloadSize: 1440, extendedResponseCode: 1, version: 0, dnssecOK: true,
                            options: [EDNSOption(code: 4, data: [0, 0, 1, 2, 3, 4, 5, 6])])
        var query = DNSMessage.query(id: 0x1234, name: name("example.org"), type: .aaaa, recursionDesired: true)
        query.additionals.append(edns.record)
        let back = try DNSMessage.unpack(query.pack())
        #expect(back == query)
        #expect(back.edns == edns)
        #expect(back.additionals[0].rawClass == 1440)
        #expect(back.additionals[0].description == "OPT udp=1440 version=0 do=1 option 4: 0000010203040506")
    }

    @Test func unknownTypesKeepTheirBytes() throws {
        var b = Bytes()
        b.header(an: 2)
        b.name(["x"]); b.u16(65280); b.u16(3); b.u32(9); b.u16(3); b.data += [1, 0xC0, 12]  // looks like a pointer; stays bytes
        b.name(["y"]); b.u16(99); b.u16(1); b.u32(9); b.u16(0)
        let message = try DNSMessage.unpack(b.data)
        #expect(message.answers[0].data == .unknown(type: DNSType(65280), data: [1, 0xC0, 12]))
        #expect(message.answers[0].class == DNSClass(3))
        #expect(message.answers[0].description == "x. 9 CLASS3 TYPE65280 \\# 3 01c00c")
        #expect(message.answers[1].data.description == "\\# 0")
        #expect(try DNSMessage.unpack(message.pack()) == message)
    }

    @Test func soaMXAndNames() throws {
        let soa = SOAData(primaryServer: name("ns1.openclaw.internal"), responsible: name("hostmaster.openclaw.internal"),
                          serial: 2026031301, refresh: 7200, retry: 3600, expire: 1209600, minimum: 60)
        let message = DNSMessage(header: DNSHeader(id: 1, flags: 0x8400), answers: [
            DNSResourceRecord(name: name("openclaw.internal"), ttl: 60, data: .soa(soa)),
            DNSResourceRecord(name: name("openclaw.internal"), ttl: 60, data: .ns(name("ns1.openclaw.internal"))),
            DNSResourceRecord(name: name("www.openclaw.internal"), ttl: 60, data: .cname(name("openclaw.internal"))),
            DNSResourceRecord(name: name("openclaw.internal"), ttl: 60, data: .mx(MXData(preference: 10, exchange: name("mx.openclaw.internal")))),
        ])
        let bytes = try message.pack()
        #expect(try DNSMessage.unpack(bytes) == message)
        #expect(bytes.count < (try message.pack(compression: .none)).count)
        #expect(message.answers[0].data.description == "ns1.openclaw.internal. hostmaster.openclaw.internal. 2026031301 7200 3600 1209600 60")
    }

    @Test func nsecBitmapAcrossWindows() throws {
        let types: [DNSType] = [.a, .txt, .aaaa, .srv, .nsec, DNSType(256), DNSType(65535), .a]
        let nsec = NSECData(nextDomain: name("host.local"), types: types)
        #expect(nsec.types == [.a, .txt, .aaaa, .srv, .nsec, DNSType(256), DNSType(65535)])
        let message = DNSMessage(answers: [DNSResourceRecord(name: name("host.local"), ttl: 120, data: .nsec(nsec))])
        let back = try DNSMessage.unpack(message.pack(compression: .multicast))
        #expect(back == message)
        #expect(back.answers[0].data.description == "host.local. A TXT AAAA SRV NSEC TYPE256 TYPE65535")
    }

    @Test func trailingBytesAreReportedNotFatal() throws {
        var bytes = try DNSMessage.query(id: 1, name: name("a"), type: .a).pack()
        let length = bytes.count
        bytes += [0, 0, 0]
        let (message, end) = try DNSMessage.unpack(bytes, from: 0)
        #expect(end == length)
        #expect(message.questions.count == 1)
    }

    @Test func packLimits() throws {
        let longString = DNSMessage(answers: [DNSResourceRecord(name: name("x"), ttl: 0, data: .txt([[], Array(repeating: 65, count: 256)]))])
        #expect(throws: DNSError(.stringTooLong(length: 256), context: ["answer 1", "TXT string 2"])) { try longString.pack() }
        let huge = DNSMessage(answers: [DNSResourceRecord(name: name("x"), ttl: 0, data: .unknown(type: DNSType(999), data: Array(repeating: 0, count: 65_536)))])
        #expect(throws: DNSError(.dataTooLong(length: 65_536), context: ["answer 1"])) { try huge.pack() }
        let big = DNSMessage(answers: Array(repeating: DNSResourceRecord(name: name("x"), ttl: 0, data: .unknown(type: DNSType(999), data: Array(repeating: 0, count: 40_000))), count: 2))
        #expect(throws: DNSError(.messageTooLarge(size: 80_037))) { try big.pack() }
    }

    @Test func typeAndClassNames() {
        #expect(DNSType(mnemonic: "srv") == .srv)
        #expect(DNSType(mnemonic: "TYPE65534") == DNSType(65534))
        #expect(DNSType(mnemonic: "nope") == nil)
        #expect(DNSType(65534).description == "TYPE65534")
        #expect(DNSClass(rawValue: 0x8001) == .in)
        #expect(DNSClass(254).description == "NONE")
    }
}
