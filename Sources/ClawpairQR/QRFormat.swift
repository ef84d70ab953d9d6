import ClawpairCore

/// The ways a `QRCode` can be drawn: the four terminal styles, then the two image formats.
///
/// Choose one from an output path with `forOutput(_:otherwise:)`, then draw with
/// `QRCode.rendering(_:layout:)`, which returns the bytes and their size in one value.
public enum QRFormat: String, Sendable, CaseIterable {
    /// Half blocks drawn on the light modules (`QRTerminalStyle.utf8`): for dark terminal themes.
    case utf8
    /// Half blocks drawn on the dark modules (`QRTerminalStyle.utf8Inverted`): for light themes.
    case utf8i
    /// Half blocks, black on white through ANSI colours (`QRTerminalStyle.ansi`): any theme.
    case ansi
    /// `##` and two spaces per module (`QRTerminalStyle.ascii`).
    case ascii
    /// A 1-bit PNG image.
    case png
    /// An SVG image.
    case svg

    /// The terminal style of a terminal format; nil for `png` and `svg`.
    public var terminalStyle: QRTerminalStyle? {
        switch self {
        case .utf8: return .utf8
        case .utf8i: return .utf8Inverted
        case .ansi: return .ansi
        case .ascii: return .ascii
        case .png, .svg: return nil
        }
    }

    /// Whether the format is an image (`png`, `svg`) rather than terminal text.
    public var isImage: Bool { terminalStyle == nil }

    /// The layout to use when none is given: `QRLayout.image` for images, `QRLayout.terminal`
    /// for terminal text.
    public var defaultLayout: QRLayout { isImage ? .image : .terminal }

    /// The format named by a file name's extension (`.png` or `.svg`, any case), else `fallback`.
    public static func forOutput(_ path: String?, otherwise fallback: QRFormat) -> QRFormat {
        guard let lowered = path?.lowercased() else { return fallback }
        if lowered.hasSuffix(".png") { return .png }
        if lowered.hasSuffix(".svg") { return .svg }
        return fallback
    }

    /// The image format a file name's extension names (`PNG`, `SVG`, `JPEG`, `GIF`, `WebP`, `BMP`,
    /// `TIFF`; any case), or nil when it names none: to refuse writing one format under another's
    /// name (a `.jpg` holding UTF-8 text, a `.png` holding SVG).
    public static func imageFormatNamed(by path: String) -> String? {
        let lowered = path.lowercased()
        guard let dot = lowered.lastIndex(of: "."), !lowered[dot...].contains("/") else { return nil }
        switch lowered[lowered.index(after: dot)...] {
        case "png": return "PNG"
        case "svg", "svgz": return "SVG"
        case "jpg", "jpeg", "jpe", "jfif": return "JPEG"
        case "gif": return "GIF"
        case "webp": return "WebP"
        case "bmp": return "BMP"
        case "tif", "tiff": return "TIFF"
        default: return nil
        }
    }

    /// Why drawing this format into the file `path` would mislead, or nil: its name promises
    /// another image format (``imageFormatNamed(by:)``), e.g. `pair.jpg names a JPEG image, but
    /// this would write utf8 text into it` (the path sanitized).
    public func misnamedOutput(_ path: String) -> String? {
        guard let named = Self.imageFormatNamed(by: path), named != rawValue.uppercased() else { return nil }
        let drawn = isImage ? rawValue.uppercased() : "\(rawValue) text"
        return "\(TerminalText.sanitize(path)) names a \(named) image, but this would write \(drawn) into it"
    }
}

/// One drawing of a `QRCode`: what to write and how big it is.
public struct QRRendering: Sendable, Equatable {
    /// The format drawn.
    public let format: QRFormat
    /// The bytes to write: UTF-8 text for terminal formats and SVG, PNG file bytes for PNG.
    public let bytes: [UInt8]
    /// The drawing as text (terminal formats and SVG); nil for PNG.
    public let text: String?
    /// Pixels (images) or terminal columns per line.
    public let width: Int
    /// Pixels (images) or terminal lines.
    public let height: Int
    /// The symbol drawn.
    public let code: QRCode
    /// The scale and quiet zone it was drawn with.
    public let layout: QRLayout
}

extension QRCode {
    /// Draws the code in `format` with `layout` (the format's `defaultLayout` when nil).
    ///
    /// Throws only for PNG, when libpng fails (`QRError.pngWriteFailed`).
    public func rendering(_ format: QRFormat, layout: QRLayout? = nil) throws(QRError) -> QRRendering {
        let layout = layout ?? format.defaultLayout
        if let style = format.terminalStyle {
            let text = terminalText(style: style, layout: layout)
            return QRRendering(format: format, bytes: Array(text.utf8), text: text,
                               width: terminalColumns(style: style, layout: layout),
                               height: terminalLines(style: style, layout: layout), code: self, layout: layout)
        }
        let side = layout.pixelsPerSide(self)
        if format == .svg {
            let text = svg(layout: layout)
            return QRRendering(format: format, bytes: Array(text.utf8), text: text, width: side, height: side,
                               code: self, layout: layout)
        }
        return QRRendering(format: format, bytes: try png(layout: layout), text: nil, width: side, height: side,
                           code: self, layout: layout)
    }
}
