import ClawpairCore

// What a drawing is, for people and for scripts: `clawpair qr render` prints these, and a
// program that draws setup codes can show or log the same.

extension QRRendering {
    /// A PNG drawing as a `data:image/png;base64,…` URL (the form of upstream's `qrDataUrl`); nil
    /// for the other formats, whose drawing is ``text``.
    public var dataURL: String? {
        format == .png ? "data:image/png;base64," + Base64.encode(bytes) : nil
    }

    /// The drawing's members of a JSON report, in order: `format`, `version`,
    /// `errorCorrection`, `modules` (per side, without margin), `margin`, `scale`, `width`,
    /// `height`, `output`, `text` and `dataUrl`. `output` is the file the bytes were written to;
    /// with nil (standard output) the drawing itself is in `text` (terminal formats and SVG) or
    /// `dataUrl` (PNG), which are null when a file holds it.
    public func jsonMembers(output: String?) -> [(String, JSONValue)] {
        [
            ("format", .string(format.rawValue)),
            ("version", .int(Int64(code.version))),
            ("errorCorrection", .string(code.errorCorrection.rawValue)),
            ("modules", .int(Int64(code.size))),
            ("margin", .int(Int64(layout.margin))),
            ("scale", .int(Int64(layout.scale))),
            ("width", .int(Int64(width))),
            ("height", .int(Int64(height))),
            ("output", output.map(JSONValue.string) ?? .null),
            ("text", output == nil ? text.map(JSONValue.string) ?? .null : .null),
            ("dataUrl", output == nil ? dataURL.map(JSONValue.string) ?? .null : .null),
        ]
    }

    /// The drawing in one phrase: `png, 342×342 pixels, QR version 8, error correction M` for
    /// an image, `utf8, 53 columns by 27 lines, QR version 8, error correction M` for terminal text.
    public var summary: String {
        let size = format.isImage ? "\(width)×\(height) pixels" : "\(width) columns by \(height) lines"
        return "\(format.rawValue), \(size), QR version \(code.version), error correction \(code.errorCorrection.rawValue)"
    }

    /// The symbol's parameters: `QR version 8 (49×49 modules), error correction M, margin 2, scale 1`.
    public var parameters: String {
        "QR version \(code.version) (\(code.size)×\(code.size) modules), error correction "
            + "\(code.errorCorrection.rawValue), margin \(layout.margin), scale \(layout.scale)"
    }
}
