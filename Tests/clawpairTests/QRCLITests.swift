import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair qr render|scan` through the built binary, checked against independent tools
/// (zbarimg, qrencode, rsvg-convert) and exact expectations.
@Suite struct QRCLITests {
    /// 2025-01-19T05:20:00Z: ten minutes before the T13 vector's expiry.
    static let now: Int64 = 1_737_264_000_000
    static let t13 = "eyJ1cmwiOiJ3czovLzE5Mi4xNjguMS4yMDoxODc4OSIsImJvb3RzdHJhcFRva2VuIjoiYm9vdHN0cmFwLWFiYyIsImV4cGlyZXNBdE1zIjoxNzM3MjY0NjAwMDAwfQ"
    static let t13JSON = #"{"url":"ws://192.168.1.20:18789","bootstrapToken":"bootstrap-abc","expiresAtMs":1737264600000}"#

    // MARK: render

    @Test("terminal formats decode with zbarimg after being drawn as a screen shows them",
          arguments: ["utf8", "utf8i", "ansi", "ascii"])
    func terminalFormatsScan(format: String) throws {
        let result = try ClawpairBinary.run(["qr", "render", "--format", format], stdin: Self.t13 + "\n", nowMs: Self.now)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let directory = try Scratch()
        let screen = try TerminalScreen.pgm(result.stdout, format: format)
        let file = directory.path("screen.pgm")
        try screen.write(to: URL(fileURLWithPath: file))
        #expect(try Tools.zbarimg(file) == [Self.t13], "\(format)")
    }

    @Test("utf8 is the default; the margin is 2 modules on the terminal")
    func terminalDefaults() throws {
        let result = try ClawpairBinary.run(["qr", "render"], stdin: Self.t13, nowMs: Self.now)
        let explicit = try ClawpairBinary.run(["qr", "render", "-t", "utf8", "--margin", "2", "-"], stdin: Self.t13, nowMs: Self.now)
        #expect(result.stdout == explicit.stdout)
        // T13 (128 bytes) is version 8 (49 modules) at M: 53 columns, 27 lines (the last half row
        // is light); the first line is all quiet zone.
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 27 && lines.allSatisfy { $0.count == 53 }, "\(lines.count) lines")
        #expect(lines[0] == Substring(String(repeating: "\u{2588}", count: 53)))
    }

    @Test("every setup input form renders the canonical bare code", arguments: [
        "oc-pair://" + t13, "  " + t13 + "  ", t13JSON, "Here is your code: " + t13 + " (valid 10 minutes)",
    ])
    func inputForms(input: String) throws {
        let directory = try Scratch()
        let file = directory.path("code.png")
        let result = try ClawpairBinary.run(["qr", "render", "-o", file, "-"], stdin: input, nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(try Tools.zbarimg(file) == [Self.t13])
    }

    @Test("PNG output: private file, upstream layout, read by zbarimg; never replaced without --force")
    func pngFile() throws {
        let directory = try Scratch()
        let file = directory.path("pair.png")
        let result = try ClawpairBinary.run(["qr", "render", "-o", file], stdin: Self.t13, nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Wrote \(file): png, 342×342 pixels, QR version 8, error correction M.\n"
                + "It holds a setup code, a secret: the file is private (0600); delete it once the device has paired.\n"
                + "Check it with: clawpair qr scan \(file)\n", "\(result)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Tools.zbarimg(file) == [Self.t13])
        let png = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))

        let again = try ClawpairBinary.run(["qr", "render", "-o", file], stdin: Self.t13, nowMs: Self.now)
        #expect(again.status == 1)
        #expect(again.stderr == "error: \(file) already exists\nhint: pass --force to replace it, or choose another path\n")
        let forced = try ClawpairBinary.run(["qr", "render", "--force", "--ec", "H", "-o", file], stdin: Self.t13, nowMs: Self.now)
        #expect(forced.status == 0, "\(forced)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != png)
    }

    @Test("SVG output rasterized by rsvg-convert is read by zbarimg")
    func svgFile() throws {
        let directory = try Scratch()
        let svg = directory.path("pair.svg"), png = directory.path("pair-svg.png")
        let result = try ClawpairBinary.run(["qr", "render", "-q", "-o", svg], stdin: Self.t13, nowMs: Self.now)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"342\" height=\"342\" viewBox=\"0 0 57 57\""))
        #expect(try Tools.run("/usr/bin/rsvg-convert", ["-o", png, svg]).status == 0)
        #expect(try Tools.zbarimg(png) == [Self.t13])
    }

    @Test("PNG to a pipe is written as bytes; --scale and --margin change its size")
    func pngToStdout() throws {
        let result = try Tools.run(ClawpairBinary.path, ["qr", "render", "-t", "png", "--scale", "2", "--margin", "1"],
                                   stdin: Data(Self.t13.utf8), environment: ["CLAWPAIR_NOW_MS": String(Self.now)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // IHDR width: (49 + 2) × 2 = 102.
        #expect(Array(result.stdout[16..<20]) == [0, 0, 0, 102])
    }

    @Test("--raw draws any text; from standard input with -")
    func raw() throws {
        let directory = try Scratch()
        let file = directory.path("raw.png")
        let given = try ClawpairBinary.run(["qr", "render", "--raw", "https://example.com/a?b=c", "-o", file])
        #expect(given.status == 0, "\(given)")
        #expect(try Tools.zbarimg(file) == ["https://example.com/a?b=c"])
        let piped = try ClawpairBinary.run(["qr", "render", "--force", "--raw", "-", "-o", file], stdin: "Grüße ✓\n")
        #expect(piped.status == 0, "\(piped)")
        #expect(try ClawpairBinary.run(["qr", "scan", file]).stdout == "Grüße ✓\n")
    }

    @Test("--json describes the drawing; png without --output comes as a data URL")
    func renderJSON() throws {
        let result = try ClawpairBinary.run(["qr", "render", "--json", "-t", "png"], stdin: Self.t13, nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["ok", "input", "format", "version", "errorCorrection", "modules", "margin", "scale",
                                     "width", "height", "output", "text", "dataUrl", "error"])
        #expect(object["version"] as? Int == 8 && object["modules"] as? Int == 49 && object["width"] as? Int == 342)
        #expect(object["input"] as? String == "setup-code" && object["errorCorrection"] as? String == "M")
        let dataURL = try #require(object["dataUrl"] as? String)
        #expect(dataURL.hasPrefix("data:image/png;base64,iVBORw0KGgo"))
        #expect(object["text"] is NSNull && object["output"] is NSNull)

        let levels = try ["L", "M", "Q", "H"].map { level -> Int in
            let run = try ClawpairBinary.run(["qr", "render", "--json", "--ec", level], stdin: Self.t13, nowMs: Self.now)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(json["version"] as? Int)
        }
        #expect(levels == [6, 8, 9, 11], "versions per level")
    }

    @Test("too long for any QR version: a clear error naming the limit")
    func tooLong() throws {
        let result = try ClawpairBinary.run(["qr", "render", "--raw", "-", "--ec", "H"], stdin: String(repeating: "x", count: 1274))
        #expect(result.status == 1)
        #expect(result.stderr == "error: 1274 bytes do not fit in a QR code with error correction H (at most 1273 bytes)\n"
                + "hint: use a lower error-correction level (--ec L) or shorten the text\n", "\(result)")
        let json = try ClawpairBinary.run(["--json", "qr", "render", "--raw", "-", "--ec", "H"], stdin: String(repeating: "x", count: 1274))
        #expect(json.stdout.contains("\"code\": \"payload-too-long\""), "\(json)")
    }

    @Test("refusals: expired codes (4), deep links and URLs (1), non-setup text (1)")
    func refusals() throws {
        let expired = try ClawpairBinary.run(["qr", "render"], stdin: Self.t13, nowMs: Self.now + 600_000)
        #expect(expired.status == 4, "\(expired)")
        #expect(expired.stdout.isEmpty)
        let link = try ClawpairBinary.run(["qr", "render"], stdin: "openclaw://gateway?host=gw.local&port=18789")
        #expect(link.status == 1)
        #expect(link.stderr.hasPrefix("error: this is a deep link, not a setup code"), "\(link)")
        let url = try ClawpairBinary.run(["qr", "render"], stdin: "wss://gateway.example.com")
        #expect(url.stderr.hasPrefix("error: this is a gateway URL, not a setup code"), "\(url)")
        let junk = try ClawpairBinary.run(["qr", "render"], stdin: "hello world")
        #expect(junk.status == 1, "\(junk)")
    }

    @Test("a setup code on the command line warns")
    func argumentWarning() throws {
        let result = try ClawpairBinary.run(["qr", "render", Self.t13], nowMs: Self.now)
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("warning: this setup code was given on the command line"), "\(result)")
    }

    @Test("usage errors exit 2", arguments: [
        (["--format", "gif"], "error: unknown format 'gif'\nhint: use one of: utf8, utf8i, ansi, ascii, png, svg\n"),
        (["--ec", "X"], "error: unknown error correction level 'X'\nhint: use L, M, Q or H\n"),
        (["--margin", "17"], "error: --margin must be a whole number from 0 to 16, not '17'\n"),
        (["--scale", "0"], "error: --scale must be a whole number from 1 to 32, not '0'\n"),
        (["--raw", "x", "code"], "error: give either a setup input or --raw TEXT, not both\nhint: see 'clawpair qr render --help'\n"),
    ])
    func usageErrors(arguments: [String], stderr: String) throws {
        let result = try ClawpairBinary.run(["qr", "render"] + arguments, stdin: Self.t13)
        #expect(result.status == 2)
        #expect(result.stderr == stderr, "\(result)")
    }

    // MARK: scan

    /// libzbar drags in D-Bus, V4L2, X11 and systemd libraries; it is loaded by `qr scan` only,
    /// so that every other command starts fast.
    @Test("the binary does not link libzbar; qr scan loads it on demand")
    func zbarNotLinked() throws {
        let ldd = try Tools.run("/usr/bin/ldd", [ClawpairBinary.path])
        #expect(ldd.status == 0)
        #expect(!String(decoding: ldd.stdout, as: UTF8.self).contains("libzbar"), "\(String(decoding: ldd.stdout, as: UTF8.self))")
    }

    @Test("scan reads qrencode's PNG; a setup code gets a note on stderr")
    func scanQrencodePNG() throws {
        let directory = try Scratch()
        let file = directory.path("q.png")
        #expect(try Tools.run("/usr/bin/qrencode", ["-t", "PNG", "-o", file, Self.t13]).status == 0)
        let result = try ClawpairBinary.run(["qr", "scan", file], nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == Self.t13 + "\n")
        #expect(result.stderr == "\(file): this is an OpenClaw setup code, a secret: whoever has it can pair with the "
                + "gateway until it expires in 10m. See what it holds: pipe it to 'clawpair setup-code decode -'.\n", "\(result)")
        let quiet = try ClawpairBinary.run(["qr", "scan", "-q", file], nowMs: Self.now)
        #expect(quiet.stderr.isEmpty)
        let piped = try ClawpairBinary.run(["setup-code", "decode", "--json", "-"], stdin: result.stdout, nowMs: Self.now)
        #expect(piped.status == 0)
    }

    @Test("scan reads JPEG and PGM from standard input, sniffed from the bytes")
    func scanStdin() throws {
        let directory = try Scratch()
        let png = directory.path("q.png")
        #expect(try Tools.run("/usr/bin/qrencode", ["-s", "5", "-o", png, "stdin test"]).status == 0)
        for format in ["JPEG", "PGM", "PPM", "PBM"] {
            let converted = try Tools.run("/usr/bin/convert", [png, "\(format):-"])
            #expect(converted.status == 0)
            let result = try Tools.run(ClawpairBinary.path, ["qr", "scan", "-"], stdin: converted.stdout)
            #expect(result.status == 0 && String(decoding: result.stdout, as: UTF8.self) == "stdin test\n", "\(format): \(result.stderr)")
        }
    }

    @Test("several images, piped: one payload per line as zbarimg --raw prints them; exit 0 when any has a code")
    func scanSeveral() throws {
        let directory = try Scratch()
        let a = directory.path("a.png"), b = directory.path("b.png"), blank = directory.path("blank.pgm")
        #expect(try Tools.run("/usr/bin/qrencode", ["-o", a, "first"]).status == 0)
        #expect(try Tools.run("/usr/bin/qrencode", ["-o", b, "second"]).status == 0)
        try Data("P5 8 8 255\n".utf8 + [UInt8](repeating: 255, count: 64)).write(to: URL(fileURLWithPath: blank))
        let result = try ClawpairBinary.run(["qr", "scan", a, blank, b])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "first\nsecond\n")
    }

    @Test("-o FILE whose name promises another image format is refused (exit 2); .png and .svg pick the format")
    func renderOutputNames() throws {
        let directory = try Scratch()
        for (name, named, drawn) in [("pair.jpg", "JPEG", "utf8 text"), ("pair.GIF", "GIF", "utf8 text"), ("pair.png", "PNG", "SVG")] {
            let path = directory.path(name)
            let arguments = ["qr", "render", "-o", path, "-"] + (name == "pair.png" ? ["-t", "svg"] : [])
            let result = try ClawpairBinary.run(arguments, stdin: Self.t13, nowMs: Self.now)
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr == "error: \(path) names a \(named) image, but this would write \(drawn) into it\n"
                    + "hint: qr render writes PNG or SVG images: use -o pair.png or -o pair.svg (or name the file .txt for text)\n")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        let png = try ClawpairBinary.run(["qr", "render", "-q", "-o", directory.path("ok.PNG"), "-"], stdin: Self.t13, nowMs: Self.now)
        #expect(png.status == 0, "\(png)")
        let text = try ClawpairBinary.run(["qr", "render", "-q", "-o", directory.path("code.txt"), "-"], stdin: Self.t13, nowMs: Self.now)
        #expect(text.status == 0, "\(text)")
    }

    @Test("no code is exit 3; a missing, damaged or unsupported image is exit 1")
    func scanFailures() throws {
        let directory = try Scratch()
        let blank = directory.path("blank.pgm")
        try Data("P5 8 8 255\n".utf8 + [UInt8](repeating: 255, count: 64)).write(to: URL(fileURLWithPath: blank))
        let none = try ClawpairBinary.run(["qr", "scan", blank])
        #expect(none.status == 3)
        #expect(none.stdout.isEmpty)
        #expect(none.stderr == "error: no QR code found in \(blank)\nhint: make sure the whole code, with its light border, "
                + "is in the picture, sharp and not too small\n", "\(none)")

        let missing = try ClawpairBinary.run(["qr", "scan", directory.path("nope.png")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: \(directory.path("nope.png")): No such file or directory\n"
                + "hint: check that \(directory.path("nope.png")) exists and the path is spelled right\n", "\(missing)")

        let truncated = directory.path("cut.png")
        #expect(try Tools.run("/usr/bin/qrencode", ["-o", truncated, "cut"]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let damaged = try ClawpairBinary.run(["qr", "scan", truncated])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.hasPrefix("error: \(truncated): the PNG image is damaged: "), "\(damaged)")

        let gif = directory.path("x.png")
        try Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8).write(to: URL(fileURLWithPath: gif))
        let unsupported = try ClawpairBinary.run(["qr", "scan", gif])
        #expect(unsupported.status == 1)
        #expect(unsupported.stderr == "error: \(gif): GIF images are not supported\n"
                + "hint: convert it first, e.g.: convert IMAGE png:- | clawpair qr scan -\n", "\(unsupported)")

        let huge = try ClawpairBinary.run(["qr", "scan", "-"], stdin: "P5 10000 10000 255\n")
        #expect(huge.status == 1)
        #expect(huge.stderr.hasPrefix("error: standard input: the image is 10000×10000 pixels, more than the 40000000 pixels"),
                "\(huge)")
        #expect(try ClawpairBinary.run(["qr", "scan", "-", "-"]).status == 2)
    }

    @Test("scan refuses SVG with its own message; rasterized with rsvg-convert as the hint says, it scans")
    func scanSVG() throws {
        let directory = try Scratch()
        let svg = directory.path("pair.svg"), png = directory.path("pair.png")
        #expect(try ClawpairBinary.run(["qr", "render", "-q", "-o", svg], stdin: Self.t13, nowMs: Self.now).status == 0)
        let refused = try ClawpairBinary.run(["qr", "scan", svg])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "error: \(svg): SVG is not supported: rasterize it first, e.g. with rsvg-convert\n"
                + "hint: rsvg-convert IMAGE.svg | clawpair qr scan -\n", "\(refused)")
        // Sniffed from the bytes, not the name: the same from standard input.
        let piped = try ClawpairBinary.run(["qr", "scan", "-"], stdin: try String(contentsOfFile: svg, encoding: .utf8))
        #expect(piped.status == 1)
        #expect(piped.stderr.hasPrefix("error: standard input: SVG is not supported: rasterize it first"), "\(piped)")
        #expect(try Tools.run("/usr/bin/rsvg-convert", ["-o", png, svg]).status == 0)
        let scanned = try ClawpairBinary.run(["qr", "scan", "-q", png])
        #expect(scanned.status == 0 && scanned.stdout == Self.t13 + "\n", "\(scanned)")
    }

    @Test("piped payloads are their exact bytes, control characters included (escaped on a terminal: QRTerminalCLITests)")
    func scanSanitizes() throws {
        let directory = try Scratch()
        let file = directory.path("evil.png")
        let made = try Tools.run("/usr/bin/qrencode", ["-8", "-o", file], stdin: Data("a\u{1B}[31mred\u{7}".utf8))
        #expect(made.status == 0)
        let result = try Tools.run(ClawpairBinary.path, ["qr", "scan", file])
        #expect(result.stdout == Data("a\u{1B}[31mred\u{7}\n".utf8), "\(result)")
        let json = try ClawpairBinary.run(["qr", "scan", "--json", file])
        #expect(json.stdout.contains(#""payload": "a\u001b[31mred\u0007""#), "\(json)")
    }

    @Test("--json: images, codes, and for setup codes exactly what setup-code decode --json says")
    func scanJSON() throws {
        let directory = try Scratch()
        let code = directory.path("code.png"), other = directory.path("other.png"), broken = directory.path("broken.jpg")
        #expect(try Tools.run("/usr/bin/qrencode", ["-o", code, Self.t13]).status == 0)
        #expect(try Tools.run("/usr/bin/qrencode", ["-o", other, "https://example.com"]).status == 0)
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]).write(to: URL(fileURLWithPath: broken))
        let result = try ClawpairBinary.run(["qr", "scan", "--json", code, other, broken], nowMs: Self.now)
        #expect(result.status == 1, "\(result)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false && object["found"] as? Int == 2)
        let images = try #require(object["images"] as? [[String: Any]])
        #expect(images.count == 3)
        #expect(Set(images[0].keys) == ["image", "format", "width", "height", "warnings", "codes", "error"])
        #expect(images[0]["format"] as? String == "png" && images[0]["error"] is NSNull)
        let codes = try #require(images[0]["codes"] as? [[String: Any]])
        #expect(codes.first?["payload"] as? String == Self.t13)
        #expect(codes.first?["payloadBase64"] as? String == Data(Self.t13.utf8).base64EncodedString())
        let setup = try #require(codes.first?["setupCode"] as? [String: Any])
        let decoded = try ClawpairBinary.run(["setup-code", "decode", "--json", "-"], stdin: Self.t13, nowMs: Self.now)
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(decoded.stdout.utf8)) as? [String: Any])
        func canonical(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try canonical(setup) == canonical(expected), "setupCode differs from setup-code decode --json")
        let otherCodes = try #require(images[1]["codes"] as? [[String: Any]])
        #expect(otherCodes.first?["setupCode"] is NSNull)
        let error = try #require(images[2]["error"] as? [String: Any])
        #expect(error["code"] as? String == "corrupt-image" && images[2]["format"] is NSNull)
    }
}

// MARK: - Helpers

/// A scratch directory removed when the value goes away.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-qrcli-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Runs helper tools (and the binary, when stdout is binary) with byte-exact output.
enum Tools {
    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
    }

    static func run(_ executable: String, _ arguments: [String], stdin: Data = Data(),
                    environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { _, new in new }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = Box(), err = Box()
        let group = DispatchGroup()
        for (pipe, box) in [(output, out), (errors, err)] {
            group.enter()
            DispatchQueue.global().async {
                box.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        writeIgnoringBrokenPipe(stdin, to: input.fileHandleForWriting.fileDescriptor)  // it may exit before reading
        try? input.fileHandleForWriting.close()
        if group.wait(timeout: .now() + 60) == .timedOut {
            process.terminate()
            throw QRTestFailure("\(executable) \(arguments) did not finish within 60 s")
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: out.get(), stderr: String(decoding: err.get(), as: UTF8.self))
    }

    /// zbarimg's payloads for an image, or nil when it finds none.
    static func zbarimg(_ path: String) throws -> [String]? {
        let result = try run("/usr/bin/zbarimg", ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", path])
        guard result.status == 0 else { return nil }
        return String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    final class Box: @unchecked Sendable {
        private var data = Data()
        private let lock = NSLock()
        func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
        func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    }
}

/// Draws terminal QR text as a screen would show it, as a PGM: 4×4 pixels per module,
/// utf8 light text on a dark theme, utf8i and ascii dark text on a light theme, ansi black on
/// white inside the code and a dark theme around it; 24 pixels of theme background around all.
enum TerminalScreen {
    static func pgm(_ text: String, format: String) throws -> Data {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.last == "" else { throw QRTestFailure("no final newline") }
        lines.removeLast()
        let (ink, paper, surround): (UInt8, UInt8, UInt8) = switch format {
        case "utf8": (230, 20, 20)
        case "ansi": (0, 229, 20)
        default: (20, 235, 235)
        }
        // Rows of painted (true) / unpainted (false) module cells.
        var rows: [[Bool]] = []
        for line in lines {
            var body = Substring(line)
            if format == "ansi" {
                guard body.hasPrefix("\u{1B}[47m\u{1B}[30m"), body.hasSuffix("\u{1B}[0m") else {
                    throw QRTestFailure("ansi line not wrapped: \(line.debugDescription)")
                }
                body = body.dropFirst(10).dropLast(4)
            }
            if format == "ascii" {
                let chars = Array(body)
                rows.append(stride(from: 0, to: chars.count, by: 2).map { chars[$0] == "#" })
                continue
            }
            var upper: [Bool] = [], lower: [Bool] = []
            for char in body {
                switch char {
                case "\u{2588}": upper.append(true); lower.append(true)
                case "\u{2580}": upper.append(true); lower.append(false)
                case "\u{2584}": upper.append(false); lower.append(true)
                case " ": upper.append(false); lower.append(false)
                default: throw QRTestFailure("unexpected character \(char.debugDescription)")
                }
            }
            rows.append(upper)
            rows.append(lower)
        }
        let (scale, border) = (4, 24)
        let columns = rows.map(\.count).max() ?? 0
        let width = columns * scale + 2 * border, height = rows.count * scale + 2 * border
        var pixels = [UInt8](repeating: surround, count: width * height)
        for (y, row) in rows.enumerated() {
            for (x, painted) in row.enumerated() {
                for dy in 0..<scale {
                    for dx in 0..<scale {
                        pixels[(border + y * scale + dy) * width + border + x * scale + dx] = painted ? ink : paper
                    }
                }
            }
        }
        return Data("P5\n\(width) \(height)\n255\n".utf8) + pixels
    }
}

/// A helper failure with a message.
struct QRTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
