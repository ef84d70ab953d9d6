// libFuzzer target: the HTTP upgrade response parser and the client handshake's checks.
// Never traps; feeding the input whole or in chunks (sizes from the first byte) gives the same
// outcome; a parsed head plus its remainder never holds more bytes than went in; buffering
// stays within the limit.
import CFuzzerDriver
import InputChunks
import ClawpairWebSocket

/// The process entry point: SwiftPM links `main` as `<Module>_main`; libFuzzer takes over from here.
@_cdecl("FuzzHTTPUpgrade_main")
public func fuzzHTTPUpgradeMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzHTTPUpgrade(data, size) }
}

private let request = WebSocketHandshakeRequest(host: "gw.example", port: 18789, tls: false, key: "dGhlIHNhbXBsZSBub25jZQ==")

private enum Outcome: Equatable {
    case needMore
    case upgraded(HTTPResponseHead, [UInt8])
    case failed(WebSocketHandshakeError)
}

private func run(_ chunks: [ArraySlice<UInt8>]) -> Outcome {
    var handshake = WebSocketClientHandshake(request: request, parser: HTTPResponseHeadParser(maxHeadBytes: 2048, maxHeaderCount: 16))
    var received: [UInt8] = []
    for (index, chunk) in chunks.enumerated() {
        received.append(contentsOf: chunk)
        do {
            switch try handshake.receive(chunk) {
            case .needMoreBytes:
                precondition(handshake.bufferedByteCount <= 2048, "parser buffered past its limit")
            case .upgraded(let head, let remainder):
                precondition(remainder.count < received.count, "remainder longer than the input")
                precondition(head.statusCode == 101)
                return .upgraded(head, remainder + chunks[(index + 1)...].flatMap { $0 })
            }
        } catch {
            return .failed(error)
        }
    }
    return .needMore
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPUpgrade(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let (body, chunks) = chunkedInput(data, size, maxStep: 31)
    let whole = run([body])
    let pieces = run(chunks)
    switch (whole, pieces) {
    case (.upgraded(let a, let ra), .upgraded(let b, let rb)):
        precondition(a == b && ra == rb, "chunking changed the parsed head")
    case (.failed(.responseHeadTooLarge), .failed(.responseHeadTooLarge)), (.needMore, .needMore):
        break
    case (.failed(let a), .failed(let b)):
        precondition(a == b, "chunking changed the error")
    default:
        preconditionFailure("chunking changed the outcome: \(whole) vs \(pieces)")
    }
    return 0
}
