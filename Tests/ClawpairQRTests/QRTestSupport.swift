import ClawpairQR
import ClawpairSetupCode
import ClawpairTestSupport
import Foundation

/// Helpers shared by the QR tests: sample codes, external tools, scratch directories, and the
/// terminal-text reader that turns rendered text back into modules.
enum QRTestSupport {
    /// A realistic G4 code: wss primary with a TLS pin, a LAN fallback, a 43-character token.
    static let sampleCode: String = {
        let minted = try! SetupCode.make(
            urls: ["wss://gateway.example.com", "ws://192.168.1.20:18789"],
            bootstrapToken: "Jq3v0H8oS2m7xYtq2Vb8nKc4pL1rZ6wE9uA5dF0gH2s", expiresAtMs: 1_737_264_600_000,
            tlsFingerprint: "a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
            defaultScheme: .wss)
        return minted.code
    }()

    /// The T13 vector code (128 bytes: version 8 at level M).
    static let shortCode = "eyJ1cmwiOiJ3czovLzE5Mi4xNjguMS4yMDoxODc4OSIsImJvb3RzdHJhcFRva2VuIjoiYm9vdHN0cmFwLWFiYyIsImV4cGlyZXNBdE1zIjoxNzM3MjY0NjAwMDAwfQ"

    /// The result of running a tool.
    struct ToolResult {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `executable` (an absolute path) with `arguments`, feeding `stdin`, capturing both outputs.
    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "MAGICK_THREAD_LIMIT": "1", "OMP_NUM_THREADS": "1"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outBox = DataBox(), errBox = DataBox()
        let group = DispatchGroup()
        for (pipe, box) in [(output, outBox), (errors, errBox)] {
            group.enter()
            DispatchQueue.global().async {
                box.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        // The tool may exit before reading its input; that must not kill the test process.
        if let stdin { writeIgnoringBrokenPipe(stdin, to: input.fileHandleForWriting.fileDescriptor) }
        try? input.fileHandleForWriting.close()
        if group.wait(timeout: .now() + 60) == .timedOut {
            process.terminate()
            throw ToolError("\(executable) \(arguments) did not finish within 60 s")
        }
        process.waitUntilExit()
        return ToolResult(status: process.terminationStatus, stdout: outBox.get(),
                          stderr: String(decoding: errBox.get(), as: UTF8.self))
    }

    /// `zbarimg --raw -q FILE`: the payloads it prints, one per line (nil when it found none).
    static func zbarimg(_ path: String) throws -> [String]? {
        let result = try run("/usr/bin/zbarimg", ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", path])
        guard result.status == 0 else { return nil }
        return result.text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// A fresh scratch directory, removed by `cleanup`.
    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-qr-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A binary PGM (P5) of `image`, which zbarimg and ImageMagick read.
    static func pgm(_ image: GrayImage) -> Data {
        var data = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
        data.append(contentsOf: image.pixels)
        return data
    }

    /// The laid-out page of `code` as rows of dark/light modules (margin included).
    static func page(_ code: QRCode, margin: Int) -> [[Bool]] {
        let side = code.size + 2 * margin
        return (0..<side).map { y in (0..<side).map { x in code.isDark(x: x - margin, y: y - margin) } }
    }
}

/// Reads terminal renderings back, and draws them as a terminal would.
enum TerminalReader {
    /// A character cell: which of its halves the terminal paints in the text colour.
    struct Cell: Equatable {
        var upper: Bool
        var lower: Bool
    }

    /// Splits `text` into lines of cells. ANSI SGR sequences are removed (checked to be only the
    /// black-on-white wrapper for `.ansi`). ASCII gives one row per line of `##`/two spaces.
    static func cells(_ text: String, style: QRTerminalStyle) throws -> [[Cell]] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.last == "" else { throw ToolError("the text does not end with a newline") }
        lines.removeLast()
        return try lines.map { line in
            var body = Substring(line)
            if style == .ansi {
                guard body.hasPrefix("\u{1B}[47m\u{1B}[30m"), body.hasSuffix("\u{1B}[0m") else {
                    throw ToolError("an ansi line is not wrapped in ESC[47m ESC[30m … ESC[0m: \(line.debugDescription)")
                }
                body = body.dropFirst(10).dropLast(4)
            }
            if style == .ascii {
                let chars = Array(body)
                guard chars.count % 2 == 0 else { throw ToolError("odd ASCII line length") }
                return try stride(from: 0, to: chars.count, by: 2).map { index in
                    switch (chars[index], chars[index + 1]) {
                    case ("#", "#"): return Cell(upper: true, lower: true)
                    case (" ", " "): return Cell(upper: false, lower: false)
                    default: throw ToolError("unexpected ASCII pair \(chars[index])\(chars[index + 1])")
                    }
                }
            }
            return try body.map { char in
                switch char {
                case "\u{2588}": return Cell(upper: true, lower: true)
                case "\u{2580}": return Cell(upper: true, lower: false)
                case "\u{2584}": return Cell(upper: false, lower: true)
                case " ": return Cell(upper: false, lower: false)
                default: throw ToolError("unexpected character \(char.debugDescription)")
                }
            }
        }
    }

    /// Module rows as the rendering shows them: `true` where the module is dark.
    static func modules(_ text: String, style: QRTerminalStyle) throws -> [[Bool]] {
        let lines = try cells(text, style: style)
        // Which modules the text colour paints: light ones for utf8, dark ones otherwise.
        let paintIsDark = style != .utf8
        var rows: [[Bool]] = []
        for line in lines {
            if style == .ascii {
                rows.append(line.map { $0.upper == paintIsDark })
            } else {
                rows.append(line.map { $0.upper == paintIsDark })
                rows.append(line.map { $0.lower == paintIsDark })
            }
        }
        return rows
    }

    /// What a screen shows: each module `pixels` square, text colour and background per the
    /// style and theme, and `border` pixels of terminal background around the drawn area.
    /// utf8 is shown on a dark theme, utf8i and ascii on a light one, ansi on a dark theme
    /// (its own colours cover the code; the surround is the theme's).
    static func screen(_ text: String, style: QRTerminalStyle, pixels: Int = 4, border: Int = 24) throws -> GrayImage {
        let lines = try cells(text, style: style)
        let rowsPerLine = style == .ascii ? 1 : 2
        let columns = lines.map(\.count).max() ?? 0
        let width = columns * pixels + 2 * border
        let height = lines.count * rowsPerLine * pixels + 2 * border
        let (ink, background, surround): (UInt8, UInt8, UInt8)
        switch style {
        case .utf8: (ink, background, surround) = (230, 20, 20)           // light text on a dark theme
        case .utf8Inverted, .ascii: (ink, background, surround) = (20, 235, 235)  // dark text on a light theme
        case .ansi: (ink, background, surround) = (0, 229, 20)            // ESC[30m on ESC[47m, dark theme outside
        }
        var image = [UInt8](repeating: surround, count: width * height)
        for (lineIndex, line) in lines.enumerated() {
            for (column, cell) in line.enumerated() {
                for half in 0..<rowsPerLine {
                    let painted = half == 0 ? cell.upper : cell.lower
                    let value = painted ? ink : background
                    let top = border + (lineIndex * rowsPerLine + half) * pixels
                    let left = border + column * pixels
                    for y in top..<(top + pixels) {
                        for x in left..<(left + pixels) { image[y * width + x] = value }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: image)
    }
}

/// A test helper failure with a message.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A Data value handed across threads.
final class DataBox: @unchecked Sendable {
    private var value = Data()
    private let lock = NSLock()
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ data: Data) { lock.lock(); value = data; lock.unlock() }
}
