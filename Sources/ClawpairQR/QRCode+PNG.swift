extension QRCode {
    /// The code as a PNG: black modules on white, `layout.scale` pixels per module, a
    /// `layout.margin`-module quiet zone (upstream: scale 6, margin 4), 1-bit palette.
    public func png(layout: QRLayout = .image) throws(QRError) -> [UInt8] {
        // Palette indexes straight from the modules (0 black, 1 white), one row per module row
        // repeated `scale` times.
        let side = layout.pixelsPerSide(self)
        var indexes = [UInt8](repeating: 1, count: side * side)
        let scale = layout.scale
        for y in 0..<size {
            let firstRow = (y + layout.margin) * scale * side
            for x in 0..<size where modules[y * size + x] {
                let left = firstRow + (x + layout.margin) * scale
                for column in left..<(left + scale) { indexes[column] = 0 }
            }
            for copy in 1..<scale {
                let target = firstRow + copy * side
                indexes.withUnsafeMutableBufferPointer { buffer in
                    let base = buffer.baseAddress!
                    (base + target).update(from: base + firstRow, count: side)
                }
            }
        }
        return try PNGCodec.encodeBlackAndWhite(indexes: indexes, width: side, height: side)
    }
}
