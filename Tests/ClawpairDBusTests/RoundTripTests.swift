import ClawpairDBus
import Testing

/// Every type, alone and in containers, survives encode → decode, with its signature.
@Suite struct RoundTripTests {
    func roundTrip(_ body: [DBusValue], limits: DBusLimits = DBusLimits()) throws -> DBusMessage {
        let message = DBusMessage(type: .signal, flags: 0x1, serial: 42, path: "/org/example/Obj_1",
                                  interface: "org.example.I", member: "Changed", body: body)
        let bytes = try DBusWire.encode(message, limits: limits)
        let decoded = try #require(try decodeWhole(bytes, limits: limits))
        #expect(decoded == message)
        #expect(try DBusWire.messageLength(Array(bytes.prefix(16))) == bytes.count)
        return decoded
    }

    static let basics: [(DBusValue, String)] = [
        (.byte(0), "y"), (.byte(255), "y"), (.boolean(true), "b"), (.boolean(false), "b"),
        (.int16(-32768), "n"), (.uint16(65535), "q"), (.int32(Int32.min), "i"), (.uint32(UInt32.max), "u"),
        (.int64(Int64.min), "x"), (.uint64(UInt64.max), "t"), (.double(-1.5e300), "d"), (.double(0), "d"),
        (.string(""), "s"), (.string("héllo ✓ 🦀"), "s"), (.objectPath("/"), "o"), (.objectPath("/a/B_9"), "o"),
        (.signature(""), "g"), (.signature("a{sv}(ii)"), "g"), (.bytes([]), "ay"), (.bytes([0, 1, 255]), "ay"),
    ]

    @Test(arguments: basics.indices) func basic(_ index: Int) throws {
        let (value, signature) = Self.basics[index]
        #expect(value.signature == signature)
        // After a byte, so every alignment is exercised.
        let decoded = try roundTrip([.byte(7), value])
        #expect(decoded.signature == "y" + signature)
    }

    @Test func allBasicsInOneBody() throws {
        _ = try roundTrip(Self.basics.map(\.0))
    }

    @Test func containers() throws {
        let dict = DBusValue.array(element: "{sv}", [
            .dictEntry(.string("port"), .variant(.uint16(18789))),
            .dictEntry(.string("txt"), .variant(.bytes(Array("a=b".utf8)))),
            .dictEntry(.string("nested"), .variant(.variant(.variant(.int64(-3))))),
        ])
        let aay = DBusValue.array(element: "ay", [.bytes([1]), .bytes([]), .bytes([2, 3])])
        let structs = DBusValue.array(element: "(is)", [.structure([.int32(1), .string("one")]),
                                                         .structure([.int32(2), .string("two")])])
        let empty = DBusValue.array(element: "(tx)", [])
        let dictOfArrays = DBusValue.array(element: "{oaa{ss}}", [
            .dictEntry(.objectPath("/x"), .array(element: "a{ss}", [.array(element: "{ss}", [])])),
        ])
        #expect(dict.signature == "a{sv}")
        #expect(aay.signature == "aay")
        #expect(structs.signature == "a(is)")
        #expect(dictOfArrays.signature == "a{oaa{ss}}")
        let decoded = try roundTrip([.byte(1), dict, aay, structs, .byte(2), empty, dictOfArrays,
                                     .structure([.byte(9), .structure([.double(2.5)])])])
        #expect(decoded.signature == "ya{sv}aaya(is)ya(tx)a{oaa{ss}}(y(d))")
    }

    @Test func emptyArrayStillPadsToItsElement() throws {
        // "ua(t)" with an empty array: length at 0 (after the u, at 4), then padding to 8.
        let message = DBusMessage(type: .methodReturn, serial: 1, replySerial: 1,
                                  body: [.array(element: "(t)", [])])
        let bytes = try DBusWire.encode(message)
        let bodyStart = bytes.count - 8
        #expect(Array(bytes[bodyStart...]) == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try decodeWhole(bytes) == message)
    }

    @Test func depthUpToTheLimit() throws {
        var value = DBusValue.int32(1)
        for _ in 0 ..< 32 { value = .variant(value) }
        _ = try roundTrip([value])
        let nested = DBusValue.variant(value)
        #expect(encodeError(DBusMessage(type: .methodReturn, serial: 1, replySerial: 1, body: [nested])) == .tooDeep)
        // A looser limit lets it through, both ways.
        _ = try roundTrip([nested], limits: DBusLimits(maxDepth: 40))
    }

    @Test func errorAndReturnHeaders() throws {
        let error = DBusMessage(type: .error, serial: 3, errorName: "org.example.Error.Failed", replySerial: 2,
                                destination: ":1.5", body: [.string("it broke")])
        #expect(try decodeWhole(try DBusWire.encode(error)) == error)
        let call = DBusMessage.methodCall(serial: 4, destination: "org.freedesktop.Avahi", path: "/",
                                          interface: "org.freedesktop.Avahi.Server", member: "GetVersionString")
        #expect(try decodeWhole(try DBusWire.encode(call)) == call)
    }

    @Test func arrayOfYDecodesAsBytes() throws {
        let message = DBusMessage(type: .methodReturn, serial: 1, replySerial: 1,
                                  body: [.array(element: "y", [.byte(1), .byte(2)])])
        let decoded = try #require(try decodeWhole(try DBusWire.encode(message)))
        #expect(decoded.body == [.bytes([1, 2])])
    }
}
