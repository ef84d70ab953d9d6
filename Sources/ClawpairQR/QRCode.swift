// QR symbols: the module matrix libqrencode produced, and how it is laid out on a page.
//
// The matrix is a plain value; every renderer (terminal text, SVG, PNG, gray image) reads it
// through `isDark(x:y:)` and a validated `QRLayout`, so none of them can index out of range.

/// A QR code error-correction level (ISO/IEC 18004 §7.5.1).
public enum QRErrorCorrection: String, Sendable, CaseIterable {
    /// About 7% of the symbol can be restored.
    case low = "L"
    /// About 15%: the default, as upstream OpenClaw (npm `qrcode`) uses.
    case medium = "M"
    /// About 25%.
    case quartile = "Q"
    /// About 30%.
    case high = "H"

    /// The most 8-bit-mode bytes a version 40 symbol holds at this level (ISO/IEC 18004 Table 7).
    public var maxBytes: Int {
        switch self {
        case .low: return 2953
        case .medium: return 2331
        case .quartile: return 1663
        case .high: return 1273
        }
    }
}

/// An encoded QR symbol: its version, error-correction level and module matrix.
///
/// Made with libqrencode: the whole payload in 8-bit byte mode (setup codes are base64url
/// text, which byte mode carries as is), the smallest version that fits, and the mask
/// libqrencode's penalty rules pick.
public struct QRCode: Sendable, Equatable {
    /// The symbol version, 1 to 40.
    public let version: Int
    /// The error-correction level.
    public let errorCorrection: QRErrorCorrection
    /// Modules per side, without any quiet zone (`17 + 4 * version`).
    public let size: Int
    /// `size * size` modules, row by row; `true` is dark.
    let modules: [Bool]

    /// Encodes `payload` bytes in 8-bit mode at `errorCorrection`, in the smallest version that fits.
    ///
    /// Throws ``QRError/emptyPayload``, ``QRError/payloadTooLong(bytes:maximum:errorCorrection:)``
    /// or ``QRError/encoderFailed(errno:)``.
    public init(encoding payload: [UInt8], errorCorrection: QRErrorCorrection = .medium) throws(QRError) {
        guard !payload.isEmpty else { throw .emptyPayload }
        guard payload.count <= errorCorrection.maxBytes else {
            throw .payloadTooLong(bytes: payload.count, maximum: errorCorrection.maxBytes, errorCorrection: errorCorrection)
        }
        let symbol = try Self.encodeWithQRencode(payload, level: errorCorrection)
        self.version = symbol.version
        self.errorCorrection = errorCorrection
        self.size = symbol.size
        self.modules = symbol.modules
    }

    /// Encodes the UTF-8 bytes of `text` (see the byte initializer).
    public init(encoding text: String, errorCorrection: QRErrorCorrection = .medium) throws(QRError) {
        try self.init(encoding: Array(text.utf8), errorCorrection: errorCorrection)
    }

    /// Whether the module at column `x`, row `y` is dark. Outside the symbol (the quiet zone) it is light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }
}

/// How a symbol is placed on a page: pixels (or terminal cells) per module and the quiet zone.
///
/// Checked once here, so every renderer can rely on it.
public struct QRLayout: Sendable, Equatable {
    /// Allowed scales: pixels per module in images, repeats per module in terminal text.
    public static let scaleRange = 1...32
    /// Allowed margins, in modules (upstream allows 0 to 16).
    public static let marginRange = 0...16

    /// PNG and SVG as upstream draws them (`src/media/qr-image.ts`): 6 pixels per module, a 4-module margin.
    public static let image = QRLayout(checkedScale: 6, margin: 4)
    /// Terminal text: one cell column (and half a line) per module, a 2-module margin.
    ///
    /// ISO/IEC 18004 asks for a 4-module quiet zone. On a terminal the code is surrounded by the
    /// terminal's own background, which on most themes is dark, so the quiet zone is drawn
    /// explicitly. zbar decodes these codes down to a 1-module margin with a black surround (the
    /// upstream compact form); 2 modules keep one module in hand for phone scanners and low-contrast
    /// themes while the code stays 4 columns and 2 lines smaller than with 4.
    public static let terminal = QRLayout(checkedScale: 1, margin: 2)

    /// Pixels (images) or repeats (terminal text) per module.
    public let scale: Int
    /// Light modules around the symbol on every side.
    public let margin: Int

    /// A layout with `scale` in ``scaleRange`` and `margin` in ``marginRange``.
    public init(scale: Int, margin: Int) throws(QRError) {
        guard Self.scaleRange.contains(scale) else {
            throw .invalidParameter(name: "scale", value: scale, allowed: Self.scaleRange)
        }
        guard Self.marginRange.contains(margin) else {
            throw .invalidParameter(name: "margin", value: margin, allowed: Self.marginRange)
        }
        self.init(checkedScale: scale, margin: margin)
    }

    private init(checkedScale scale: Int, margin: Int) {
        self.scale = scale
        self.margin = margin
    }

    /// Modules per side of `code` including the margin on both sides.
    public func modulesPerSide(_ code: QRCode) -> Int { code.size + 2 * margin }

    /// Pixels per side of `code` drawn with this layout.
    public func pixelsPerSide(_ code: QRCode) -> Int { modulesPerSide(code) * scale }
}

extension QRCode {
    /// Whether the module at `(x, y)` of the laid-out page (margin included, unscaled) is dark.
    func isDark(page x: Int, _ y: Int, margin: Int) -> Bool {
        isDark(x: x - margin, y: y - margin)
    }

    /// The laid-out page as a gray image: dark modules 0, light 255, `layout.scale` pixels per module.
    public func image(layout: QRLayout = .image) -> GrayImage {
        let side = layout.pixelsPerSide(self)
        var pixels = [UInt8](repeating: 255, count: side * side)
        let scale = layout.scale
        for y in 0..<size {
            for x in 0..<size where modules[y * size + x] {
                let left = (x + layout.margin) * scale
                for row in 0..<scale {
                    let start = ((y + layout.margin) * scale + row) * side + left
                    for column in start..<(start + scale) { pixels[column] = 0 }
                }
            }
        }
        return GrayImage(width: side, height: side, pixels: pixels)
    }
}
