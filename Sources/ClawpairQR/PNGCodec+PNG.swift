// The only file that calls libpng. It uses libpng's simplified `png_image` API, which traps
// libpng's longjmp errors inside libpng itself and reports them through `png_image.message`.

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

    /// Encodes a two-colour image as a 1-bit palette PNG (index 0 black, 1 white). `indexes`
    /// holds one byte per pixel, row by row. This is what QR images need, and the smallest PNG
    /// form for them. `fast` trades a slightly larger file for less deflate work.
    static func encodeBlackAndWhite(indexes: [UInt8], width: Int, height: Int, fast: Bool = true) throws(QRError) -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max), indexes.count == width * height else {
            throw .pngWriteFailed("an image of \(width)×\(height) pixels cannot be written")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        // A two-entry gray colour map: libpng writes it as a palette of bit depth 1.
        image.format = UInt32(PNG_FORMAT_GRAY) | UInt32(PNG_FORMAT_FLAG_COLORMAP)
        image.colormap_entries = 2
        image.flags = fast ? UInt32(PNG_IMAGE_FLAG_FAST) : 0
        let colormap: [UInt8] = [0, 255]
        // Deflate rarely grows QR images; start from the raw 1-bit size plus room for the chunks.
        var capacity = height * (1 + (width + 7) / 8) + 1024
        for _ in 0..<2 {
            var output = [UInt8](repeating: 0, count: capacity)
            var size = capacity
            let ok = output.withUnsafeMutableBytes { memory in
                png_image_write_to_memory(&image, memory.baseAddress, &size, 0, indexes, Int32(width), colormap)
            }
            if ok != 0 {
                output.removeSubrange(size...)
                png_image_free(&image)
                return output
            }
            let reason = message(image)
            png_image_free(&image)
            // A changed size means only the buffer was too small; it now says how much is needed.
            guard size > capacity else { throw .pngWriteFailed(reason) }
            capacity = size
            image.opaque = nil
            image.warning_or_error = 0
        }
        throw .pngWriteFailed("the output buffer kept growing")
    }

    /// The image's error or warning text (a fixed 64-byte C string).
    private static func message(_ image: png_image) -> String {
        let text = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? "libpng gave no reason" : text
    }
}
