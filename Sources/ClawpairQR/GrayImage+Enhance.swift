// Cheap image clean-ups the scanner tries when a plain pass finds nothing: pure Swift, linear
// time, allocation of one output image each.

extension GrayImage {
    /// Half the width and height, each pixel the mean of a 2×2 block (an odd last row or column
    /// is dropped). Averages away speckle noise and shrinks oversized photos.
    public func halved() -> GrayImage {
        let (outWidth, outHeight) = (width / 2, height / 2)
        guard outWidth > 0, outHeight > 0 else { return self }
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<outHeight {
                let top = 2 * y * width, bottom = top + width
                for x in 0..<outWidth {
                    let sum = Int(source[top + 2 * x]) + Int(source[top + 2 * x + 1])
                        + Int(source[bottom + 2 * x]) + Int(source[bottom + 2 * x + 1])
                    out[y * outWidth + x] = UInt8((sum + 2) / 4)
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// Twice the width and height, interpolated bilinearly. Gives zbar enough pixels per module
    /// in small screenshots and thumbnails (under about 2 pixels per module).
    public func doubled() -> GrayImage {
        guard width > 0, height > 0 else { return self }
        let (outWidth, outHeight) = (2 * width, 2 * height)
        var out = [UInt8](repeating: 0, count: outWidth * outHeight)
        // Output pixel centres map to source positions (x - 0.5) / 2; in quarter-pixel units the
        // two neighbours get weights 3:1 or 1:3.
        for y in 0..<outHeight {
            let (y0, y1, wy) = Self.neighbours(y, limit: height)
            for x in 0..<outWidth {
                let (x0, x1, wx) = Self.neighbours(x, limit: width)
                let top = Int(pixels[y0 * width + x0]) * (4 - wx) + Int(pixels[y0 * width + x1]) * wx
                let bottom = Int(pixels[y1 * width + x0]) * (4 - wx) + Int(pixels[y1 * width + x1]) * wx
                out[y * outWidth + x] = UInt8((top * (4 - wy) + bottom * wy + 8) / 16)
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// The two source indexes around output index `i` of a doubling, and the second one's weight
    /// in quarters.
    private static func neighbours(_ i: Int, limit: Int) -> (Int, Int, Int) {
        let source = i / 2
        if i % 2 == 0 {
            return (max(source - 1, 0), source, 3)        // centre at source - 0.25
        }
        return (source, min(source + 1, limit - 1), 1)   // centre at source + 0.25
    }

    /// An unsharp mask: each pixel pushed away from the mean of the `(2r+1)²` box around it,
    /// `p + amount · (p − mean)`, clamped. Restores module edges that blur or defocus softened.
    public func sharpened(radius: Int = 2, amount: Int = 2) -> GrayImage {
        guard width > 0, height > 0, radius > 0 else { return self }
        let blurred = boxBlurred(radius: radius)
        var out = [UInt8](repeating: 0, count: pixels.count)
        for index in pixels.indices {
            let p = Int(pixels[index])
            out[index] = UInt8(clamping: p + amount * (p - Int(blurred[index])))
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// A box blur of radius `r`, separable, with running sums; edges use the pixels that exist.
    private func boxBlurred(radius r: Int) -> [UInt8] {
        var horizontal = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            let row = y * width
            var sum = 0, count = 0
            for x in 0..<min(r, width) { sum += Int(pixels[row + x]); count += 1 }
            for x in 0..<width {
                if x + r < width { sum += Int(pixels[row + x + r]); count += 1 }
                if x - r - 1 >= 0 { sum -= Int(pixels[row + x - r - 1]); count -= 1 }
                horizontal[row + x] = UInt8(sum / count)
            }
        }
        var out = [UInt8](repeating: 0, count: pixels.count)
        for x in 0..<width {
            var sum = 0, count = 0
            for y in 0..<min(r, height) { sum += Int(horizontal[y * width + x]); count += 1 }
            for y in 0..<height {
                if y + r < height { sum += Int(horizontal[(y + r) * width + x]); count += 1 }
                if y - r - 1 >= 0 { sum -= Int(horizontal[(y - r - 1) * width + x]); count -= 1 }
                out[y * width + x] = UInt8(sum / count)
            }
        }
        return out
    }
}
