// The only file that calls libpng. Reading uses libpng's simplified `png_image` API, which traps
// libpng's longjmp errors inside libpng itself and reports them through `png_image.message`.
// Writing uses the row-by-row writer through CImageShims, where each call runs inside a C
// setjmp: the simplified writer only takes a byte per pixel, which for a 1-bit QR image means
// spreading every pixel out and having libpng pack it back, most of the cost of the PNG.

internal import CImageShims
internal import CPNG

/// PNG reading and writing through libpng.
enum PNGCodec {
    /// Decodes a PNG to gray. The header is read first and the size checked against `limits`
    /// before any pixel is decoded; transparency is composited onto white.
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(QRError) -> LoadedImage {
        // libpng keeps the memory pointer from begin_read until finish_read: one borrow for both.
        try bytes.withUnsafeBufferPointer { memory throws(QRError) -> LoadedImage in
            var image = png_image()
            image.version = UInt32(PNG_IMAGE_VERSION)
            defer { png_image_free(&image) }
            guard png_image_begin_read_from_memory(&image, memory.baseAddress, memory.count) != 0 else {
                throw .corruptImage(format: .png, reason: message(image))
            }
            let (width, height) = (Int(image.width), Int(image.height))
            try limits.check(width: width, height: height, format: .png)
            image.format = UInt32(PNG_FORMAT_GRAY)
            var pixels = [UInt8](repeating: 255, count: width * height)
            var white = png_color(red: 255, green: 255, blue: 255)
            let finished = pixels.withUnsafeMutableBytes { buffer in
                png_image_finish_read(&image, &white, buffer.baseAddress, Int32(width), nil)
            }
            guard finished != 0 else { throw .corruptImage(format: .png, reason: message(image)) }
            let warnings = image.warning_or_error & UInt32(PNG_IMAGE_WARNING) != 0 ? [message(image)] : []
            return LoadedImage(format: .png, image: GrayImage(width: width, height: height, pixels: pixels),
                               warnings: warnings)
        }
    }

    /// zlib settings for 1-bit images. Level 3 is what libpng's own "fast" mode uses: rows repeat
    /// `scale` times and runs are long, so harder levels cost several times the instructions for a
    /// file about a fifth smaller. A 4 KiB window (and a hash table to match) still reaches the
    /// previous row of the widest image these write (837 bytes), yet keeps zlib's working memory to
    /// a few pages instead of 256 KiB of fresh pages, each one a page fault in a short-lived process.
    static let bilevelCompressionLevel: Int32 = 3
    static let bilevelWindowBits: Int32 = 12
    static let bilevelMemoryLevel: Int32 = 4

    /// Encodes a two-colour image as a 1-bit palette PNG (index 0 black, 1 white), the smallest
    /// PNG form for QR images. `rows` holds `rows.count / rowBytes` packed rows, as PNG stores
    /// them (eight pixels a byte, the leftmost in the high bit, 1 for white); each is written
    /// `repeats` times, so the image is `width` by `rows.count / rowBytes * repeats` pixels.
    static func encodeBilevel(rows: [UInt8], rowBytes: Int, width: Int, repeats: Int) throws(QRError) -> [UInt8] {
        let distinctRows = rowBytes > 0 ? rows.count / rowBytes : 0
        let (height, overflow) = distinctRows.multipliedReportingOverflow(by: repeats)
        guard width > 0, repeats > 0, distinctRows > 0, !overflow, rowBytes == (width + 7) / 8,
              rows.count == distinctRows * rowBytes, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .pngWriteFailed("an image of \(width) pixels by \(distinctRows)×\(repeats) rows cannot be written")
        }
        // Deflate hardly ever grows QR rows; the raw size (a filter byte per row) plus an eighth and
        // room for the chunks bounds the output.
        let raw = height * (rowBytes + 1)
        guard let writer = CImageShims_png_create_write_struct(raw + raw / 8 + 4096) else {
            throw .pngWriteFailed("libpng could not start (out of memory?)")
        }
        defer { CImageShims_png_destroy_write_struct(writer) }
        func failure(_ step: String) -> QRError {
            let text = String(cString: CImageShims_png_message(writer))
            return .pngWriteFailed(text.isEmpty ? "\(step) failed" : text)
        }
        guard CImageShims_png_set_IHDR(writer, UInt32(width), UInt32(height), 1, PNG_COLOR_TYPE_PALETTE) == 0 else {
            throw failure("png_set_IHDR")
        }
        let palette = [png_color(red: 0, green: 0, blue: 0), png_color(red: 255, green: 255, blue: 255)]
        guard CImageShims_png_set_PLTE(writer, palette, 2) == 0 else { throw failure("png_set_PLTE") }
        // No filter: the PNG recommendation for palette images, and what libpng picks for them anyway.
        guard CImageShims_png_set_filter(writer, PNG_FILTER_NONE) == 0,
              CImageShims_png_set_compression_level(writer, bilevelCompressionLevel) == 0,
              CImageShims_png_set_compression_window_bits(writer, bilevelWindowBits) == 0,
              CImageShims_png_set_compression_mem_level(writer, bilevelMemoryLevel) == 0 else {
            throw failure("setting the compression")
        }
        guard CImageShims_png_write_info(writer) == 0 else { throw failure("png_write_info") }
        try rows.withUnsafeBufferPointer { packed throws(QRError) in
            for row in 0..<distinctRows {
                let start = packed.baseAddress! + row * rowBytes
                for _ in 0..<repeats {
                    guard CImageShims_png_write_row(writer, start) == 0 else { throw failure("png_write_row") }
                }
            }
        }
        guard CImageShims_png_write_end(writer) == 0 else { throw failure("png_write_end") }
        var size = 0
        guard let output = CImageShims_png_output(writer, &size) else { throw failure("collecting the output") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The image's error or warning text (a fixed 64-byte C string).
    private static func message(_ image: png_image) -> String {
        let text = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? "libpng gave no reason" : text
    }
}
