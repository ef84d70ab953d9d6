extension QRCode {
    /// The code as a PNG: black modules on white, `layout.scale` pixels per module, a
    /// `layout.margin`-module quiet zone (upstream: scale 6, margin 4), 1-bit palette.
    public func png(layout: QRLayout = .image) throws(QRError) -> [UInt8] {
        // One packed 1-bit row per module row of the page (margins included), which the writer
        // repeats `scale` times: for upstream's scale 6 that is a sixth of the rows and an eighth
        // of the bytes of a byte-per-pixel image.
        let side = layout.pixelsPerSide(self)
        let rowBytes = (side + 7) / 8
        let pageRows = layout.modulesPerSide(self)
        var rows = [UInt8](repeating: 0xFF, count: pageRows * rowBytes)
        // Bits past the last pixel of a row are padding; keep them 0 so the output is deterministic.
        let padding = rowBytes * 8 - side
        let lastByteMask: UInt8 = padding == 0 ? 0xFF : ~UInt8((1 << padding) - 1)
        let scale = layout.scale
        rows.withUnsafeMutableBufferPointer { buffer in
            for pageRow in 0..<pageRows {
                let row = pageRow * rowBytes
                buffer[row + rowBytes - 1] &= lastByteMask
                let y = pageRow - layout.margin
                guard y >= 0, y < size else { continue }
                for x in 0..<size where modules[y * size + x] {
                    let left = (x + layout.margin) * scale
                    for pixel in left..<(left + scale) {
                        buffer[row + (pixel >> 3)] &= ~(UInt8(0x80) >> UInt8(pixel & 7))
                    }
                }
            }
        }
        return try PNGCodec.encodeBilevel(rows: rows, rowBytes: rowBytes, width: side, repeats: scale)
    }
}
