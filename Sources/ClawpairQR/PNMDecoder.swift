// Netpbm images (netpbm.sourceforge.net/doc: pbm, pgm, ppm): a bounded parser in Swift.
//
//   P1 plain PBM   '0'/'1' per pixel, 1 is black     P4 raw PBM   rows of ceil(width/8) bytes, MSB first
//   P2 plain PGM   decimal samples                   P5 raw PGM   1 byte per sample, 2 (big-endian) if maxval > 255
//   P3 plain PPM   decimal R G B samples             P6 raw PPM   as P5, three samples per pixel
//
// The header is magic, whitespace, width, height and (not for PBM) maxval 1...65535, with '#'
// comments up to the end of a line anywhere whitespace may go; a raw raster starts after exactly
// one whitespace byte. Only the first image of a multi-image file is read. Every read is checked
// against the end of the input; a sample above maxval is an error.

/// Decodes PBM, PGM and PPM images to gray.
enum PNMDecoder {
    /// Header numbers longer than this many digits are refused (they could only overflow).
    static let maxDigits = 9

    /// Netpbm whitespace: space, TAB, LF, VT, FF, CR.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// A read position in the input.
    struct Cursor {
        let bytes: [UInt8]
        var offset: Int

        var atEnd: Bool { offset >= bytes.count }

        /// Skips whitespace and `#` comments (to the end of their line).
        mutating func skipSeparators() {
            while offset < bytes.count {
                let byte = bytes[offset]
                if isWhitespace(byte) {
                    offset += 1
                } else if byte == UInt8(ascii: "#") {
                    while offset < bytes.count && bytes[offset] != 0x0A && bytes[offset] != 0x0D { offset += 1 }
                } else {
                    return
                }
            }
        }

        /// A decimal number after optional separators.
        mutating func number(_ what: String) throws(QRError) -> Int {
            skipSeparators()
            var value = 0
            var digits = 0
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
                digits += 1
                guard digits <= maxDigits else { throw PNMDecoder.corrupt("the \(what) has more than \(maxDigits) digits") }
                value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
                offset += 1
            }
            guard digits > 0 else {
                throw PNMDecoder.corrupt(atEnd ? "the data ends before the \(what)" : "the \(what) is not a number")
            }
            return value
        }
    }

    static func corrupt(_ reason: String) -> QRError { .corruptImage(format: .pnm, reason: reason) }

    /// Decodes the first image in `bytes` (which start with `P1`…`P6`).
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(QRError) -> LoadedImage {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P"),
              (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]) else {
            throw corrupt("no P1 to P6 magic number")
        }
        let kind = Int(bytes[1] - UInt8(ascii: "0"))
        var cursor = Cursor(bytes: bytes, offset: 2)
        let width = try cursor.number("width")
        let height = try cursor.number("height")
        let isBitmap = kind == 1 || kind == 4
        let maxval = isBitmap ? 1 : try cursor.number("maxval")
        guard (1...65535).contains(maxval) else { throw corrupt("maxval \(maxval) is not between 1 and 65535") }
        try limits.check(width: width, height: height, format: .pnm)
        let channels = (kind == 3 || kind == 6) ? 3 : 1

        var pixels = [UInt8](repeating: 0, count: width * height)
        switch kind {
        case 1:
            for index in 0..<pixels.count {
                cursor.skipSeparators()
                guard !cursor.atEnd else { throw truncated(pixel: index, of: pixels.count) }
                switch bytes[cursor.offset] {
                case UInt8(ascii: "0"): pixels[index] = 255
                case UInt8(ascii: "1"): pixels[index] = 0
                default: throw corrupt("pixel \(index) of a plain PBM is not 0 or 1")
                }
                cursor.offset += 1
            }
        case 2, 3:
            var sample = [0, 0, 0]
            for index in 0..<pixels.count {
                for channel in 0..<channels {
                    cursor.skipSeparators()
                    guard !cursor.atEnd else { throw truncated(pixel: index, of: pixels.count) }
                    sample[channel] = try cursor.number("sample")
                    guard sample[channel] <= maxval else {
                        throw corrupt("sample \(sample[channel]) of pixel \(index) is above maxval \(maxval)")
                    }
                }
                pixels[index] = gray(sample, channels: channels, maxval: maxval)
            }
        default:
            // A raw raster begins after exactly one whitespace byte.
            guard cursor.offset < bytes.count, isWhitespace(bytes[cursor.offset]) else {
                throw corrupt(cursor.atEnd ? "the data ends before the raster" : "no whitespace before the raster")
            }
            cursor.offset += 1
            try decodeRaw(kind: kind, cursor: cursor, width: width, height: height, maxval: maxval,
                          channels: channels, into: &pixels)
        }
        return LoadedImage(format: .pnm, image: GrayImage(width: width, height: height, pixels: pixels), warnings: [])
    }

    /// P4, P5 and P6 rasters.
    private static func decodeRaw(kind: Int, cursor: Cursor, width: Int, height: Int, maxval: Int, channels: Int,
                                  into pixels: inout [UInt8]) throws(QRError) {
        let bytes = cursor.bytes
        let start = cursor.offset
        let available = bytes.count - start
        if kind == 4 {
            let rowBytes = (width + 7) / 8
            let needed = rowBytes * height
            guard available >= needed else { throw truncatedRaster(available, needed) }
            for y in 0..<height {
                let row = start + y * rowBytes
                for x in 0..<width {
                    let bit = bytes[row + x / 8] >> (7 - UInt8(x % 8)) & 1
                    pixels[y * width + x] = bit == 1 ? 0 : 255
                }
            }
            return
        }
        let sampleBytes = maxval > 255 ? 2 : 1
        let needed = width * height * channels * sampleBytes
        guard available >= needed else { throw truncatedRaster(available, needed) }
        if channels == 1 && maxval == 255 {
            pixels = Array(bytes[start..<(start + needed)])
            return
        }
        var sample = [0, 0, 0]
        var offset = start
        for index in 0..<pixels.count {
            for channel in 0..<channels {
                let value = sampleBytes == 2 ? Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) : Int(bytes[offset])
                offset += sampleBytes
                guard value <= maxval else {
                    throw corrupt("sample \(value) of pixel \(index) is above maxval \(maxval)")
                }
                sample[channel] = value
            }
            pixels[index] = gray(sample, channels: channels, maxval: maxval)
        }
    }

    /// Luma (ITU-R BT.601 weights) scaled from `0...maxval` to `0...255`, rounded.
    private static func gray(_ sample: [Int], channels: Int, maxval: Int) -> UInt8 {
        let level = channels == 1 ? sample[0] * 1000 : sample[0] * 299 + sample[1] * 587 + sample[2] * 114
        return UInt8((level * 255 + maxval * 500) / (maxval * 1000))
    }

    private static func truncated(pixel: Int, of total: Int) -> QRError {
        corrupt("the data ends after \(pixel) of \(total) pixels (truncated)")
    }

    private static func truncatedRaster(_ available: Int, _ needed: Int) -> QRError {
        corrupt("the raster has \(available) of \(needed) bytes (truncated)")
    }
}
