import ClawpairCore
import ClawpairQR
import Testing

/// What a drawing says about itself: `qr render --json`'s members, the one-line summary, the
/// symbol's parameters and the PNG data URL.
@Suite struct QRRenderingReportTests {
    @Test("the summary and parameters of an image and of terminal text")
    func summaries() throws {
        let code = try QRCode(encoding: "hello")
        #expect(code.version == 1 && code.size == 21)
        let png = try code.rendering(.png)
        #expect(png.summary == "png, 174×174 pixels, QR version 1, error correction M")
        #expect(png.parameters == "QR version 1 (21×21 modules), error correction M, margin 4, scale 6")
        let text = try QRCode(encoding: "hello", errorCorrection: .high).rendering(.utf8, layout: .terminal)
        #expect(text.summary == "utf8, 25 columns by 13 lines, QR version 1, error correction H")
        #expect(text.parameters == "QR version 1 (21×21 modules), error correction H, margin 2, scale 1")
        #expect(text.code.errorCorrection == .high && text.layout == .terminal)
    }

    @Test("the data URL is the PNG's bytes in base64; nil for text formats")
    func dataURL() throws {
        let code = try QRCode(encoding: "hello")
        let png = try code.rendering(.png)
        #expect(png.dataURL == "data:image/png;base64," + Base64.encode(png.bytes))
        #expect(try code.rendering(.svg).dataURL == nil)
        #expect(try code.rendering(.ascii).dataURL == nil)
    }

    @Test("--json members: the drawing itself only for standard output (text or dataUrl), the file name otherwise")
    func jsonMembers() throws {
        let code = try QRCode(encoding: "hello")
        let svg = try code.rendering(.svg, layout: QRLayout(scale: 2, margin: 1))
        let members = svg.jsonMembers(output: nil)
        #expect(members.map(\.0) == ["format", "version", "errorCorrection", "modules", "margin", "scale", "width", "height",
                                     "output", "text", "dataUrl"])
        #expect(JSONValue.object(members) == .object([
            ("format", "svg"), ("version", .int(1)), ("errorCorrection", "M"), ("modules", .int(21)),
            ("margin", .int(1)), ("scale", .int(2)), ("width", .int(46)), ("height", .int(46)),
            ("output", .null), ("text", .string(svg.text ?? "")), ("dataUrl", .null),
        ]))
        let toFile = JSONValue.object(svg.jsonMembers(output: "pair.svg"))
        #expect(toFile["output"] == "pair.svg" && toFile["text"] == .null && toFile["dataUrl"] == .null)
        let png = try code.rendering(.png)
        let piped = JSONValue.object(png.jsonMembers(output: nil))
        #expect(piped["text"] == .null && piped["dataUrl"]?.stringValue == png.dataURL)
    }
}
