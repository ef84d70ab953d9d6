import ClawpairQR
import Foundation
import Testing

/// Terminal text, SVG and PNG renderings: exact layout, and proof that each one scans.
@Suite struct QRRenderTests {
    static let code = try! QRCode(encoding: QRTestSupport.sampleCode)

    @Test("terminal text reads back to exactly the laid-out modules", arguments: QRTerminalStyle.allCases)
    func terminalModules(style: QRTerminalStyle) throws {
        for margin in [0, 1, 2, 4] {
            let layout = try QRLayout(scale: 1, margin: margin)
            let text = Self.code.terminalText(style: style, layout: layout)
            var expected = QRTestSupport.page(Self.code, margin: margin)
            if style != .ascii && expected.count % 2 == 1 {
                expected.append([Bool](repeating: false, count: expected.count))  // the missing half row is light
            }
            #expect(try TerminalReader.modules(text, style: style) == expected, "\(style) margin \(margin)")
            #expect(text.split(separator: "\n").count == Self.code.terminalLines(style: style, layout: layout))
        }
    }

    @Test("terminal text is proven scannable: drawn as a screen shows it, zbar reads the code", arguments: QRTerminalStyle.allCases)
    func terminalScans(style: QRTerminalStyle) throws {
        for code in [Self.code, try QRCode(encoding: QRTestSupport.shortCode)] {
            let text = code.terminalText(style: style)
            let screen = try TerminalReader.screen(text, style: style)
            let found = try QRScanner(tryInverted: false).scan(screen)
            let payload = String(decoding: code == Self.code ? Array(QRTestSupport.sampleCode.utf8) : Array(QRTestSupport.shortCode.utf8), as: UTF8.self)
            #expect(found.map(\.text) == [payload], "\(style), version \(code.version)")
        }
    }

    @Test("terminal default (2-module margin) scans with zbarimg too, from a PGM of the screen")
    func terminalScansWithZbarimg() throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for style in QRTerminalStyle.allCases {
            // Every style shows dark modules dark on screen; utf8 does it by painting the light ones.
            let screen = try TerminalReader.screen(Self.code.terminalText(style: style), style: style)
            let file = directory.appendingPathComponent("\(style.rawValue).pgm")
            try QRTestSupport.pgm(screen).write(to: file)
            #expect(try QRTestSupport.zbarimg(file.path) == [QRTestSupport.sampleCode], "\(style)")
        }
    }

    @Test("ansi lines are upstream's compact form: ESC[47m ESC[30m … ESC[0m, half blocks on dark modules")
    func ansiShape() throws {
        let layout = try QRLayout(scale: 1, margin: 1)
        let text = Self.code.terminalText(style: .ansi, layout: layout)
        let lines = text.split(separator: "\n")
        #expect(lines.count == (Self.code.size + 2 + 1) / 2)
        #expect(lines.allSatisfy { $0.hasPrefix("\u{1B}[47m\u{1B}[30m") && $0.hasSuffix("\u{1B}[0m") })
        // The first line is the light quiet zone over the finder patterns' top edge: ▄ under dark modules.
        #expect(lines[0].dropFirst(10).dropLast(4).first == " ")
        #expect(lines[0].dropFirst(10).dropLast(4).dropFirst().first == "\u{2584}")
    }

    @Test("scale repeats modules in terminal text")
    func terminalScale() throws {
        let layout = try QRLayout(scale: 2, margin: 2)
        let text = Self.code.terminalText(style: .utf8Inverted, layout: layout)
        let rows = try TerminalReader.modules(text, style: .utf8Inverted)
        let page = QRTestSupport.page(Self.code, margin: 2)
        #expect(rows.count == page.count * 2)
        #expect(rows.enumerated().allSatisfy { y, row in row.enumerated().allSatisfy { x, dark in dark == page[y / 2][x / 2] } })
        #expect(Self.code.terminalColumns(style: .utf8Inverted, layout: layout) == page.count * 2)
    }

    @Test("PNG: 1-bit palette, upstream scale 6 and margin 4, pixels exactly the modules")
    func pngLayout() throws {
        let png = try Self.code.png()
        // IHDR: width, height (big-endian), bit depth 1, colour type 3 (palette).
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        let side = (Self.code.size + 8) * 6
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == side)
        #expect(png[24] == 1 && png[25] == 3, "bit depth \(png[24]), colour type \(png[25])")
        let loaded = try ImageLoader.load(png)
        #expect(loaded.format == .png)
        #expect(loaded.image == Self.code.image(layout: .image))
    }

    @Test("PNG and SVG output are read by independent tools (zbarimg; rsvg-convert then zbarimg)")
    func independentTools() throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for level in QRErrorCorrection.allCases {
            let code = try QRCode(encoding: QRTestSupport.sampleCode, errorCorrection: level)
            let png = directory.appendingPathComponent("\(level.rawValue).png")
            try Data(try code.png()).write(to: png)
            #expect(try QRTestSupport.zbarimg(png.path) == [QRTestSupport.sampleCode], "PNG at \(level.rawValue)")

            let svg = directory.appendingPathComponent("\(level.rawValue).svg")
            try Data(code.svg().utf8).write(to: svg)
            let raster = directory.appendingPathComponent("\(level.rawValue)-svg.png")
            let converted = try QRTestSupport.run("/usr/bin/rsvg-convert", ["-o", raster.path, svg.path])
            #expect(converted.status == 0, "rsvg-convert: \(converted.stderr)")
            #expect(try QRTestSupport.zbarimg(raster.path) == [QRTestSupport.sampleCode], "SVG at \(level.rawValue)")
        }
    }

    @Test("SVG: size attributes, white background, one compact path, rasterizes to exactly the modules")
    func svgShape() throws {
        let layout = try QRLayout(scale: 3, margin: 4)
        let svg = Self.code.svg(layout: layout)
        let side = Self.code.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side * 3)\" height=\"\(side * 3)\" viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.hasSuffix("\"/></svg>\n"))
        #expect(svg.components(separatedBy: "<path").count == 3)
        #expect(svg.contains("<path fill=\"#fff\" d=\"M0 0h\(side)v\(side)H0z\"/><path stroke=\"#000\" stroke-width=\"1\" d=\"M0 .5m"))
        #expect(svg.utf8.count < 10_000, "\(svg.utf8.count) bytes")

        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("code.svg")
        try Data(svg.utf8).write(to: file)
        let raster = directory.appendingPathComponent("code.png")
        let converted = try QRTestSupport.run("/usr/bin/rsvg-convert", ["-o", raster.path, file.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        let image = try ImageLoader.load(Array(try Data(contentsOf: raster))).image
        #expect(image.width == side * 3 && image.height == side * 3)
        // Sample each module's centre pixel.
        let page = QRTestSupport.page(Self.code, margin: 4)
        var wrong = 0
        for y in 0..<side {
            for x in 0..<side where (image[x * 3 + 1, y * 3 + 1] < 128) != page[y][x] { wrong += 1 }
        }
        #expect(wrong == 0)
    }
}
