import ClawpairCore
@testable import ClawpairQR
import Testing

/// One image read, decoded and scanned, failures kept in the result: as `qr scan` reports each image.
@Suite struct ImageScanTests {
    struct ReadFailed: ClawpairError {
        var message: String { "cannot read it" }
    }

    @Test("an image with a code: its format, size and codes; the summary and --json object")
    func found() throws {
        let png = try QRCode(encoding: "scan me").rendering(.png, layout: QRLayout(scale: 4, margin: 4)).bytes
        let scan = ImageScan(named: "pair.png", reading: { png })
        #expect(scan.error == nil && scan.loaded?.format == .png)
        #expect(scan.codes.map(\.text) == ["scan me"])
        #expect(scan.summary == "PNG, 116×116 pixels, 1 QR code")
        #expect(scan.detailLines == ["pair.png: PNG, 116×116 pixels, 1 QR code"] && scan.namedError == nil)
        let json = scan.json(image: "pair.png", code: { .object($0.jsonMembers) }, error: { _ in "unused" })
        #expect(json == .object([
            ("image", "pair.png"), ("format", "png"), ("width", .int(116)), ("height", .int(116)), ("warnings", .array([])),
            ("codes", .array([.object([("payload", "scan me"), ("payloadBase64", .string(Base64.encode(Array("scan me".utf8))))])])),
            ("error", .null),
        ]))
    }

    @Test("no code: searched, no error, 0 QR codes")
    func blank() {
        let white = GrayImage(width: 40, height: 40, pixels: [UInt8](repeating: 255, count: 1600))
        let scan = ImageScan(named: "none", loaded: nil, codes: [], error: nil)
        #expect(scan.summary == nil && scan.codes.isEmpty && scan.detailLines.isEmpty)
        let warned = LoadedImage(format: .jpeg, image: white, warnings: ["Corrupt JPEG data: 1 \u{1B} extraneous bytes"])
        #expect(ImageScan(named: "a.jpg", loaded: warned, codes: [], error: nil).detailLines == [
            "a.jpg: JPEG, 40×40 pixels, 0 QR codes",
            "a.jpg: decoder warning: " + TerminalText.sanitize("Corrupt JPEG data: 1 \u{1B} extraneous bytes"),
        ])
        let pgm = Array("P5\n40 40\n255\n".utf8) + white.pixels
        let searched = ImageScan(named: "blank.pgm", reading: { pgm })
        #expect(searched.error == nil && searched.codes.isEmpty && searched.summary == "PNM, 40×40 pixels, 0 QR codes")
    }

    @Test("a failure to read or decode is the result's error, not thrown; --json has nulls and the error object")
    func failures() {
        let unreadable = ImageScan(named: "x.png", reading: { throw ReadFailed() })
        #expect(unreadable.error is ReadFailed && unreadable.loaded == nil && unreadable.codes.isEmpty)
        #expect((unreadable.namedError as? ContextualError)?.message == "x.png: cannot read it")
        let gif = ImageScan(named: "standard input", reading: { Array("GIF89a-not-read".utf8) })
        #expect(gif.error as? QRError == .unsupportedImage(detected: "GIF"))
        let json = gif.json(image: "-", code: { _ in .null }, error: { .string(($0 as? QRError)?.code ?? "?") })
        #expect(json == .object([("image", "-"), ("format", .null), ("width", .null), ("height", .null),
                                 ("warnings", .array([])), ("codes", .array([])), ("error", "unsupported-image")]))
        let large = ImageScan(named: "big", reading: { [UInt8](repeating: 0, count: 64) }, limits: ImageLimits(maxFileBytes: 16))
        #expect(large.error as? QRError == .inputTooLarge(bytes: 64, limit: 16))
        // FileIO's errors name the file themselves.
        let missing = ImageScan(named: "/nonexistent/q.png", reading: { try FileIO.read(path: "/nonexistent/q.png", limit: 16) })
        #expect(missing.error != nil && !(missing.namedError is ContextualError))
        #expect((missing.namedError as? any ClawpairError)?.message.hasPrefix("/nonexistent/q.png") == true)
    }

    @Test("a payload that is not UTF-8: null text, exact bytes in base64")
    func binaryPayload() {
        let members = JSONValue.object(ScannedCode(payload: [0xFF, 0x00]).jsonMembers)
        #expect(members == .object([("payload", .null), ("payloadBase64", .string(Base64.encode([0xFF, 0x00])))]))
    }
}
