// A look at a JPEG's marker structure before libjpeg decodes anything (ITU-T T.81 §B.1): a
// header can claim 39 megapixels over a few kilobytes of data, and libjpeg would then allocate
// and fill the whole frame (seconds and >100 MB) before reporting damage as mere warnings.
//
// Two checks, each only where the structure proves the damage:
// - every Huffman-coded block carries at least one bit (its DC difference code, §F.1.2.1 and
//   §G.1.2.1), so the entropy-coded bytes after the first SOS must number at least
//   blocks / 8 of the component with the most blocks (arithmetic coding, SOF9–SOF15, has no
//   such floor and is not checked);
// - a complete file has an EOI marker after its first scan; without one it was cut short.
// Anything this walk does not understand is left to libjpeg, which reports it itself.

/// The pre-decode checks above.
enum JPEGPrecheck {
    /// The frame header's dimensions and the largest per-component block count.
    struct Frame: Equatable {
        var width: Int
        var height: Int
        var huffman: Bool
        /// Blocks of the component with the most blocks (T.81 §A.1.1).
        var maxBlocks: Int
    }

    /// Throws ``QRError/corruptImage(format:reason:)`` when `bytes` are provably truncated.
    /// The pixel limit comes first, as for every format.
    static func check(_ bytes: [UInt8], limits: ImageLimits = .default) throws(QRError) {
        guard let (frame, scanStart) = walk(bytes) else { return }
        try limits.check(width: frame.width, height: frame.height, format: .jpeg)
        if !hasEOI(bytes, from: scanStart) {
            throw .corruptImage(format: .jpeg, reason: "the file ends early (truncated)")
        }
        let available = bytes.count - scanStart
        if frame.huffman && available < frame.maxBlocks / 8 {
            throw .corruptImage(format: .jpeg, reason: "\(available) bytes of image data cannot hold \(frame.width)×\(frame.height) "
                                + "pixels (at least \(frame.maxBlocks / 8) needed): truncated or a forged header")
        }
    }

    /// The frame and the offset where the first scan's entropy-coded data starts; nil when the
    /// structure is not the usual SOI, segments, SOF, segments, SOS.
    static func walk(_ bytes: [UInt8]) -> (Frame, Int)? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        var frame: Frame?
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte (§B.1.1.2)
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }  // TEM, RSTn: no length
            if marker == 0xD9 { return nil }  // EOI before any scan: libjpeg says so
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            let segment = bytes[(offset + 4)..<(offset + 2 + length)]
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                frame = parseFrame(segment, huffman: marker < 0xC8)
                guard frame != nil else { return nil }
            case 0xDA:
                guard let frame else { return nil }
                return (frame, offset + 2 + length)
            default:
                break
            }
            offset += 2 + length
        }
        return nil
    }

    /// SOFn: precision, height, width, components (id, sampling factors, table).
    static func parseFrame(_ segment: ArraySlice<UInt8>, huffman: Bool) -> Frame? {
        let s = Array(segment)
        guard s.count >= 6 else { return nil }
        let height = Int(s[1]) << 8 | Int(s[2])
        let width = Int(s[3]) << 8 | Int(s[4])
        let count = Int(s[5])
        guard count >= 1, s.count >= 6 + 3 * count, width > 0, height > 0 else { return nil }  // height 0: DNL, not checked
        var factors: [(h: Int, v: Int)] = []
        for i in 0..<count {
            let hv = s[6 + 3 * i + 1]
            let (h, v) = (Int(hv >> 4), Int(hv & 0x0F))
            guard (1...4).contains(h), (1...4).contains(v) else { return nil }
            factors.append((h, v))
        }
        let hMax = factors.map(\.h).max()!, vMax = factors.map(\.v).max()!
        // Component blocks: ceil(ceil(X · h / hMax) / 8) × ceil(ceil(Y · v / vMax) / 8) (§A.1.1).
        let blocks = factors.map { f in
            ((width * f.h + hMax - 1) / hMax + 7) / 8 * (((height * f.v + vMax - 1) / vMax + 7) / 8)
        }
        return Frame(width: width, height: height, huffman: huffman, maxBlocks: blocks.max()!)
    }

    /// Whether an EOI marker (FF D9) follows `start`: inside entropy-coded data an FF byte is
    /// always followed by 00 or a marker (§B.1.1.5), so FF D9 there is the real end.
    static func hasEOI(_ bytes: [UInt8], from start: Int) -> Bool {
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == 0xFF && bytes[i + 1] == 0xD9 { return true }
            i += 1
        }
        return false
    }
}
