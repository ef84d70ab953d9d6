import CJPEG
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// libjpeg: compresses a small grayscale gradient to memory and decompresses it again.
///
/// libjpeg reports fatal errors through `error_exit`, which by default calls `exit()` (that would
/// end the whole test run quietly) and otherwise expects a longjmp that Swift cannot do. The
/// handler below traps with libjpeg's own message instead, so a failure is loud and explained.
/// The structs are heap-allocated because libjpeg keeps pointers to them across calls.
@Suite("libjpeg")
struct JPEGTests {
    @Test("jpeg_CreateCompress → 16×16 gray JPEG in memory → jpeg_CreateDecompress, pixels within tolerance")
    func grayscaleRoundTrip() throws {
        let side = 16
        let pixels = (0..<side * side).map { UInt8(($0 % side) * 8 + ($0 / side) * 4) }

        let encoded = compress(pixels, width: side, height: side, quality: 95)
        #expect(encoded.count > 100)
        #expect(encoded.prefix(2) == [0xFF, 0xD8], "no SOI marker")

        let (width, height, components, decoded) = decompress(encoded)
        #expect(width == side && height == side && components == 1)
        let worst = zip(pixels, decoded).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(worst <= 8, "largest pixel error \(worst)")
    }

    private func compress(_ pixels: [UInt8], width: Int, height: Int, quality: Int32) -> [UInt8] {
        let errorManager = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        errorManager.initialize(to: jpeg_error_mgr())
        let cinfo = UnsafeMutablePointer<jpeg_compress_struct>.allocate(capacity: 1)
        cinfo.initialize(to: jpeg_compress_struct())
        defer {
            cinfo.deallocate()
            errorManager.deallocate()
        }
        cinfo.pointee.err = jpeg_std_error(errorManager)
        errorManager.pointee.error_exit = trapOnJPEGError
        jpeg_CreateCompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_compress_struct>.size)
        defer { jpeg_destroy_compress(cinfo) }

        // jpeg_mem_dest keeps these two addresses and writes the result through them in
        // jpeg_finish_compress, so they must outlive the call: heap, not `&local`.
        let buffer = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 1)
        buffer.initialize(to: nil)
        let size = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        size.initialize(to: 0)
        defer {
            free(buffer.pointee)
            buffer.deallocate()
            size.deallocate()
        }
        jpeg_mem_dest(cinfo, buffer, size)
        cinfo.pointee.image_width = JDIMENSION(width)
        cinfo.pointee.image_height = JDIMENSION(height)
        cinfo.pointee.input_components = 1
        cinfo.pointee.in_color_space = JCS_GRAYSCALE
        jpeg_set_defaults(cinfo)
        jpeg_set_quality(cinfo, quality, 1)
        jpeg_start_compress(cinfo, 1)
        var rows = pixels
        rows.withUnsafeMutableBufferPointer { rows in
            while cinfo.pointee.next_scanline < cinfo.pointee.image_height {
                var row: JSAMPROW? = rows.baseAddress! + Int(cinfo.pointee.next_scanline) * width
                _ = jpeg_write_scanlines(cinfo, &row, 1)
            }
        }
        jpeg_finish_compress(cinfo)
        return Array(UnsafeBufferPointer(start: buffer.pointee, count: Int(size.pointee)))
    }

    private func decompress(_ encoded: [UInt8]) -> (width: Int, height: Int, components: Int, pixels: [UInt8]) {
        let errorManager = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        errorManager.initialize(to: jpeg_error_mgr())
        let dinfo = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
        dinfo.initialize(to: jpeg_decompress_struct())
        defer {
            dinfo.deallocate()
            errorManager.deallocate()
        }
        dinfo.pointee.err = jpeg_std_error(errorManager)
        errorManager.pointee.error_exit = trapOnJPEGError
        jpeg_CreateDecompress(dinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        defer { jpeg_destroy_decompress(dinfo) }

        return encoded.withUnsafeBufferPointer { source in
            jpeg_mem_src(dinfo, source.baseAddress, UInt(source.count))
            #expect(jpeg_read_header(dinfo, 1) == JPEG_HEADER_OK)
            jpeg_start_decompress(dinfo)
            let width = Int(dinfo.pointee.output_width)
            let height = Int(dinfo.pointee.output_height)
            let components = Int(dinfo.pointee.output_components)
            var pixels = [UInt8](repeating: 0, count: width * height * components)
            pixels.withUnsafeMutableBufferPointer { pixels in
                while dinfo.pointee.output_scanline < dinfo.pointee.output_height {
                    var row: JSAMPROW? = pixels.baseAddress! + Int(dinfo.pointee.output_scanline) * width * components
                    _ = jpeg_read_scanlines(dinfo, &row, 1)
                }
            }
            jpeg_finish_decompress(dinfo)
            return (width, height, components, pixels)
        }
    }
}

/// libjpeg's `error_exit`: formats libjpeg's message and traps (see the suite comment).
private let trapOnJPEGError: @convention(c) (j_common_ptr?) -> Void = { cinfo in
    var text = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
    cinfo?.pointee.err.pointee.format_message(cinfo, &text)
    fatalError("libjpeg: \(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
}
