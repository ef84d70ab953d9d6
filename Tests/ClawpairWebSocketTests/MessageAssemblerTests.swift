@testable import ClawpairWebSocket
import Testing

@Suite struct MessageAssemblerTests {
    func feed(_ frames: [WebSocketFrame], _ assembler: inout WebSocketMessageAssembler) throws -> [WebSocketInboundEvent] {
        var events: [WebSocketInboundEvent] = []
        for f in frames { if let e = try assembler.receive(f) { events.append(e) } }
        return events
    }

    @Test func joinsFragmentsWithControlFramesBetween() throws {
        var a = WebSocketMessageAssembler()
        let events = try feed([
            WebSocketFrame(fin: false, opcode: .text, payload: Array("{\"type\":".utf8)),
            WebSocketFrame(opcode: .ping, payload: [1]),
            WebSocketFrame(fin: false, opcode: .continuation, payload: Array("\"event\"".utf8)),
            WebSocketFrame(fin: true, opcode: .continuation, payload: Array("}".utf8)),
            WebSocketFrame(opcode: .binary, payload: [9]),
        ], &a)
        #expect(events == [.ping([1]), .text("{\"type\":\"event\"}"), .binary([9])])
        #expect(!a.isAssembling)
    }

    @Test func utf8SplitAcrossFragmentsIsFine() throws {
        var a = WebSocketMessageAssembler()
        let bytes = Array("ü".utf8)
        let events = try feed([WebSocketFrame(fin: false, opcode: .text, payload: [bytes[0]]),
                               WebSocketFrame(opcode: .continuation, payload: [bytes[1]])], &a)
        #expect(events == [.text("ü")])
    }

    @Test func refusals() {
        var a = WebSocketMessageAssembler()
        #expect(throws: WebSocketProtocolError.unexpectedContinuation) { _ = try a.receive(WebSocketFrame(opcode: .continuation)) }
        var b = WebSocketMessageAssembler()
        #expect(throws: WebSocketProtocolError.messageInterleaved) {
            _ = try feed([WebSocketFrame(fin: false, opcode: .text), WebSocketFrame(opcode: .binary)], &b)
        }
        var c = WebSocketMessageAssembler()
        #expect(throws: WebSocketProtocolError.invalidUTF8) { _ = try c.receive(WebSocketFrame(opcode: .text, payload: [0xC3])) }
        var d = WebSocketMessageAssembler()
        #expect(throws: WebSocketProtocolError.invalidUTF8) {
            _ = try d.receive(WebSocketFrame(opcode: .text, payload: [0xED, 0xA0, 0x80]))  // a UTF-16 surrogate
        }
        var e = WebSocketMessageAssembler(maxMessageSize: 10)
        #expect(throws: WebSocketProtocolError.messageTooLarge(size: 12, limit: 10)) {
            _ = try feed([WebSocketFrame(fin: false, opcode: .binary, payload: [UInt8](repeating: 0, count: 6)),
                          WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0, count: 6))], &e)
        }
        var f = WebSocketMessageAssembler(maxMessageSize: 10)
        #expect(throws: WebSocketProtocolError.messageTooLarge(size: 11, limit: 10)) {
            _ = try f.receive(WebSocketFrame(opcode: .text, payload: [UInt8](repeating: 0x41, count: 11)))
        }
        var g = WebSocketMessageAssembler(maxFragmentCount: 3)
        #expect(throws: WebSocketProtocolError.tooManyFragments(limit: 3)) {
            _ = try feed([WebSocketFrame(fin: false, opcode: .binary), WebSocketFrame(fin: false, opcode: .continuation),
                          WebSocketFrame(fin: false, opcode: .continuation), WebSocketFrame(opcode: .continuation)], &g)
        }
    }

    @Test func closeFrames() throws {
        var a = WebSocketMessageAssembler()
        #expect(try a.receive(WebSocketFrame(opcode: .close)) == .close(nil))
        #expect(try a.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xF0] + Array("pairing required".utf8)))
            == .close(WebSocketCloseStatus(code: .policyViolation, reason: "pairing required")))
        #expect(throws: WebSocketProtocolError.closePayloadTooShort) { _ = try a.receive(WebSocketFrame(opcode: .close, payload: [3])) }
        #expect(throws: WebSocketProtocolError.invalidCloseCode(1005)) {
            _ = try a.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xED]))
        }
        #expect(throws: WebSocketProtocolError.invalidCloseCode(999)) {
            _ = try a.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xE7]))
        }
        #expect(throws: WebSocketProtocolError.invalidUTF8) {
            _ = try a.receive(WebSocketFrame(opcode: .close, payload: [0x03, 0xE8, 0xFF]))
        }
    }

    @Test func errorsMapToCloseCodes() {
        #expect(WebSocketProtocolError.invalidUTF8.closeCode == .invalidPayloadData)
        #expect(WebSocketProtocolError.messageTooLarge(size: 2, limit: 1).closeCode == .messageTooBig)
        #expect(WebSocketProtocolError.frameTooLarge(length: 2, limit: 1).closeCode == .messageTooBig)
        #expect(WebSocketProtocolError.unknownOpcode(3).closeCode == .protocolError)
    }
}
