@testable import ClawpairWebSocket
import Testing

/// The protocol engine: pings, the closing handshake in every state, failing on protocol errors.
@Suite struct ConnectionTests {
    static let key = WebSocketMaskingKey(0x11, 0x22, 0x33, 0x44)

    func client() -> WebSocketConnection {
        WebSocketConnection(role: .client, maskingKeys: { ConnectionTests.key })
    }

    func serverFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8] = [], fin: Bool = true) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(fin: fin, opcode: opcode, payload: payload), maskingKey: nil)
    }

    /// Decodes what the client sent, as a server would.
    func sentFrames(_ connection: inout WebSocketConnection) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append(connection.takeOutbound())
        var frames: [WebSocketFrame] = []
        while let f = try decoder.next() { frames.append(f) }
        return frames
    }

    func events(_ connection: inout WebSocketConnection) -> [WebSocketEvent] {
        var out: [WebSocketEvent] = []
        while let e = connection.nextEvent() { out.append(e) }
        return out
    }

    @Test func messagesAndPingPong() throws {
        var c = client()
        c.receive(serverFrame(.text, Array("{\"type\":\"event\",\"event\":\"connect.challenge\"}".utf8)) + serverFrame(.ping, [7]))
        #expect(events(&c) == [.text("{\"type\":\"event\",\"event\":\"connect.challenge\"}"), .ping([7])])
        #expect(try sentFrames(&c) == [WebSocketFrame(opcode: .pong, payload: [7])])
        try c.send(text: "hi")
        try c.ping([1, 2])
        #expect(try sentFrames(&c) == [WebSocketFrame(opcode: .text, payload: Array("hi".utf8)), WebSocketFrame(opcode: .ping, payload: [1, 2])])
        c.receive(serverFrame(.pong, [1, 2]))
        #expect(events(&c) == [.pong([1, 2])])
    }

    @Test func outboundFramesAreMaskedWithTheInjectedKey() throws {
        var c = client()
        try c.send(text: "Hello")
        #expect(c.takeOutbound() == WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), maskingKey: Self.key))
    }

    @Test func localCloseThenPeerClose() throws {
        var c = client()
        c.close(code: .normalClosure, reason: "done")
        #expect(c.state == .closeSent(.normalClosure))
        #expect(try sentFrames(&c) == [WebSocketFrame(opcode: .close, payload: [0x03, 0xE8] + Array("done".utf8))])
        #expect(throws: WebSocketStateError.closing) { try c.send(text: "late") }
        c.close()  // a second close is ignored
        #expect(!c.hasOutbound)
        // Data and pings still arrive after our close; pings are no longer answered.
        c.receive(serverFrame(.text, Array("x".utf8)) + serverFrame(.ping, [1]))
        #expect(events(&c) == [.text("x"), .ping([1])])
        #expect(!c.hasOutbound)
        c.receive(serverFrame(.close, [0x03, 0xE8]))
        #expect(events(&c) == [.closed(WebSocketCloseStatus(code: .normalClosure), initiatedLocally: true)])
        #expect(c.state == .closed && c.shouldCloseTransport)
        #expect(!c.hasOutbound)
    }

    @Test func peerCloseIsEchoed() throws {
        var c = client()
        c.receive(serverFrame(.close, [0x03, 0xF0] + Array("pairing required".utf8)) + serverFrame(.text, Array("ignored".utf8)))
        #expect(events(&c) == [.closed(WebSocketCloseStatus(code: .policyViolation, reason: "pairing required"), initiatedLocally: false)])
        #expect(try sentFrames(&c) == [WebSocketFrame(opcode: .close, payload: [0x03, 0xF0])])
        #expect(c.shouldCloseTransport)
        #expect(throws: WebSocketStateError.closing) { try c.ping() }
    }

    @Test func emptyPeerCloseIsEchoedEmpty() throws {
        var c = client()
        c.receive(serverFrame(.close))
        #expect(events(&c) == [.closed(WebSocketCloseStatus(code: .noStatusReceived), initiatedLocally: false)])
        #expect(try sentFrames(&c) == [WebSocketFrame(opcode: .close, payload: [])])
    }

    @Test func protocolErrorsFailWithTheRightCode() throws {
        let cases: [([UInt8], WebSocketProtocolError, WebSocketCloseCode)] = [
            (hex("83 00"), .unknownOpcode(3), .protocolError),
            (hex("81 81 00 00 00 00 41"), .maskedFrameFromServer, .protocolError),
            (serverFrame(.text, [0xFF]), .invalidUTF8, .invalidPayloadData),
            (serverFrame(.continuation, [1]), .unexpectedContinuation, .protocolError),
            (hex("82 7E 10 00"), .frameTooLarge(length: 4096, limit: 1024), .messageTooBig),
        ]
        for (wire, error, code) in cases {
            var c = WebSocketConnection(role: .client, maxFramePayloadSize: 1024, maskingKeys: { ConnectionTests.key })
            c.receive(wire)
            #expect(events(&c) == [.failed(error)], "\(error)")
            #expect(c.state == .failed(error))
            #expect(try sentFrames(&c) == [WebSocketFrame(opcode: .close, payload: [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])])
            c.receive(serverFrame(.text, Array("after".utf8)))
            #expect(events(&c).isEmpty)
        }
    }

    @Test func transportEndWithoutClose() {
        var c = client()
        c.transportEnded()
        #expect(events(&c) == [.closed(WebSocketCloseStatus(code: .abnormalClosure), initiatedLocally: false)])
        var d = client()
        d.close()
        _ = d.takeOutbound()
        d.transportEnded()
        #expect(events(&d) == [.closed(WebSocketCloseStatus(code: .abnormalClosure), initiatedLocally: true)])
        d.transportEnded()
        #expect(events(&d).isEmpty)
    }

    @Test func messageLimitsApply() {
        var c = WebSocketConnection(role: .client, maxMessageSize: 4, maskingKeys: { ConnectionTests.key })
        c.receive(serverFrame(.binary, [1, 2, 3], fin: false) + serverFrame(.continuation, [4, 5]))
        #expect(events(&c) == [.failed(.messageTooLarge(size: 5, limit: 4))])
    }
}

