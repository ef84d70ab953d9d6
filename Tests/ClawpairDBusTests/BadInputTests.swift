import ClawpairDBus
import Testing

/// Malformed messages: each fails with its own typed error, and nothing traps.
@Suite struct BadInputTests {
    /// A valid call to build variants of: body "ub" = 3, true.
    static func call(signature: String = "ub", body: (inout Bytes) -> Void = { $0.u32(3); $0.u32(1) },
                     bodyLengthDelta: Int = 0) -> [UInt8] {
        Bytes.message(fields: Bytes.callFields(signature: signature), body: body, bodyLengthDelta: bodyLengthDelta)
    }

    @Test func theBaseMessageIsValid() throws {
        let m = try #require(try decodeWhole(Self.call()))
        #expect(m.body == [.uint32(3), .boolean(true)])
    }

    @Test func fixedHeader() {
        var bytes = Self.call()
        bytes[0] = UInt8(ascii: "X")
        #expect(decodeError(bytes) == .badEndianness(UInt8(ascii: "X")))
        bytes = Self.call()
        bytes[1] = 0
        #expect(decodeError(bytes) == .badType(0))
        bytes[1] = 5
        #expect(decodeError(bytes) == .badType(5))
        #expect(decodeError(Bytes.message(version: 2, fields: Bytes.callFields())) == .badVersion(2))
        #expect(decodeError(Bytes.message(serial: 0, fields: Bytes.callFields())) == .zeroSerial)
        // Already from the first 16 bytes.
        #expect(throws: DBusWireError.badVersion(2)) {
            try DBusWire.messageLength(Array(Bytes.message(version: 2, fields: Bytes.callFields()).prefix(16)))
        }
    }

    @Test func nonZeroPadding() {
        // Body "yu": the u is padded from 1 to 4.
        var bytes = Self.call(signature: "yu") { $0.u8(1); $0.u32(2) }
        #expect(decodeError(bytes) == nil)
        let bodyStart = bytes.count - 8
        bytes[bodyStart + 2] = 0x55
        #expect(decodeError(bytes) == .badPadding(offset: bodyStart + 2))
        // Padding between the header fields and the body.
        var header = Self.call(signature: "", body: { _ in })
        #expect(decodeError(header) == nil)
        let fieldsEnd = 16 + Int(header[12])
        #expect(fieldsEnd % 8 != 0)
        header[fieldsEnd] = 1
        #expect(decodeError(header) == .badPadding(offset: fieldsEnd))
    }

    @Test func badBoolean() {
        #expect(decodeError(Self.call { $0.u32(3); $0.u32(2) }) == .badBoolean(2))
    }

    @Test func badStrings() {
        #expect(decodeError(Self.call(signature: "s") { $0.u32(2); $0.data += [0xC3, 0x28, 0] }) == .badUTF8)
        #expect(decodeError(Self.call(signature: "s") { $0.u32(2); $0.data += [0x61, 0, 0] }) == .badNUL)
        #expect(decodeError(Self.call(signature: "s") { $0.u32(2); $0.data += [0x61, 0x62, 0x63] }) == .badNUL)
        #expect(decodeError(Self.call(signature: "o") { $0.string("/a//b") }) == .badObjectPath("/a//b"))
        #expect(decodeError(Self.call(signature: "o") { $0.string("/a/") }) == .badObjectPath("/a/"))
        #expect(decodeError(Self.call(signature: "o") { $0.string("a") }) == .badObjectPath("a"))
        #expect(decodeError(Self.call(signature: "o") { $0.string("/a-b") }) == .badObjectPath("/a-b"))
    }

    @Test func badSignatures() {
        let tooDeep = String(repeating: "a", count: 33) + "y"
        #expect(isBadSignature(decodeError(Self.call(signature: tooDeep) { $0.u32(0) })))
        let deepStruct = String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33)
        #expect(isBadSignature(decodeError(Self.call(signature: deepStruct) { $0.u8(0) })))
        for bad in ["a", "(", "()", "{sv}", "a{vs}", "a{s}", "a{sss}", "z", "(i"] {
            #expect(isBadSignature(decodeError(Self.call(signature: bad) { _ in })), "\(bad)")
        }
        #expect(decodeError(Self.call(signature: "h") { $0.u32(0) }) == .unixFDsUnsupported)
        #expect(decodeError(Self.call(signature: "a{hs}") { $0.u32(0) }) == .unixFDsUnsupported)
        // A variant must hold exactly one complete type.
        #expect(isBadSignature(decodeError(Self.call(signature: "v") { $0.signature("ii"); $0.u32(1); $0.u32(2) })))
    }

    func isBadSignature(_ error: DBusWireError?) -> Bool {
        if case .badSignature = error { return true }
        return false
    }

    @Test func arrayLengthPastTheEnd() {
        let bytes = Self.call(signature: "ai") { $0.u32(400); $0.u32(1) }
        #expect(decodeError(bytes) == .overrun("body"))
        // Elements that do not fill the stated length exactly.
        #expect(decodeError(Self.call(signature: "ai") { $0.u32(6); $0.u32(1); $0.u32(2) })
                == .overrun("array"))
        #expect(decodeError(Self.call(signature: "a(y)") { $0.u32(0x0400_0001); $0.u32(0) })
                == .arrayTooLong(0x0400_0001))
    }

    @Test func bodyLengthMismatch() {
        // Trailing garbage inside the declared body.
        let long = Self.call(signature: "u") { $0.u32(1); $0.u32(0xFFFF) }
        #expect(decodeError(long) == .bodyLengthMismatch(declared: 8, used: 4))
        // A body with no signature must be empty.
        #expect(decodeError(Self.call(signature: "", body: { $0.u8(1) })) == .bodyLengthMismatch(declared: 1, used: 0))
        // A declared length shorter than the values.
        var short = Self.call(signature: "uu") { $0.u32(1); $0.u32(2) }
        short[4] = 4
        short.removeLast(4)
        #expect(decodeError(short) == .overrun("body"))
    }

    @Test func sizeLimit() throws {
        let bytes = Self.call(signature: "ay") { $0.u32(100); $0.data += [UInt8](repeating: 7, count: 100) }
        let limits = DBusLimits(maxMessageSize: 64)
        #expect(decodeError(bytes, limits: limits) == .tooLarge(bytes.count))
        // Before the body has arrived.
        #expect(throws: DBusWireError.tooLarge(bytes.count)) {
            try DBusWire.decode(Array(bytes.prefix(16)), limits: limits)
        }
        #expect(throws: DBusWireError.tooLarge(16 + 8 + 0xFFFF_FFFF)) {
            try DBusWire.messageLength([UInt8(ascii: "l"), 1, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 1, 0, 0, 0])
        }
        let message = DBusMessage(type: .methodReturn, serial: 1, replySerial: 1, body: [.bytes(Array(repeating: 0, count: 100))])
        let size = try DBusWire.encode(message).count
        #expect(encodeError(message, limits: limits) == .tooLarge(size))
    }

    @Test func depthLimitOnDecode() {
        // 40 nested variants, each "v" then finally a u.
        let bytes = Self.call(signature: "v") { b in
            for _ in 0 ..< 40 { b.signature("v") }
            b.signature("u"); b.u32(1)
        }
        #expect(decodeError(bytes) == .tooDeep)
        #expect(decodeError(bytes, limits: DBusLimits(maxDepth: 64)) == nil)
    }

    @Test func headerFields() {
        // Wrong variant type for a known field.
        let wrongType = Bytes.message(fields: { b in
            b.field(1, "s") { $0.string("/a") }
            b.field(3, "s") { $0.string("M") }
        })
        #expect(decodeError(wrongType) == .badFieldType(code: 1, signature: "s"))
        // Unknown fields are skipped.
        let unknown = Bytes.message(fields: { b in
            b.field(1, "o") { $0.string("/a") }
            b.field(200, "a{sv}") { $0.u32(0); $0.pad(8) }
            b.field(3, "s") { $0.string("M") }
        })
        #expect((try? decodeWhole(unknown))??.member == "M")
        // Missing MEMBER on a call; duplicate PATH.
        #expect(decodeError(Bytes.message(fields: { $0.field(1, "o") { $0.string("/a") } })) == .missingField("MEMBER"))
        let twice = Bytes.message(fields: { b in
            b.field(1, "o") { $0.string("/a") }
            b.field(1, "o") { $0.string("/b") }
            b.field(3, "s") { $0.string("M") }
        })
        #expect(decodeError(twice) == .duplicateField(1))
        // UNIX_FDS: 0 is fine, more is not.
        let noFDs = Bytes.message(fields: { b in Bytes.callFields()(&b); b.field(9, "u") { $0.u32(0) } })
        #expect(decodeError(noFDs) == nil)
        let fds = Bytes.message(fields: { b in Bytes.callFields()(&b); b.field(9, "u") { $0.u32(1) } })
        #expect(decodeError(fds) == .unixFDsUnsupported)
        // A signal needs an interface; an error needs a name and a reply serial.
        #expect(decodeError(Bytes.message(type: 4, fields: Bytes.callFields())) == .missingField("INTERFACE"))
        #expect(decodeError(Bytes.message(type: 3, fields: { $0.field(5, "u") { $0.u32(1) } }))
                == .missingField("ERROR_NAME"))
        #expect(decodeError(Bytes.message(type: 2, fields: { _ in })) == .missingField("REPLY_SERIAL"))
    }

    @Test func corruptingAnyByteNeverTraps() throws {
        for base in FixtureTests.all {
            for index in base.indices {
                for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                    var bytes = base
                    bytes[index] = value
                    _ = try? DBusWire.decode(bytes)
                }
            }
        }
    }
}
