import ClawpairDBus
import Testing

/// Messages the spec forbids are refused by the encoder, each with its own error.
@Suite struct EncodeRuleTests {
    func reply(_ body: [DBusValue]) -> DBusMessage {
        DBusMessage(type: .methodReturn, serial: 1, replySerial: 1, body: body)
    }

    @Test func requiredFieldsAndSerial() {
        #expect(encodeError(DBusMessage(type: .methodCall, serial: 1, member: "M")) == .missingField("PATH"))
        #expect(encodeError(DBusMessage(type: .methodCall, serial: 1, path: "/")) == .missingField("MEMBER"))
        #expect(encodeError(DBusMessage(type: .signal, serial: 1, path: "/", member: "M")) == .missingField("INTERFACE"))
        #expect(encodeError(DBusMessage(type: .error, serial: 1, replySerial: 1)) == .missingField("ERROR_NAME"))
        #expect(encodeError(DBusMessage(type: .error, serial: 1, errorName: "e.E")) == .missingField("REPLY_SERIAL"))
        #expect(encodeError(DBusMessage(type: .methodReturn, serial: 1)) == .missingField("REPLY_SERIAL"))
        #expect(encodeError(DBusMessage(type: .methodReturn, serial: 0, replySerial: 1)) == .zeroSerial)
    }

    @Test func stringsAndPaths() {
        #expect(encodeError(reply([.string("a\u{0}b")])) == .badNUL)
        #expect(encodeError(reply([.objectPath("/a/")])) == .badObjectPath("/a/"))
        #expect(encodeError(reply([.objectPath("")])) == .badObjectPath(""))
        #expect(encodeError(DBusMessage(type: .methodCall, serial: 1, path: "no", member: "M")) == .badObjectPath("no"))
        #expect(encodeError(DBusMessage(type: .methodCall, serial: 1, path: "/", member: "M\u{0}")) == .badNUL)
    }

    @Test func valuesMustMatchTheirSignatures() {
        #expect(encodeError(reply([.array(element: "s", [.int32(1)])])) == .valueMismatch(expected: "s", got: "i"))
        #expect(encodeError(reply([.variant(signature: "u", .string("x"))])) == .valueMismatch(expected: "u", got: "s"))
        #expect(encodeError(reply([.array(element: "ai", [.array(element: "u", [])])]))
                == .valueMismatch(expected: "ai", got: "au"))
        for bad: DBusValue in [.array(element: "ii", []), .array(element: "h", []), .structure([]),
                               .dictEntry(.string("k"), .int32(1)), .array(element: "{vs}", []),
                               .variant(signature: "", .int32(1)), .signature("a{")] {
            #expect(encodeError(reply([bad])) != nil, "\(bad)")
        }
        #expect(encodeError(reply([.array(element: "h", [])])) == .unixFDsUnsupported)
    }

    @Test func signatureAtMost255Bytes() throws {
        let fits = [DBusValue](repeating: .byte(1), count: 255)
        #expect(try decodeWhole(try DBusWire.encode(reply(fits)))?.body == fits)
        if case .badSignature = encodeError(reply(fits + [.byte(2)])) {} else { Issue.record("256 codes encoded") }
    }

    @Test func tooDeepIsRefusedBeforeRecursing() {
        var value = DBusValue.int32(0)
        for _ in 0 ..< 10_000 { value = .structure([value]) }
        #expect(encodeError(reply([value])) == .tooDeep)
    }

    @Test func errorsReadWell() {
        #expect(DBusWireError.badBoolean(2).description == "boolean is 2, not 0 or 1")
        #expect(DBusWireError.badBoolean(2).message == "D-Bus: boolean is 2, not 0 or 1")
    }
}
