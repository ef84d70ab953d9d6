// Image input for the QR scanner: PNG (libpng), JPEG (libjpeg) and PNM (here, in Swift), each
// decoded straight to 8-bit gray, with the format sniffed from the first bytes, never the name.
//
// Every decoder reads the header first and refuses an image over `ImageLimits.maxPixels`
// before it allocates or decodes a pixel, and reports damage as `QRError.corruptImage`.
//
// How to add an input format:
//  1. Add a case to `ImageFormat` with its magic bytes in `ImageFormat.sniff`.
//  2. Write `<Format>Decoder.swift` (pure Swift, bounded) or `<Format>Decoder+<Lib>.swift` (the
//     only file touching the C library; errors that longjmp go through a C shim as in
//     CImageShims) with `static func decode(_:limits:) throws(QRError) -> LoadedImage`.
//  3. Dispatch to it in `ImageLoader.load`, add a seed to Fuzz/seeds/FuzzImageLoad and malformed
//     samples to Tests/ClawpairQRTests/ImageLoaderTests.swift.

/// An image file format the scanner reads.
public enum ImageFormat: String, Sendable, CaseIterable {
    /// PNG (any colour type and depth; alpha is composited onto white).
    case png
    /// JPEG (baseline and progressive; grayscale, YCbCr and RGB).
    case jpeg
    /// Netpbm: PBM, PGM or PPM, plain or raw (P1 to P6), maxval up to 65535.
    case pnm

    /// The usual name, for messages.
    public var displayName: String {
        switch self {
        case .png: return "PNG"
        case .jpeg: return "JPEG"
        case .pnm: return "PNM"
        }
    }

    /// The format the first bytes announce, or nil.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        let head = Array(bytes.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.count >= 3, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[1]),
           PNMDecoder.isWhitespace(head[2]) || head[2] == UInt8(ascii: "#") {
            return .pnm
        }
        return nil
    }

    /// The name of a common format clawpair recognises but does not read, for a helpful error.
    static func unsupportedName(_ bytes: some Collection<UInt8>) -> String? {
        let head = Array(bytes.prefix(12))
        func starts(_ text: String) -> Bool { head.starts(with: Array(text.utf8)) }
        if starts("GIF87a") || starts("GIF89a") { return "GIF" }
        if starts("BM") { return "BMP" }
        if starts("RIFF"), head.count >= 12, Array(head[8..<12]) == Array("WEBP".utf8) { return "WebP" }
        if starts("II*\u{0}") || starts("MM\u{0}*") { return "TIFF" }
        if head.count >= 12, Array(head[4..<12]) == Array("ftypheic".utf8) || Array(head[4..<12]) == Array("ftypavif".utf8) {
            return "HEIF/AVIF"
        }
        if starts("P7") { return "PAM" }
        if isSVG(bytes) { return "SVG" }
        return nil
    }

    /// Whether the bytes look like SVG: after an optional UTF-8 byte-order mark and white space,
    /// `<svg`, or an XML declaration, doctype or comment with `<svg` in the first 1024 bytes.
    static func isSVG(_ bytes: some Collection<UInt8>) -> Bool {
        var head = ArraySlice(bytes.prefix(1024))
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head = head.dropFirst(3) }
        head = head.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if head.starts(with: "<svg".utf8) { return true }
        guard head.starts(with: "<?xml".utf8) || head.starts(with: "<!".utf8) else { return false }
        let tag = Array("<svg".utf8)
        return head.indices.contains { head[$0...].starts(with: tag) }
    }
}

/// Limits on untrusted images, checked before any pixel is decoded.
public struct ImageLimits: Sendable, Equatable {
    /// The largest file or standard-input image read: 256 MiB.
    public static let defaultMaxFileBytes = 256 * 1024 * 1024
    /// The most pixels decoded: 40 million (a 12-megapixel photo, an 8K screenshot at 33 MP
    /// fit). The gray buffer is one byte per pixel, so at most 40 MB.
    public static let defaultMaxPixels = 40_000_000
    /// The most scans a progressive JPEG may have (a normal one has about 10).
    public static let defaultMaxJPEGScans = 256

    /// The defaults above.
    public static let `default` = ImageLimits()

    /// Bytes read from a file or standard input, at most.
    public let maxFileBytes: Int
    /// `width * height` at most.
    public let maxPixels: Int
    /// Progressive JPEG scans at most.
    public let maxJPEGScans: Int

    /// Limits with the given values (each at least 1).
    public init(maxFileBytes: Int = defaultMaxFileBytes, maxPixels: Int = defaultMaxPixels,
                maxJPEGScans: Int = defaultMaxJPEGScans) {
        self.maxFileBytes = max(1, maxFileBytes)
        self.maxPixels = max(1, maxPixels)
        self.maxJPEGScans = max(1, maxJPEGScans)
    }

    /// Throws ``QRError/imageTooLarge(width:height:maxPixels:)`` unless `width × height` is
    /// non-empty and within ``maxPixels``.
    func check(width: Int, height: Int, format: ImageFormat) throws(QRError) {
        guard width > 0, height > 0 else {
            throw .corruptImage(format: format, reason: "it has no pixels (\(width)×\(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw .imageTooLarge(width: width, height: height, maxPixels: maxPixels)
        }
    }
}

/// A decoded image and what the decoder noticed on the way.
public struct LoadedImage: Sendable, Equatable {
    /// The format the bytes were in.
    public let format: ImageFormat
    /// The pixels, as gray.
    public let image: GrayImage
    /// Damage the decoder worked around (e.g. libjpeg's "Corrupt JPEG data"); empty usually.
    public let warnings: [String]
}

/// Decodes image bytes of any supported format.
public enum ImageLoader {
    /// Sniffs the format of `bytes` and decodes them to gray within `limits`.
    public static func load(_ bytes: [UInt8], limits: ImageLimits = .default) throws(QRError) -> LoadedImage {
        guard bytes.count <= limits.maxFileBytes else {
            throw .inputTooLarge(bytes: bytes.count, limit: limits.maxFileBytes)
        }
        switch ImageFormat.sniff(bytes) {
        case .png: return try PNGCodec.decode(bytes, limits: limits)
        case .jpeg: return try JPEGDecoder.decode(bytes, limits: limits)
        case .pnm: return try PNMDecoder.decode(bytes, limits: limits)
        case nil: throw .unsupportedImage(detected: ImageFormat.unsupportedName(bytes))
        }
    }
}
