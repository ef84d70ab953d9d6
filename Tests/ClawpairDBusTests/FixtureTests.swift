import ClawpairDBus
import Testing

/// Real messages between a client, the bus and avahi-daemon decode to the values dbus-monitor
/// showed, and survive decode → encode → decode.
@Suite struct FixtureTests {
    func decoded(_ bytes: [UInt8]) throws -> DBusMessage {
        try #require(try decodeWhole(bytes))
    }

    @Test func hello() throws {
        let m = try decoded(Captured.hello)
        #expect(m.type == .methodCall)
        #expect(m.flags == 0)
        #expect(m.serial == 1)
        #expect(m.path == "/org/freedesktop/DBus")
        #expect(m.interface == "org.freedesktop.DBus")
        #expect(m.member == "Hello")
        #expect(m.destination == "org.freedesktop.DBus")
        #expect(m.sender == ":1.288")
        #expect(m.errorName == nil && m.replySerial == nil)
        #expect(m.body.isEmpty && m.signature == "")
    }

    @Test func serviceBrowserNew() throws {
        let m = try decoded(Captured.serviceBrowserNew)
        #expect(m.type == .methodCall)
        #expect(m.serial == 8)
        #expect(m.path == "/")
        #expect(m.interface == "org.freedesktop.Avahi.Server")
        #expect(m.member == "ServiceBrowserNew")
        #expect(m.destination == "org.freedesktop.Avahi")
        #expect(m.signature == "iissu")
        #expect(m.body == [.int32(-1), .int32(-1), .string("_openclaw-gw._tcp"), .string(""), .uint32(0)])
    }

    @Test func itemNew() throws {
        let m = try decoded(Captured.itemNew)
        #expect(m.type == .signal)
        #expect(m.flags == 0x1)
        #expect(m.serial == 2700)
        #expect(m.path == "/Client282/ServiceBrowser1")
        #expect(m.interface == "org.freedesktop.Avahi.ServiceBrowser")
        #expect(m.member == "ItemNew")
        #expect(m.destination == ":1.288")
        #expect(m.sender == ":1.0")
        #expect(m.signature == "iisssu")
        #expect(m.body == [.int32(2), .int32(0), .string("Bench Gateway"), .string("_openclaw-gw._tcp"),
                           .string("local"), .uint32(5)])
    }

    @Test func serviceResolverNew() throws {
        let m = try decoded(Captured.serviceResolverNew)
        #expect(m.type == .methodCall)
        #expect(m.serial == 9)
        #expect(m.member == "ServiceResolverNew")
        #expect(m.signature == "iisssiu")
        #expect(m.body == [.int32(2), .int32(0), .string("Bench Gateway"), .string("_openclaw-gw._tcp"),
                           .string("local"), .int32(-1), .uint32(0)])
    }

    @Test func found() throws {
        let m = try decoded(Captured.found)
        #expect(m.type == .signal)
        #expect(m.serial == 2703)
        #expect(m.path == "/Client282/ServiceResolver2")
        #expect(m.interface == "org.freedesktop.Avahi.ServiceResolver")
        #expect(m.member == "Found")
        #expect(m.signature == "iissssisqaayu")
        let txt = ["gatewayPort=18789", "gatewayTls=1", "role=gateway"].map { DBusValue.bytes(Array($0.utf8)) }
        #expect(m.body == [.int32(2), .int32(0), .string("Bench Gateway"), .string("_openclaw-gw._tcp"),
                           .string("local"), .string("clawpair-advertiser-18789.local"), .int32(0),
                           .string("10.252.0.2"), .uint16(18789), .array(element: "ay", txt), .uint32(5)])
    }

    static let all = [Captured.hello, Captured.serviceBrowserNew, Captured.itemNew, Captured.serviceResolverNew,
                      Captured.found]

    @Test(arguments: all) func reencodes(_ bytes: [UInt8]) throws {
        let m = try decoded(bytes)
        let encoded = try DBusWire.encode(m)
        #expect(try decodeWhole(encoded) == m)
        // Without the SENDER the bus added, as the client wrote it.
        var sent = m
        sent.sender = nil
        #expect(try decodeWhole(try DBusWire.encode(sent)) == sent)
    }

    @Test(arguments: all) func everyPrefixIsIncomplete(_ bytes: [UInt8]) throws {
        for length in 0 ..< bytes.count {
            #expect(try DBusWire.decode(Array(bytes[..<length])) == nil, "prefix of \(length) bytes")
        }
    }

    @Test(arguments: all) func lengthFromTheFirst16Bytes(_ bytes: [UInt8]) throws {
        #expect(try DBusWire.messageLength(Array(bytes[..<15])) == nil)
        #expect(try DBusWire.messageLength(Array(bytes[..<16])) == bytes.count)
    }

    @Test func messagesBackToBack() throws {
        let stream = [0, 0, 0] + Captured.hello + Captured.found
        let first = try #require(try DBusWire.decode(stream, at: 3))
        #expect(first.message.member == "Hello")
        let second = try #require(try DBusWire.decode(stream, at: 3 + first.length))
        #expect(second.message.member == "Found")
        #expect(3 + first.length + second.length == stream.count)
    }
}
