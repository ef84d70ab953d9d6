extension QRCode {
    /// The code as a PNG: black modules on white, `layout.scale` pixels per module, a
    /// `layout.margin`-module quiet zone (upstream: scale 6, margin 4), 1-bit palette.
    public func png(layout: QRLayout = .image) throws(QRError) -> [UInt8] {
        try PNGCodec.encodeBlackAndWhite(image(layout: layout))
    }
}
