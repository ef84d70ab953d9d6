/// An 8-bit grayscale image (0 black, 255 white), rows top to bottom: what the image decoders
/// produce and the QR scanner reads.
public struct GrayImage: Sendable, Equatable {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// `width * height` luminance values, row by row.
    public let pixels: [UInt8]

    /// Wraps `pixels`; there must be exactly `width * height` of them.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height,
                     "GrayImage needs width * height pixels")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at column `x`, row `y` (both in range).
    public subscript(x: Int, y: Int) -> UInt8 {
        precondition(x >= 0 && y >= 0 && x < width && y < height, "pixel out of range")
        return pixels[y * width + x]
    }

    /// Black and white swapped (for light-on-dark codes).
    public func inverted() -> GrayImage {
        GrayImage(width: width, height: height, pixels: pixels.map { 255 - $0 })
    }
}
