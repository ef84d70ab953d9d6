@testable import ClawpairQR
import ClawpairTestSupport
import Foundation
import Testing

/// Image input: format sniffing, every PNM variant, size limits checked before decoding, and
/// malformed or truncated PNG, JPEG and PNM files that must fail with a clear error, never a crash.
@Suite struct ImageLoaderTests {
    /// A 5×3 test pattern: black, white and mid-gray pixels.
    static let pattern: [UInt8] = [0, 255, 128, 255, 0,
                                   255, 0, 255, 0, 255,
                                   10, 20, 30, 40, 50]

    @Test("format sniffing uses magic bytes, not names")
    func sniffing() {
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat.sniff(Array("P5\n1 1\n255\n\0".utf8)) == .pnm)
        #expect(ImageFormat.sniff(Array("P6 1 1 255 xyz".utf8)) == .pnm)
        #expect(ImageFormat.sniff(Array("P7\nWIDTH".utf8)) == nil)
        #expect(ImageFormat.sniff(Array("Pixel".utf8)) == nil)
        #expect(ImageFormat.sniff([]) == nil)
    }

    @Test("unsupported formats are named in the error", arguments: [
        ("GIF89a....", "GIF"), ("BM......", "BMP"), ("RIFF\0\0\0\0WEBPVP8 ", "WebP"), ("<svg xmlns=", "SVG"),
        ("\u{FEFF}\n  <svg width=\"10\"", "SVG"),
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- Created with Inkscape -->\n<svg\n   width=", "SVG"),
        ("<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg ", "SVG"),
    ])
    func unsupported(bytes: String, name: String) {
        #expect(throws: QRError.unsupportedImage(detected: name)) { try ImageLoader.load(Array(bytes.utf8)) }
        #expect(throws: QRError.unsupportedImage(detected: nil)) { try ImageLoader.load(Array("hello".utf8)) }
    }

    @Test("SVG gets its own message: rasterize it first, with the command")
    func svgMessage() {
        let error = QRError.unsupportedImage(detected: "SVG")
        #expect(error.message == "SVG is not supported: rasterize it first, e.g. with rsvg-convert")
        #expect(error.hint == "rasterize it to PNG first, e.g. with rsvg-convert IMAGE.svg")
        // XML that is not SVG, and SVG text too far in to be sniffed, are not called SVG.
        #expect(throws: QRError.unsupportedImage(detected: nil)) {
            try ImageLoader.load(Array("<?xml version=\"1.0\"?><html><body/></html>".utf8))
        }
        #expect(throws: QRError.unsupportedImage(detected: nil)) {
            try ImageLoader.load(Array(("<!--" + String(repeating: " ", count: 1100) + "--><svg>").utf8))
        }
    }

    @Test("PNM: plain and raw PBM, PGM and PPM, 8 and 16 bits, comments")
    func pnmVariants() throws {
        func check(_ bytes: [UInt8], _ label: String, pixels: [UInt8] = Self.pattern) throws {
            let loaded = try ImageLoader.load(bytes)
            #expect(loaded.format == .pnm, "\(label)")
            #expect(loaded.image == GrayImage(width: 5, height: 3, pixels: pixels), "\(label)")
        }
        // P5 and P2 with the pattern.
        try check(Array("P5\n# made by a test\n5 3\n255\n".utf8) + Self.pattern, "P5")
        try check(Array("P2 5 3 255\n".utf8) + Array(Self.pattern.map(String.init).joined(separator: " ").utf8), "P2")
        // 16-bit P5: each sample times 257 is the same gray.
        try check(Array("P5 5 3 65535\n".utf8) + Self.pattern.flatMap { [$0, $0] }, "P5/16")
        // maxval 15: samples scaled to 0...255.
        try check(Array("P5 5 3 15\n".utf8) + Self.pattern.map { $0 / 17 }, "P5/15", pixels: Self.pattern.map { $0 / 17 * 17 })
        // P6 and P3 with R = G = B.
        try check(Array("P6\n5 3\n255\n".utf8) + Self.pattern.flatMap { [$0, $0, $0] }, "P6")
        try check(Array("P3\n5 3\n255\n".utf8) + Array(Self.pattern.map { "\($0) \($0) \($0)" }.joined(separator: "\n").utf8), "P3")
        // PBM: 1 is black.
        let bits: [UInt8] = [1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1]
        let bitPixels = bits.map { $0 == 1 ? UInt8(0) : 255 }
        try check(Array("P1\n5 3\n10001 0 1 0 1 0\n11111".utf8), "P1", pixels: bitPixels)
        try check(Array("P4\n5 3\n".utf8) + [0b1000_1000, 0b0101_0000, 0b1111_1000], "P4", pixels: bitPixels)
        // Colour luma: pure red, green, blue.
        let rgb = try ImageLoader.load(Array("P6 3 1 255\n".utf8) + [255, 0, 0, 0, 255, 0, 0, 0, 255]).image
        #expect(rgb.pixels == [76, 150, 29])
    }

    @Test("PNG: colour, alpha (composited onto white) and 16-bit images decode to gray")
    func pngVariants() throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("pattern.pgm")
        try QRTestSupport.pgm(GrayImage(width: 5, height: 3, pixels: Self.pattern)).write(to: source)
        for (name, options) in [("rgb", ["-type", "TrueColor"]), ("gray16", ["-depth", "16"]), ("palette", ["-type", "Palette"])] {
            let out = directory.appendingPathComponent("\(name).png")
            let made = try QRTestSupport.run("/usr/bin/convert", [source.path] + options + ["PNG:\(out.path)"])
            #expect(made.status == 0, "\(made.stderr)")
            let loaded = try ImageLoader.load(Array(try Data(contentsOf: out)))
            let worst = zip(loaded.image.pixels, Self.pattern).map { abs(Int($0) - Int($1)) }.max() ?? 999
            #expect(loaded.image.width == 5 && worst <= 2, "\(name): \(loaded.image.pixels)")
        }
        // Fully transparent black becomes white.
        let alpha = directory.appendingPathComponent("alpha.png")
        let made = try QRTestSupport.run("/usr/bin/convert", ["-size", "4x4", "xc:rgba(0,0,0,0)", "PNG32:\(alpha.path)"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try ImageLoader.load(Array(try Data(contentsOf: alpha))).image.pixels.allSatisfy { $0 == 255 })
    }

    @Test("JPEG: gray, colour and progressive files decode to gray")
    func jpegVariants() throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("qr.png")
        try Data(try QRCode(encoding: QRTestSupport.shortCode).png()).write(to: source)
        for (name, options) in [("gray", ["-colorspace", "Gray"]), ("rgb", ["-type", "TrueColor"]),
                                ("progressive", ["-interlace", "Plane"])] {
            let out = directory.appendingPathComponent("\(name).jpg")
            let made = try QRTestSupport.run("/usr/bin/convert", [source.path] + options + ["-quality", "90", "JPEG:\(out.path)"])
            #expect(made.status == 0, "\(made.stderr)")
            let loaded = try ImageLoader.load(Array(try Data(contentsOf: out)))
            #expect(loaded.format == .jpeg && loaded.warnings.isEmpty, "\(name)")
            #expect(try QRScanner().scan(loaded.image).map(\.text) == [QRTestSupport.shortCode], "\(name)")
        }
    }

    @Test("images over the pixel limit are refused from the header alone")
    func pixelLimit() throws {
        // PNM: the header says 100000×100000; there is no raster at all.
        #expect(throws: QRError.imageTooLarge(width: 100_000, height: 100_000, maxPixels: ImageLimits.defaultMaxPixels)) {
            try ImageLoader.load(Array("P5 100000 100000 255\n".utf8))
        }
        // PNG: a valid signature and IHDR for 20000×20000, then nothing.
        let png = Self.pngHeader(width: 20_000, height: 20_000)
        #expect(throws: QRError.imageTooLarge(width: 20_000, height: 20_000, maxPixels: ImageLimits.defaultMaxPixels)) {
            try ImageLoader.load(png)
        }
        // JPEG: a real file with its frame header patched to 30000×30000.
        var jpeg = try Self.smallJPEG()
        let sof = try #require(Self.frameHeaderOffset(jpeg))
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0x75, 0x30, 0x75, 0x30])
        #expect(throws: QRError.imageTooLarge(width: 30_000, height: 30_000, maxPixels: ImageLimits.defaultMaxPixels)) {
            try ImageLoader.load(jpeg)
        }
        // A smaller limit applies as given.
        let limits = ImageLimits(maxPixels: 100)
        #expect(throws: QRError.imageTooLarge(width: 11, height: 10, maxPixels: 100)) {
            try ImageLoader.load(Array("P5 11 10 255\n".utf8) + [UInt8](repeating: 0, count: 110), limits: limits)
        }
        #expect(throws: QRError.inputTooLarge(bytes: 21, limit: 20)) {
            try ImageLoader.load(Array("P5 1 1 255\n".utf8) + [UInt8](repeating: 0, count: 10), limits: ImageLimits(maxFileBytes: 20))
        }
    }

    @Test("malformed PNM headers and rasters give clear errors", arguments: [
        ("P5 ", "the data ends before the width"),
        ("P5 x 3 255\n", "the width is not a number"),
        ("P5 1234567890 3 255\n", "the width has more than 9 digits"),
        ("P5 5 3 0\n", "maxval 0 is not between 1 and 65535"),
        ("P5 5 3 70000\n", "maxval 70000 is not between 1 and 65535"),
        ("P5 0 3 255\n", "it has no pixels (0×3)"),
        ("P5 2 2 255", "the data ends before the raster"),
        ("P5 2 2 255\nab", "the raster has 2 of 4 bytes (truncated)"),
        ("P6 2 2 255\nabcdefghijk", "the raster has 11 of 12 bytes (truncated)"),
        ("P4 9 2\n\u{1}", "the raster has 1 of 4 bytes (truncated)"),
        ("P2 2 2 255 1 2 3", "the data ends after 3 of 4 pixels (truncated)"),
        ("P2 2 1 100 1 200", "sample 200 of pixel 1 is above maxval 100"),
        ("P1 2 1 0 2", "pixel 1 of a plain PBM is not 0 or 1"),
        ("P5 1 1 100\n\u{7F}", "sample 127 of pixel 0 is above maxval 100"),
    ])
    func malformedPNM(input: String, reason: String) {
        #expect(throws: QRError.corruptImage(format: .pnm, reason: reason)) { try ImageLoader.load(Array(input.utf8)) }
    }

    /// Every prefix and many single-byte corruptions of real PNG, JPEG and PNM files: each either
    /// decodes or throws a `QRError`; nothing traps, exits or prints.
    @Test("truncated and corrupted PNG, JPEG and PNM files never crash")
    func truncatedAndCorrupted() throws {
        let code = try QRCode(encoding: QRTestSupport.shortCode)
        let png = try code.png(layout: QRLayout(scale: 2, margin: 4))
        let jpeg = try Self.smallJPEG()
        let pnm = Array(QRTestSupport.pgm(code.image(layout: try QRLayout(scale: 1, margin: 1))))
        for (name, file, format) in [("PNG", png, ImageFormat.png), ("JPEG", jpeg, .jpeg), ("PNM", pnm, .pnm)] {
            var failures = 0
            for length in 0..<file.count {
                do {
                    _ = try ImageLoader.load(Array(file.prefix(length)))
                } catch {
                    failures += 1
                    if length >= 3, case .corruptImage(let reported, let reason) = error {
                        #expect(reported == format && !reason.isEmpty, "\(name) cut at \(length)")
                    }
                }
            }
            // Only the last few bytes (PNG IEND, JPEG EOI) may be missing for a file to still decode.
            #expect(failures >= file.count - 12, "\(name): \(failures) of \(file.count) prefixes failed")
            var generator = SeededGenerator(seed: 0x5EED)
            for _ in 0..<400 {
                var damaged = file
                let position = Int(generator.next() % UInt64(file.count))
                damaged[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                _ = try? ImageLoader.load(damaged)
            }
        }
    }

    @Test("a JPEG cut short in its scan data is an error, not a gray guess")
    func truncatedJPEGScan() throws {
        let jpeg = try Self.smallJPEG()
        #expect(throws: QRError.corruptImage(format: .jpeg, reason: "the file ends early (truncated)")) {
            try ImageLoader.load(Array(jpeg.prefix(jpeg.count * 2 / 3)))
        }
    }

    @Test("a JPEG header claiming 6000×6600 over a few KiB of data is damaged, found before decoding")
    func forgedJPEGDimensions() throws {
        var jpeg = try Self.smallJPEG()
        let sof = try #require(Self.frameHeaderOffset(jpeg))
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0x19, 0xC8, 0x17, 0x70])  // height 6600, width 6000
        #expect(throws: QRError.self) { try ImageLoader.load(jpeg) }
        do {
            _ = try ImageLoader.load(jpeg)
        } catch .corruptImage(let format, let reason) {
            #expect(format == .jpeg)
            #expect(reason.contains("cannot hold 6000×6600 pixels"), "\(reason)")
        } catch {
            Issue.record("\(error)")
        }
        // The precheck alone says so: libjpeg is never asked to allocate the frame.
        #expect(throws: QRError.self) { try JPEGPrecheck.check(jpeg) }
        #expect(throws: Never.self) { try JPEGPrecheck.check(try Self.smallJPEG()) }
    }

    // MARK: - Fixtures

    /// A JPEG of the short code made by ImageMagick.
    static func smallJPEG() throws -> [UInt8] {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("qr.pgm")
        try QRTestSupport.pgm(try QRCode(encoding: QRTestSupport.shortCode).image(layout: QRLayout(scale: 2, margin: 4))).write(to: source)
        let out = directory.appendingPathComponent("qr.jpg")
        let made = try QRTestSupport.run("/usr/bin/convert", [source.path, "-quality", "80", "JPEG:\(out.path)"])
        guard made.status == 0 else { throw ToolError("convert: \(made.stderr)") }
        return Array(try Data(contentsOf: out))
    }

    /// The offset of the SOF0/SOF2 marker in a JPEG.
    static func frameHeaderOffset(_ jpeg: [UInt8]) -> Int? {
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            if marker == 0xC0 || marker == 0xC2 { return offset }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return nil
    }

    /// A PNG signature, an IHDR chunk (8-bit gray) for `width`×`height` and an empty IDAT, with
    /// correct CRCs: libpng reads the header up to the first IDAT.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be(UInt32(data.count)) + body + be(crc32(body))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 0, 0, 0, 0])
            + chunk("IDAT", [])
    }

    /// CRC-32 (ISO 3309, as PNG uses), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

