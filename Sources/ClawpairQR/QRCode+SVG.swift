// SVG rendering: one white square and one stroked path of module runs.

extension QRCode {
    /// The code as a standalone SVG document (ending in a newline).
    ///
    /// The view box is in modules (margin included) and `width`/`height` are `layout.scale`
    /// pixels per module. Dark modules are drawn as one `<path>` stroked 1 module wide: each
    /// horizontal run of dark modules is a segment along the middle of its row (`h n`), reached
    /// by a move relative to the end of the previous run (`m dx dy`), so a typical setup code
    /// takes about 8 KB. Butt caps end each run exactly on module edges, and
    /// `shape-rendering="crispEdges"` keeps rasterizers from blurring them.
    public func svg(layout: QRLayout = .image) -> String {
        let modulesPerSide = layout.modulesPerSide(self)
        let pixels = layout.pixelsPerSide(self)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(pixels)\" height=\"\(pixels)\" "
            + "viewBox=\"0 0 \(modulesPerSide) \(modulesPerSide)\" shape-rendering=\"crispEdges\">"
            + "<path fill=\"#fff\" d=\"M0 0h\(modulesPerSide)v\(modulesPerSide)H0z\"/>"
            + "<path stroke=\"#000\" stroke-width=\"1\" d=\"M0 .5"
        // The pen starts at the left edge of the first row's middle line; after `h n` it rests at
        // the end of the run it drew.
        var (penX, penY) = (0, 0)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard modules[y * size + x] else { x += 1; continue }
                var end = x + 1
                while end < size && modules[y * size + end] { end += 1 }
                let (pageX, pageY) = (x + layout.margin, y + layout.margin)
                out += "m\(pageX - penX) \(pageY - penY)h\(end - x)"
                (penX, penY) = (pageX + end - x, pageY)
                x = end
            }
        }
        out += "\"/></svg>\n"
        return out
    }
}
