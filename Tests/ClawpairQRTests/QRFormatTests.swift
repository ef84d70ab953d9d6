import ClawpairCore
import ClawpairQR
import Testing

/// `QRFormat` (choosing a format from an output path) and `QRCode.rendering` (one drawing with
/// its size), as `clawpair qr render` and `clawpair qr` use them.
@Suite struct QRFormatTests {
    @Test func formatFromTheOutputPath() {
        #expect(QRFormat.forOutput(nil, otherwise: .utf8) == .utf8)
        #expect(QRFormat.forOutput("pair.PNG", otherwise: .utf8) == .png)
        #expect(QRFormat.forOutput("dir/pair.svg", otherwise: .png) == .svg)
        #expect(QRFormat.forOutput("pair.txt", otherwise: .png) == .png)
        #expect(QRFormat.forOutput("png", otherwise: .ascii) == .ascii)
        #expect(QRFormat.allCases.filter(\.isImage) == [.png, .svg])
        #expect(QRFormat.allCases.compactMap(\.terminalStyle) == [.utf8, .utf8Inverted, .ansi, .ascii])
        #expect(QRFormat.png.defaultLayout == .image && QRFormat.ansi.defaultLayout == .terminal)
    }

    @Test("every format's rendering is what the single-format calls draw", arguments: QRFormat.allCases)
    func renderingMatchesTheDrawing(format: QRFormat) throws {
        let code = try QRCode(encoding: QRTestSupport.sampleCode)
        let layout = try QRLayout(scale: 2, margin: 3)
        let drawn = try code.rendering(format, layout: layout)
        #expect(drawn.format == format)
        if let style = format.terminalStyle {
            let text = code.terminalText(style: style, layout: layout)
            #expect(drawn.text == text && drawn.bytes == Array(text.utf8))
            #expect(drawn.width == code.terminalColumns(style: style, layout: layout))
            #expect(drawn.height == code.terminalLines(style: style, layout: layout))
        } else {
            let side = layout.pixelsPerSide(code)
            #expect(drawn.width == side && drawn.height == side)
            if format == .svg {
                #expect(drawn.text == code.svg(layout: layout) && drawn.bytes == Array(code.svg(layout: layout).utf8))
            } else {
                let png = try code.png(layout: layout)
                #expect(drawn.text == nil && drawn.bytes == png)
            }
        }
        // Without a layout, the format's default.
        let byDefault = try code.rendering(format)
        #expect(try byDefault == code.rendering(format, layout: format.defaultLayout))
    }

    @Test("an output name that promises another image format is misleading; png/svg names and other names are not")
    func misnamedOutput() {
        #expect(QRFormat.utf8.misnamedOutput("pair.jpg") == "pair.jpg names a JPEG image, but this would write utf8 text into it")
        #expect(QRFormat.svg.misnamedOutput("dir/pair.PNG") == "dir/pair.PNG names a PNG image, but this would write SVG into it")
        #expect(QRFormat.png.misnamedOutput("x\u{1B}.gif")
                == "\(TerminalText.sanitize("x\u{1B}.gif")) names a GIF image, but this would write PNG into it")
        #expect(QRFormat.png.misnamedOutput("pair.png") == nil && QRFormat.svg.misnamedOutput("pair.svgz") == nil)
        #expect(QRFormat.ascii.misnamedOutput("pair.txt") == nil && QRFormat.ansi.misnamedOutput("dir.png/pair") == nil)
    }
}