/// RFC 6455 §5.5.3: only the latest ping needs an answer. A flood of pings costs one pong per
/// transport write.
@Suite struct PongCoalescingTests {
    func serverFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8] = []) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload), maskingKey: nil)
    }

    func frames(_ bytes: [UInt8]) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let f = try decoder.next() { frames.append(f) }
        return frames
    }

    @Test("10,000 pings in one read: one pong, for the last; one ping event")
    func floodIsCoalesced() throws {
        var c = WebSocketConnection(role: .client, maskingKeys: { ConnectionTests.key })
        var flood: [UInt8] = []
        for i in 0..<10_000 { flood += serverFrame(.ping, [UInt8(i & 0xFF), UInt8(i >> 8)]) }
        c.receive(flood)
        var events: [WebSocketEvent] = []
        while let e = c.nextEvent() { events.append(e) }
        #expect(events == [.ping([0x0F, 0x27])])
        #expect(c.hasOutbound)
        #expect(try frames(c.takeOutbound()) == [WebSocketFrame(opcode: .pong, payload: [0x0F, 0x27])])
        #expect(!c.hasOutbound)
    }

    @Test("pings between messages keep the order of events; the owed pong goes out before our close")
    func orderAndClose() throws {
        var c = WebSocketConnection(role: .client, maskingKeys: { ConnectionTests.key })
        c.receive(serverFrame(.ping, [1]) + serverFrame(.ping, [2]) + serverFrame(.text, Array("a".utf8)) + serverFrame(.ping, [3]))
        var events: [WebSocketEvent] = []
        while let e = c.nextEvent() { events.append(e) }
        #expect(events == [.ping([2]), .text("a"), .ping([3])])
        c.close(code: .normalClosure, reason: "")
        #expect(try frames(c.takeOutbound()) == [WebSocketFrame(opcode: .pong, payload: [3]),
                                                WebSocketFrame(opcode: .close, payload: [0x03, 0xE8])])
    }
}
