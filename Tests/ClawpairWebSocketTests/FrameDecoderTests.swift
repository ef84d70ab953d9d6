import ClawpairTestSupport
@testable import ClawpairWebSocket
import Testing

@Suite struct FrameDecoderTests {
    /// Decodes all frames of `bytes` fed at once.
    func decodeAll(_ bytes: [UInt8], role: WebSocketFrameDecoder.Role = .client, max: Int = 1 << 20) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: role, maxFramePayloadSize: max)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        return frames
    }

    // RFC 6455 §5.7 examples.
    @Test func rfcExamples() throws {
        #expect(try decodeAll(hex("81 05 48 65 6c 6c 6f")) == [WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))])
        #expect(try decodeAll(hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server)
            == [WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))])
        #expect(try decodeAll(hex("01 03 48 65 6c 80 02 6c 6f")) == [
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(fin: true, opcode: .continuation, payload: Array("lo".utf8)),
        ])
        #expect(try decodeAll(hex("89 05 48 65 6c 6c 6f")) == [WebSocketFrame(opcode: .ping, payload: Array("Hello".utf8))])
        #expect(try decodeAll(hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server)
            == [WebSocketFrame(opcode: .pong, payload: Array("Hello".utf8))])
        let medium = try decodeAll(hex("82 7E 01 00") + [UInt8](repeating: 7, count: 256))
        #expect(medium == [WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 256))])
        let large = try decodeAll(hex("82 7F 00 00 00 00 00 01 00 00") + [UInt8](repeating: 9, count: 65536))
        #expect(large.first?.payload.count == 65536)
    }

    @Test func needsMoreBytesAtEveryCut() throws {
        let wire = hex("82 7E 01 00") + [UInt8](repeating: 1, count: 256) + hex("81 05 48 65 6c 6c 6f")
        for cut in 0...wire.count {
            var decoder = WebSocketFrameDecoder(role: .client)
            decoder.append(wire[..<cut])
            var frames: [WebSocketFrame] = []
            while let f = try decoder.next() { frames.append(f) }
            decoder.append(wire[cut...])
            while let f = try decoder.next() { frames.append(f) }
            #expect(frames.map(\.payload.count) == [256, 5], "cut \(cut)")
            #expect(decoder.bufferedByteCount == 0, "cut \(cut)")
        }
    }

    @Test func byteByByte() throws {
        let frames = [
            WebSocketFrame(opcode: .text, payload: Array("héllo".utf8)),
            WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2, 3]),
            WebSocketFrame(opcode: .ping, payload: []),
            WebSocketFrame(opcode: .continuation, payload: [UInt8](repeating: 0xAB, count: 70000)),
        ]
        var wire: [UInt8] = []
        for f in frames { wire += WebSocketFrameEncoder.encode(f, maskingKey: WebSocketMaskingKey(1, 2, 3, 4)) }
        var decoder = WebSocketFrameDecoder(role: .server)
        var out: [WebSocketFrame] = []
        for byte in wire {
            decoder.append(CollectionOfOne(byte))
            while let f = try decoder.next() { out.append(f) }
        }
        #expect(out == frames)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func roundTripProperty() throws {
        for seed in UInt64(1)...200 {
            var rng = SeededGenerator(seed: seed)
            var frames: [WebSocketFrame] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let opcode = WebSocketOpcode.allCases.randomElement(using: &rng)!
                let sizes = opcode.isControl ? [0, 1, 125] : [0, 1, 125, 126, 127, 65535, 65536, 70001]
                let size = Bool.random(using: &rng) ? sizes.randomElement(using: &rng)!
                    : Int.random(in: 0...(opcode.isControl ? 125 : 300), using: &rng)
                let payload = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
                frames.append(WebSocketFrame(fin: opcode.isControl || Bool.random(using: &rng), opcode: opcode, payload: payload))
            }
            let masked = Bool.random(using: &rng)
            var wire: [UInt8] = []
            for f in frames {
                let key = masked ? WebSocketMaskingKey(UInt8.random(in: 0...255, using: &rng), 0x5A, 0xFF,
                                                       UInt8.random(in: 0...255, using: &rng)) : nil
                wire += WebSocketFrameEncoder.encode(f, maskingKey: key)
            }
            var decoder = WebSocketFrameDecoder(role: masked ? .server : .client)
            var out: [WebSocketFrame] = []
            for chunk in randomChunks(wire, max: 4096, using: &rng) {
                decoder.append(chunk)
                while let f = try decoder.next() { out.append(f) }
            }
            #expect(out == frames, "seed \(seed)")
        }
    }

    @Test func encoderUsesShortestLengthAndMasks() {
        #expect(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)),
                                             maskingKey: WebSocketMaskingKey(0x37, 0xfa, 0x21, 0x3d))
            == hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
        func prefix(_ count: Int, _ n: Int) -> [UInt8] {
            Array(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: count)),
                                               maskingKey: nil).prefix(n))
        }
        #expect(prefix(125, 2) == [0x82, 125])
        #expect(prefix(126, 4) == [0x82, 126, 0, 126])
        #expect(prefix(65535, 4) == [0x82, 126, 0xFF, 0xFF])
        #expect(prefix(65536, 10) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test(arguments: [
        ("C1 00", WebSocketProtocolError.reservedBitsSet(0b100)),
        ("A1 00", .reservedBitsSet(0b010)),
        ("91 00", .reservedBitsSet(0b001)),
        ("83 00", .unknownOpcode(3)),
        ("87 00", .unknownOpcode(7)),
        ("8B 00", .unknownOpcode(0xB)),
        ("8F 00", .unknownOpcode(0xF)),
        ("09 00", .fragmentedControlFrame(.ping)),
        ("08 00", .fragmentedControlFrame(.close)),
        ("89 7E 00 C8", .controlFrameTooLong(.ping, length: 200)),
        ("8A 7E FF FF", .controlFrameTooLong(.pong, length: 65535)),
        ("88 7F 00 00 00 00 00 01 00 00", .controlFrameTooLong(.close, length: 65536)),
        ("82 7E 00 7D", .nonMinimalLength(125)),
        ("82 7F 00 00 00 00 00 00 FF FF", .nonMinimalLength(65535)),
        ("82 7F 80 00 00 00 00 00 00 00", .lengthHighBitSet),
        ("82 80 00 00 00 00", .maskedFrameFromServer),
    ])
    func refusesBadHeaders(wire: String, expected: WebSocketProtocolError) {
        #expect(throws: expected) { _ = try decodeAll(hex(wire)) }
    }

    @Test func clientFramesMustBeMasked() {
        #expect(throws: WebSocketProtocolError.unmaskedFrameFromClient) { _ = try decodeAll(hex("81 00"), role: .server) }
    }

    @Test func declaredLengthCheckedBeforeBuffering() throws {
        var decoder = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 1000)
        // A 64-bit length of 2^40: refused from the header alone, with no payload present.
        decoder.append(hex("82 7F 00 00 01 00 00 00 00 00"))
        #expect(throws: WebSocketProtocolError.frameTooLarge(length: 1 << 40, limit: 1000)) { _ = try decoder.next() }
        // Sticky: the stream cannot be reframed.
        decoder.append(hex("81 00"))
        #expect(throws: WebSocketProtocolError.frameTooLarge(length: 1 << 40, limit: 1000)) { _ = try decoder.next() }

        var exact = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 1000)
        exact.append(hex("82 7E 03 E8") + [UInt8](repeating: 0, count: 1000))
        #expect(try exact.next()?.payload.count == 1000)
        var over = WebSocketFrameDecoder(role: .client, maxFramePayloadSize: 1000)
        over.append(hex("82 7E 03 E9"))
        #expect(throws: WebSocketProtocolError.frameTooLarge(length: 1001, limit: 1000)) { _ = try over.next() }
    }

    @Test func closeCodes() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999] {
            #expect(WebSocketCloseCode(rawValue: code).isValidOnWire, "\(code)")
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535] {
            #expect(!WebSocketCloseCode(rawValue: code).isValidOnWire, "\(code)")
        }
        #expect(WebSocketFrameEncoder.closePayload(nil) == [])
        #expect(WebSocketFrameEncoder.closePayload(WebSocketCloseStatus(code: .normalClosure, reason: "bye"))
            == [0x03, 0xE8] + Array("bye".utf8))
        // Reasons are cut to 123 bytes on a character boundary.
        let long = WebSocketFrameEncoder.closePayload(WebSocketCloseStatus(code: .goingAway, reason: String(repeating: "é", count: 100)))
        #expect(long.count == 2 + 122)
        #expect(String(validating: long[2...], as: UTF8.self) != nil)
    }
}
