/// A QR code found in an image.
public struct ScannedCode: Sendable, Equatable {
    /// The payload bytes exactly as the symbol carries them (zbar's binary mode: no charset guessing).
    public let payload: [UInt8]

    /// Wraps a payload.
    public init(payload: [UInt8]) {
        self.payload = payload
    }

    /// The payload as text when it is valid UTF-8 (setup codes always are).
    public var text: String? { String(validating: payload, as: UTF8.self) }
}

/// Finds QR codes in gray images with zbar.
///
/// Only QR symbols are looked for (no linear barcodes, which noise can fake). When a pass finds
/// nothing, the next one is tried, so a clean image costs one zbar pass:
///
/// 1. the image as given;
/// 2. inverted, for light-on-dark codes (``tryInverted``);
/// 3. halved (2×2 means), which averages away speckle noise and shrinks oversized photos, then
///    sharpened (an unsharp mask), which restores blurred module edges, then, for images of at
///    most ``maxDoubledPixels`` pixels, doubled (bilinear) and sharpened, which gives tiny codes
///    enough pixels per module (``tryEnhanced``).
///
/// Each scan creates and frees its own zbar scanner, so a `QRScanner` can be shared between threads.
public struct QRScanner: Sendable {
    /// Scan the inverted image when nothing is found (a terminal QR code photographed on a dark
    /// theme, a light-on-dark print). Default true.
    public var tryInverted: Bool
    /// Scan a halved and a sharpened copy when nothing else is found. Default true.
    public var tryEnhanced: Bool

    /// The largest image (in pixels) that is also tried at twice its size: 4 million, so the
    /// copy stays within 16 MB.
    public static let maxDoubledPixels = 4_000_000

    /// A scanner; see ``tryInverted`` and ``tryEnhanced``.
    public init(tryInverted: Bool = true, tryEnhanced: Bool = true) {
        self.tryInverted = tryInverted
        self.tryEnhanced = tryEnhanced
    }

    /// Every QR code found in `image` by the first pass that finds any, in zbar's order; empty
    /// when there is none.
    public func scan(_ image: GrayImage) throws(QRError) -> [ScannedCode] {
        guard image.width > 0, image.height > 0 else { return [] }
        var found = try Self.scanWithZBar(image)
        if found.isEmpty && tryInverted { found = try Self.scanWithZBar(image.inverted()) }
        if found.isEmpty && tryEnhanced { found = try Self.scanWithZBar(image.halved()) }
        if found.isEmpty && tryEnhanced { found = try Self.scanWithZBar(image.sharpened()) }
        if found.isEmpty && tryEnhanced && image.width * image.height <= Self.maxDoubledPixels {
            found = try Self.scanWithZBar(image.doubled().sharpened())
        }
        return found
    }
}
