// libFuzzer target: the WebSocket frame decoder, message assembler and connection engine.
// Never traps; the input is decoded whole and in chunks (cut points taken from the first
// byte) with the same frames or the same error; every decoded frame re-encodes (unmasked and
// masked) to bytes that decode to the same frame; buffering never exceeds one frame's limit;
// the engine answers a run of pings with one pong per write.
import CFuzzerDriver
import InputChunks
import ClawpairWebSocket

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzWebSocketFrames_main")
public func fuzzWebSocketFramesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzWebSocketFrames(data, size) }
}

private let limit = 4096

private func decodeAll(_ chunks: [ArraySlice<UInt8>], role: WebSocketFrameDecoder.Role) -> ([WebSocketFrame], WebSocketProtocolError?) {
    var decoder = WebSocketFrameDecoder(role: role, maxFramePayloadSize: limit)
    var frames: [WebSocketFrame] = []
    for chunk in chunks {
        decoder.append(chunk)
        do {
            while let frame = try decoder.next() { frames.append(frame) }
        } catch {
            return (frames, error)
        }
        precondition(decoder.bufferedByteCount <= limit + 14 + chunk.count, "decoder buffered past its limit")
    }
    return (frames, nil)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let (body, chunks) = chunkedInput(data, size, maxStep: 17)

    for role in [WebSocketFrameDecoder.Role.client, .server] {
        let whole = decodeAll([body], role: role)
        let pieces = decodeAll(chunks, role: role)
        precondition(whole.0 == pieces.0 && whole.1 == pieces.1, "chunking changed the decoding")
        for frame in whole.0 {
            let key: WebSocketMaskingKey? = role == .server ? WebSocketMaskingKey(1, 2, 3, 4) : nil
            let again = decodeAll([WebSocketFrameEncoder.encode(frame, maskingKey: key)[...]], role: role)
            precondition(again.1 == nil && again.0 == [frame], "a decoded frame does not survive re-encoding")
        }
    }

    // The whole engine, as a client: must never trap, and ends in a consistent state.
    var connection = WebSocketConnection(role: .client, maxFramePayloadSize: limit, maxMessageSize: 2 * limit,
                                         maxFragmentCount: 8, maskingKeys: { WebSocketMaskingKey(9, 8, 7, 6) })
    for chunk in chunks {
        connection.receive(chunk)
        while let event = connection.nextEvent() {
            if case .text(let text) = event { precondition(text.utf8.count <= 2 * limit) }
        }
        // Pongs are coalesced: whatever the chunk held, one pong at most per transport write.
        let (sent, _) = decodeAll([connection.takeOutbound()[...]], role: .server)
        precondition(sent.filter { $0.opcode == .pong }.count <= 1, "more than one pong per write")
    }
    connection.transportEnded()
    precondition(connection.shouldCloseTransport, "the engine is still open after the transport ended")
    return 0
}
