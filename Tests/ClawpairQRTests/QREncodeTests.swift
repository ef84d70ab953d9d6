import ClawpairQR
import Foundation
import Testing

/// libqrencode through `QRCode`: versions, levels, capacity limits, thread safety.
@Suite struct QREncodeTests {
    @Test("smallest version that fits, per error-correction level")
    func versionsPerLevel() throws {
        // 140 bytes in byte mode (ISO/IEC 18004 Table 7): version 7 at L (capacity 154), 8 at M (152),
        // 10 at Q (151), 12 at H (155); one version less holds 134, 122, 132 and 136.
        let payload = [UInt8](repeating: UInt8(ascii: "A"), count: 140)
        for (level, version) in [(QRErrorCorrection.low, 7), (.medium, 8), (.quartile, 10), (.high, 12)] {
            let code = try QRCode(encoding: payload, errorCorrection: level)
            #expect(code.version == version, "level \(level.rawValue)")
            #expect(code.size == 17 + 4 * version)
            #expect(code.errorCorrection == level)
        }
    }

    @Test("the default level is M")
    func defaultLevel() throws {
        #expect(try QRCode(encoding: "hello").errorCorrection == .medium)
    }

    @Test("finder patterns sit in three corners")
    func finderPatterns() throws {
        let code = try QRCode(encoding: QRTestSupport.sampleCode)
        let n = code.size
        for (ox, oy) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            // Outer ring dark, next ring light, 3×3 centre dark.
            #expect((0..<7).allSatisfy { code.isDark(x: ox + $0, y: oy) && code.isDark(x: ox, y: oy + $0) })
            #expect(!code.isDark(x: ox + 1, y: oy + 1))
            #expect(code.isDark(x: ox + 3, y: oy + 3))
        }
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: n, y: n), "outside the symbol is light")
    }

    @Test("capacity: the largest payload fits version 40, one byte more is a clear error", arguments: QRErrorCorrection.allCases)
    func capacity(level: QRErrorCorrection) throws {
        let fits = try QRCode(encoding: [UInt8](repeating: 0x61, count: level.maxBytes), errorCorrection: level)
        #expect(fits.version == 40)
        #expect(throws: QRError.payloadTooLong(bytes: level.maxBytes + 1, maximum: level.maxBytes, errorCorrection: level)) {
            try QRCode(encoding: [UInt8](repeating: 0x61, count: level.maxBytes + 1), errorCorrection: level)
        }
        let error = QRError.payloadTooLong(bytes: 3000, maximum: level.maxBytes, errorCorrection: level)
        #expect(error.message == "3000 bytes do not fit in a QR code with error correction \(level.rawValue) (at most \(level.maxBytes) bytes)")
    }

    @Test("empty payloads are refused")
    func empty() {
        #expect(throws: QRError.emptyPayload) { try QRCode(encoding: "") }
    }

    @Test("bytes that are not text (NUL, invalid UTF-8) encode and scan back unchanged")
    func binaryPayload() throws {
        let payload: [UInt8] = [0, 1, 2, 0xFF, 0xFE, 0x80, 0x41, 0]
        let code = try QRCode(encoding: payload)
        let found = try QRScanner().scan(code.image())
        #expect(found == [ScannedCode(payload: payload)])
    }

    @Test("UTF-8 text comes back byte for byte")
    func unicodePayload() throws {
        let text = "Grüße ✓ 日本語 🦞"
        let found = try QRScanner().scan(try QRCode(encoding: text).image())
        #expect(found.map(\.text) == [text])
    }

    /// libqrencode is not reliably thread-safe: the module serializes it. Encode the same inputs
    /// from many tasks at once and compare with a serial run.
    @Test("parallel encodes agree with serial ones")
    func parallelEncodes() async throws {
        let inputs = (0..<48).map { "parallel-\($0)-" + String(repeating: "x", count: $0 * 7) }
        let levels = QRErrorCorrection.allCases
        let serial = try inputs.enumerated().map { try QRCode(encoding: $1, errorCorrection: levels[$0 % 4]) }
        let parallel = try await withThrowingTaskGroup(of: (Int, QRCode).self) { group in
            for (index, input) in inputs.enumerated() {
                group.addTask { (index, try QRCode(encoding: input, errorCorrection: levels[index % 4])) }
            }
            var results = [QRCode?](repeating: nil, count: inputs.count)
            for try await (index, code) in group { results[index] = code }
            return results
        }
        for index in inputs.indices {
            #expect(parallel[index] == serial[index], "input \(index)")
        }
    }

    @Test("layouts check their ranges")
    func layoutRanges() throws {
        #expect(throws: QRError.invalidParameter(name: "scale", value: 0, allowed: 1...32)) { try QRLayout(scale: 0, margin: 4) }
        #expect(throws: QRError.invalidParameter(name: "margin", value: 17, allowed: 0...16)) { try QRLayout(scale: 1, margin: 17) }
        #expect(QRLayout.image == (try QRLayout(scale: 6, margin: 4)))
        #expect(QRLayout.terminal == (try QRLayout(scale: 1, margin: 2)))
    }
}
