import ClawpairDBus
import Testing

/// Big-endian ('B') messages built by hand decode to the same values.
@Suite struct BigEndianTests {
    @Test func bigEndianBody() throws {
        let bytes = Bytes.message(bigEndian: true, type: 4, flags: 1, serial: 0x0102_0304, fields: { b in
            b.field(1, "o") { $0.string("/org/example") }
            b.field(2, "s") { $0.string("org.example.I") }
            b.field(3, "s") { $0.string("Sig") }
            b.field(8, "g") { $0.signature("ynqiuxtdbsa{sv}") }
        }, body: { b in
            b.u8(0xAB)
            b.int(UInt64(UInt16(bitPattern: -2)), size: 2)
            b.int(0xBEEF, size: 2)
            b.int(UInt64(UInt32(bitPattern: -100_000)), size: 4)
            b.u32(0xDEAD_BEEF)
            b.int(UInt64(bitPattern: -5_000_000_000), size: 8)
            b.int(0x0102_0304_0506_0708, size: 8)
            b.int(1.25.bitPattern, size: 8)
            b.u32(1)
            b.string("big")
            // a{sv} with one entry: "k" → variant u 9.
            b.pad(4)
            let lengthAt = b.data.count
            b.u32(0)
            b.pad(8)
            let start = b.data.count
            b.string("k"); b.signature("u"); b.u32(9)
            b.data.replaceSubrange(lengthAt ..< lengthAt + 4, with: [0, 0, 0, UInt8(b.data.count - start)])
        })
        #expect(bytes[0] == UInt8(ascii: "B"))
        let m = try #require(try decodeWhole(bytes))
        #expect(m.type == .signal)
        #expect(m.flags == 1)
        #expect(m.serial == 0x0102_0304)
        #expect(m.path == "/org/example")
        #expect(m.interface == "org.example.I")
        #expect(m.member == "Sig")
        #expect(m.body == [.byte(0xAB), .int16(-2), .uint16(0xBEEF), .int32(-100_000), .uint32(0xDEAD_BEEF),
                           .int64(-5_000_000_000), .uint64(0x0102_0304_0506_0708), .double(1.25), .boolean(true),
                           .string("big"), .array(element: "{sv}", [.dictEntry(.string("k"), .variant(.uint32(9)))])])
        #expect(try DBusWire.messageLength(Array(bytes.prefix(16))) == bytes.count)
        // Encoding writes little-endian; the values survive.
        let encoded = try DBusWire.encode(m)
        #expect(encoded[0] == UInt8(ascii: "l"))
        #expect(try decodeWhole(encoded) == m)
    }

    @Test func bigEndianReply() throws {
        let bytes = Bytes.message(bigEndian: true, type: 2, serial: 5, fields: { b in
            b.field(5, "u") { $0.u32(0x0000_0102) }
            b.field(8, "g") { $0.signature("s") }
        }, body: { $0.string(":1.42") })
        let m = try #require(try decodeWhole(bytes))
        #expect(m.type == .methodReturn)
        #expect(m.replySerial == 0x102)
        #expect(m.body == [.string(":1.42")])
    }
}
