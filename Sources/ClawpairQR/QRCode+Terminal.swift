// Terminal text renderings of a QR code (setup-codes.md §9, "Terminal").
//
// Half-block styles put two module rows in one text line: per column, both dark → █ (U+2588),
// top only → ▀ (U+2580), bottom only → ▄ (U+2584), neither → space. "Dark" here means "drawn in
// the terminal's text colour"; which modules that is depends on the style. When the page has an
// odd number of rows, the missing bottom row of the last line counts as light.

/// How a QR code is drawn as terminal text.
public enum QRTerminalStyle: String, Sendable, CaseIterable {
    /// Half blocks drawn on the light modules, for dark themes (light text on a dark background,
    /// the common case): the text colour paints the light modules and the quiet zone.
    case utf8
    /// Half blocks drawn on the dark modules, for light themes (dark text on a light background).
    case utf8Inverted = "utf8i"
    /// Half blocks drawn on the dark modules, each line wrapped in `ESC[47m ESC[30m` … `ESC[0m`
    /// (black on white) so it scans on any theme: upstream's compact form.
    case ansi
    /// Plain ASCII, one line per module row: `##` for a dark module, two spaces for a light one.
    case ascii

    /// Whether the text colour paints the dark modules (true) or the light ones.
    var inkOnDark: Bool { self != .utf8 }
}

extension QRCode {
    /// The code as terminal text, one `\n`-terminated line per text row.
    public func terminalText(style: QRTerminalStyle, layout: QRLayout = .terminal) -> String {
        let side = layout.modulesPerSide(self) * layout.scale
        let dark: (Int, Int) -> Bool = { x, y in
            self.isDark(page: x / layout.scale, y / layout.scale, margin: layout.margin)
        }
        var out: [UInt8] = []
        switch style {
        case .ascii:
            out.reserveCapacity(side * (2 * side + 1))
            for y in 0..<side {
                for x in 0..<side {
                    let byte: UInt8 = dark(x, y) ? UInt8(ascii: "#") : UInt8(ascii: " ")
                    out.append(byte)
                    out.append(byte)
                }
                out.append(UInt8(ascii: "\n"))
            }
        case .utf8, .utf8Inverted, .ansi:
            let open = Array("\u{1B}[47m\u{1B}[30m".utf8), close = Array("\u{1B}[0m".utf8)
            out.reserveCapacity((side + 1) / 2 * (3 * side + open.count + close.count + 1))
            for top in stride(from: 0, to: side, by: 2) {
                if style == .ansi { out += open }
                for x in 0..<side {
                    let upper = dark(x, top) == style.inkOnDark
                    // A missing last row is light.
                    let lowerDark = top + 1 < side ? dark(x, top + 1) : false
                    let lower = lowerDark == style.inkOnDark
                    out += Self.halfBlock(upper: upper, lower: lower)
                }
                if style == .ansi { out += close }
                out.append(UInt8(ascii: "\n"))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// How many terminal columns ``terminalText(style:layout:)`` needs.
    public func terminalColumns(style: QRTerminalStyle, layout: QRLayout = .terminal) -> Int {
        let side = layout.modulesPerSide(self) * layout.scale
        return style == .ascii ? 2 * side : side
    }

    /// How many text lines ``terminalText(style:layout:)`` prints.
    public func terminalLines(style: QRTerminalStyle, layout: QRLayout = .terminal) -> Int {
        let side = layout.modulesPerSide(self) * layout.scale
        return style == .ascii ? side : (side + 1) / 2
    }

    private static let fullBlock = Array("\u{2588}".utf8)
    private static let upperHalf = Array("\u{2580}".utf8)
    private static let lowerHalf = Array("\u{2584}".utf8)
    private static let space = [UInt8(ascii: " ")]

    /// The glyph for a cell whose upper and lower halves are painted or not.
    private static func halfBlock(upper: Bool, lower: Bool) -> [UInt8] {
        switch (upper, lower) {
        case (true, true): return fullBlock
        case (true, false): return upperHalf
        case (false, true): return lowerHalf
        case (false, false): return space
        }
    }
}
