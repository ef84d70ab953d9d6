import ClawpairTestSupport

/// Splits `bytes` into random-sized chunks (1…max), as a socket might deliver them.
func randomChunks(_ bytes: [UInt8], max: Int, using rng: inout SeededGenerator) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var i = 0
    while i < bytes.count {
        let n = Int.random(in: 1...max, using: &rng)
        chunks.append(Array(bytes[i..<min(bytes.count, i + n)]))
        i += n
    }
    return chunks
}

/// Bytes from hex digits, whitespace ignored: `hex("81 05")`.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace }.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
}
