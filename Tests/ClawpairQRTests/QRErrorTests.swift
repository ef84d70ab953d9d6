import ClawpairCore
import ClawpairQR
import ClawpairTestSupport
import Testing

@Suite("QR errors")
struct QRErrorTests {
    @Test("hints name no option and no clawpair command (the executable words those)")
    func hintsNameNoCommandLine() {
        let errors: [QRError] = [
            .emptyPayload, .payloadTooLong(bytes: 3000, maximum: 2953, errorCorrection: .low),
            .payloadTooLong(bytes: 3000, maximum: 1273, errorCorrection: .high),
            .invalidParameter(name: "scale", value: 0, allowed: 1...64), .encoderFailed(errno: 12),
            .pngWriteFailed("disk full"), .unsupportedImage(detected: "SVG"), .unsupportedImage(detected: "GIF"),
            .unsupportedImage(detected: nil), .inputTooLarge(bytes: 2, limit: 1),
            .imageTooLarge(width: 2, height: 2, maxPixels: 1), .corruptImage(format: .png, reason: "crc"),
            .scannerFailed("x"), .scannerUnavailable("x"),
        ]
        #expect(LibraryHints.offenders(errors).isEmpty, "\(LibraryHints.offenders(errors))")
        #expect(QRError.payloadTooLong(bytes: 3000, maximum: 1273, errorCorrection: .high).hint
                == "use a lower error-correction level (L) or shorten the text")
    }
}
