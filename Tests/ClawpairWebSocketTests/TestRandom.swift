/// A seeded generator (SplitMix64) so property tests are reproducible; the seed is in each failure.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Splits `bytes` into random-sized chunks (1…max), as a socket might deliver them.
func randomChunks(_ bytes: [UInt8], max: Int, using rng: inout SplitMix64) -> [[UInt8]] {
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
