import CQRencode
import CZBar
@testable import ClawpairQR
import Testing

/// zbar: scans a QR code that libqrencode drew into an in-memory Y800 (8-bit gray) image.
///
/// libqrencode is called under ``QRencodeLock``, as every other caller in this process does (the
/// QR module and QRencodeTests): unlocked, an encode running beside another once returned NULL.
@Suite("zbar")
struct ZBarTests {
    @Test("libqrencode → Y800 buffer → zbar round trip", arguments: [
        "clawpair://pair?code=TEST-0001&host=gateway.local&port=18789",
        "HELLO WORLD",
    ])
    func qrRoundTrip(payload: String) throws {
        let encoded = QRencodeLock.mutex.withLock { _ in QRcode_encodeString(payload, 0, QR_ECLEVEL_M, QR_MODE_8, 1) }
        let code = try #require(encoded, "QRcode_encodeString returned NULL")
        let image = render(code.pointee, scale: 4, quietZone: 4)
        QRcode_free(code)

        let scanner = try #require(zbar_image_scanner_create(), "zbar_image_scanner_create returned NULL")
        defer { zbar_image_scanner_destroy(scanner) }
        #expect(zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0) == 0)
        #expect(zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1) == 0)

        let zimage = try #require(zbar_image_create(), "zbar_image_create returned NULL")
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, fourcc("Y800"))
        zbar_image_set_size(zimage, UInt32(image.side), UInt32(image.side))
        let decoded: [String] = image.pixels.withUnsafeBufferPointer { pixels in
            // zbar borrows the buffer (no cleanup handler); it is only used inside this closure.
            zbar_image_set_data(zimage, pixels.baseAddress, UInt(pixels.count), nil)
            let count = zbar_scan_image(scanner, zimage)
            var results: [String] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                    results.append(String(cString: data))
                }
                symbol = zbar_symbol_next(current)
            }
            zbar_image_set_data(zimage, nil, 0, nil)
            #expect(count == Int32(results.count))
            return results
        }
        #expect(decoded == [payload])
    }

    /// The module matrix as an 8-bit gray image: dark modules 0, light 255, `scale` pixels per
    /// module and a `quietZone`-module white border.
    private func render(_ code: QRcode, scale: Int, quietZone: Int) -> (side: Int, pixels: [UInt8]) {
        let width = Int(code.width)
        let side = (width + 2 * quietZone) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<width {
            for x in 0..<width where code.data[y * width + x] & 1 == 1 {
                for dy in 0..<scale {
                    let row = ((y + quietZone) * scale + dy) * side
                    for dx in 0..<scale {
                        pixels[row + (x + quietZone) * scale + dx] = 0
                    }
                }
            }
        }
        return (side, pixels)
    }

    /// zbar_fourcc('Y','8','0','0'), a macro Swift cannot import.
    private func fourcc(_ code: String) -> UInt {
        code.utf8.reversed().reduce(0) { $0 << 8 | UInt($1) }
    }
}
