// The only file that calls zbar, always through CImageShims, which loads libzbar on first use
// (linking it would slow the start of every clawpair command; see CImageShims.h).

internal import CImageShims

extension QRScanner {
    /// One zbar pass over `image` (8-bit gray, zbar's "Y800"), QR codes only, binary payloads.
    static func scanWithZBar(_ image: GrayImage) throws(QRError) -> [ScannedCode] {
        guard CImageShims_zbar_load() == 0 else {
            throw .scannerUnavailable(String(cString: CImageShims_zbar_load_error()))
        }
        guard let scanner = CImageShims_zbar_image_scanner_create() else { throw .scannerFailed("zbar_image_scanner_create failed") }
        defer { CImageShims_zbar_image_scanner_destroy(scanner) }
        // zbar_image_scanner_set_config returns 0 on success.
        for (symbology, config, value) in [(ZBAR_NONE, ZBAR_CFG_ENABLE, Int32(0)),
                                           (ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1),
                                           (ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)] {
            guard CImageShims_zbar_image_scanner_set_config(scanner, symbology, config, value) == 0 else {
                throw .scannerFailed("zbar_image_scanner_set_config(\(config.rawValue)) failed")
            }
        }
        guard let zimage = CImageShims_zbar_image_create() else { throw .scannerFailed("zbar_image_create failed") }
        defer { CImageShims_zbar_image_destroy(zimage) }
        CImageShims_zbar_image_set_format(zimage, fourcc("Y800"))
        CImageShims_zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        return try image.pixels.withUnsafeBufferPointer { pixels throws(QRError) -> [ScannedCode] in
            // zbar borrows the buffer (no cleanup handler) only until the data is reset below.
            CImageShims_zbar_image_set_data(zimage, pixels.baseAddress, UInt(pixels.count), nil)
            defer { CImageShims_zbar_image_set_data(zimage, nil, 0, nil) }
            let count = CImageShims_zbar_scan_image(scanner, zimage)
            guard count >= 0 else { throw .scannerFailed("zbar_scan_image failed") }
            var codes: [ScannedCode] = []
            var symbol = CImageShims_zbar_image_first_symbol(zimage)
            while let current = symbol {
                if CImageShims_zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = CImageShims_zbar_symbol_get_data(current) {
                    let length = Int(CImageShims_zbar_symbol_get_data_length(current))
                    let bytes = UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self)
                    codes.append(ScannedCode(payload: Array(UnsafeBufferPointer(start: bytes, count: length))))
                }
                symbol = CImageShims_zbar_symbol_next(current)
            }
            return codes
        }
    }

    /// `zbar_fourcc(a, b, c, d)`, a macro Swift cannot import.
    private static func fourcc(_ code: String) -> UInt {
        code.utf8.reversed().reduce(0) { $0 << 8 | UInt($1) }
    }
}
