// The only file that calls libjpeg, always through CImageShims: each libjpeg call that can fail
// runs inside a C setjmp there and comes back as -1 with libjpeg's message, so a corrupt file
// is an error here and never an exit() or a longjmp through Swift.

internal import CImageShims
internal import CJPEG

/// JPEG reading through libjpeg(-turbo).
enum JPEGDecoder {
    /// Decodes a JPEG to gray (libjpeg converts YCbCr and RGB itself). The header is read first
    /// and the size checked against `limits` before decompression starts. Damage libjpeg works
    /// around is returned as warnings, except a file that ends early, which is an error.
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(QRError) -> LoadedImage {
        try JPEGPrecheck.check(bytes, limits: limits)
        guard let decoder = CImageShims_jpeg_create_decompress(UInt32(clamping: limits.maxJPEGScans)) else {
            throw .corruptImage(format: .jpeg, reason: "libjpeg could not start (out of memory?)")
        }
        defer { CImageShims_jpeg_destroy_decompress(decoder) }
        func failure(_ step: String) -> QRError {
            let text = String(cString: CImageShims_jpeg_message(decoder))
            return .corruptImage(format: .jpeg, reason: text.isEmpty ? "\(step) failed" : text)
        }
        // The source keeps pointing into `bytes` until the decoder is destroyed, so the whole
        // decode happens inside this one borrow.
        return try bytes.withUnsafeBufferPointer { source throws(QRError) -> LoadedImage in
            guard let base = source.baseAddress,
                  CImageShims_jpeg_mem_src(decoder, base, UInt(source.count)) == 0 else { throw failure("jpeg_mem_src") }
            guard CImageShims_jpeg_read_header(decoder) == JPEG_HEADER_OK else { throw failure("reading the header") }
            let info = CImageShims_jpeg_info(decoder)!
            let (width, height) = (Int(info.pointee.image_width), Int(info.pointee.image_height))
            try limits.check(width: width, height: height, format: .jpeg)
            switch info.pointee.jpeg_color_space {
            case JCS_GRAYSCALE, JCS_YCbCr, JCS_RGB: break
            case JCS_CMYK, JCS_YCCK: throw QRError.corruptImage(format: .jpeg, reason: "CMYK JPEG images are not supported")
            default: break  // libjpeg refuses what it cannot convert, with its own message
            }
            info.pointee.out_color_space = JCS_GRAYSCALE
            guard CImageShims_jpeg_start_decompress(decoder) == 1 else { throw failure("jpeg_start_decompress") }
            guard Int(info.pointee.output_width) == width, Int(info.pointee.output_height) == height,
                  info.pointee.output_components == 1 else {
                throw QRError.corruptImage(format: .jpeg, reason: "libjpeg did not produce a \(width)×\(height) gray image")
            }
            var pixels = [UInt8](repeating: 255, count: width * height)
            try pixels.withUnsafeMutableBufferPointer { buffer throws(QRError) in
                while Int(info.pointee.output_scanline) < height {
                    var row: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + Int(info.pointee.output_scanline) * width
                    let read = CImageShims_jpeg_read_scanlines(decoder, &row, 1)
                    guard read >= 0 else { throw failure("jpeg_read_scanlines") }
                    guard read == 1 else { throw QRError.corruptImage(format: .jpeg, reason: "libjpeg stopped reading rows") }
                }
            }
            // A truncated file has its missing rows filled in gray; call that what it is.
            if CImageShims_jpeg_truncated(decoder) != 0 {
                throw QRError.corruptImage(format: .jpeg, reason: "the file ends early (truncated)")
            }
            guard CImageShims_jpeg_finish_decompress(decoder) == 1 else { throw failure("jpeg_finish_decompress") }
            let warningCount = CImageShims_jpeg_warning_count(decoder)
            let warnings = warningCount > 0
                ? ["\(String(cString: CImageShims_jpeg_message(decoder)))\(warningCount > 1 ? " (and \(warningCount - 1) more warnings)" : "")"]
                : []
            return LoadedImage(format: .jpeg, image: GrayImage(width: width, height: height, pixels: pixels), warnings: warnings)
        }
    }
}
