/// Splits a fuzz input into a chunk size and the chunks it cuts the rest into, so incremental
/// decoders are fed the same bytes whole and piecemeal. The first byte picks the chunk size
/// (1…`maxStep`); the rest is the body.
public func chunkedInput(_ data: UnsafePointer<UInt8>, _ size: Int, maxStep: Int)
    -> (body: ArraySlice<UInt8>, chunks: [ArraySlice<UInt8>]) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let step = Int(bytes[0]) % maxStep + 1
    let body = bytes[1...]
    var chunks: [ArraySlice<UInt8>] = []
    var index = body.startIndex
    while index < body.endIndex {
        chunks.append(body[index..<min(body.endIndex, index + step)])
        index += step
    }
    return (body, chunks)
}
