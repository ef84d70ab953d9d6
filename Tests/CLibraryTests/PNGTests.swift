import CPNG
import Testing

/// libpng: the classic read structs, and a lossless write → read round trip in memory through the
/// simplified `png_image` API (which handles libpng's longjmp errors inside C).
@Suite("libpng")
struct PNGTests {
    @Test("png_create_read_struct with the header's version string")
    func readStructs() throws {
        let runtimeVersion = String(cString: png_get_libpng_ver(nil))
        #expect(runtimeVersion == PNG_LIBPNG_VER_STRING, "header \(PNG_LIBPNG_VER_STRING), library \(runtimeVersion)")
        var png: OpaquePointer? = try #require(png_create_read_struct(PNG_LIBPNG_VER_STRING, nil, nil, nil))
        var info: OpaquePointer? = png_create_info_struct(png)
        #expect(info != nil)
        png_destroy_read_struct(&png, &info, nil)
        #expect(png == nil && info == nil)
    }

    @Test("8×6 grayscale image: png_image_write_to_memory, then read back unchanged")
    func grayscaleRoundTrip() throws {
        let (width, height) = (8, 6)
        let pixels = (0..<width * height).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }

        var writer = png_image()
        writer.version = UInt32(PNG_IMAGE_VERSION)
        writer.width = UInt32(width)
        writer.height = UInt32(height)
        writer.format = UInt32(PNG_FORMAT_GRAY)
        var size = 0
        #expect(png_image_write_to_memory(&writer, nil, &size, 0, pixels, 0, nil) != 0, "sizing: \(message(writer))")
        var encoded = [UInt8](repeating: 0, count: size)
        #expect(png_image_write_to_memory(&writer, &encoded, &size, 0, pixels, 0, nil) != 0, "writing: \(message(writer))")
        encoded.removeSubrange(size...)
        #expect(png_sig_cmp(encoded, 0, 8) == 0, "no PNG signature")

        // libpng keeps the memory pointer from begin_read until finish_read: one borrow for both.
        let decoded = encoded.withUnsafeBytes { memory -> [UInt8] in
            var reader = png_image()
            reader.version = UInt32(PNG_IMAGE_VERSION)
            defer { png_image_free(&reader) }
            guard png_image_begin_read_from_memory(&reader, memory.baseAddress, memory.count) != 0 else {
                Issue.record("png_image_begin_read_from_memory: \(message(reader))")
                return []
            }
            #expect(reader.width == UInt32(width) && reader.height == UInt32(height))
            reader.format = UInt32(PNG_FORMAT_GRAY)
            var decoded = [UInt8](repeating: 0, count: width * height)
            #expect(png_image_finish_read(&reader, nil, &decoded, 0, nil) != 0, "png_image_finish_read: \(message(reader))")
            return decoded
        }
        #expect(decoded == pixels)
    }

    /// The image's error or warning text (a fixed 64-byte C string).
    private func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
