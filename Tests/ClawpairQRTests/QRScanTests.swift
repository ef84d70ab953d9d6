import ClawpairQR
import ClawpairTestSupport
import Foundation
import Testing

/// Scanning images made by an independent encoder (`qrencode`).
@Suite struct QRScanTests {
    @Test("qrencode -t PNG output is read by our loader and scanner", arguments: [
        ["-l", "M"], ["-l", "L", "-s", "2"], ["-l", "H", "-s", "8", "-m", "1"], ["-l", "Q", "-8"], ["-t", "PNG32"],
    ])
    func qrencodePNG(options: [String]) throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for payload in [QRTestSupport.sampleCode, QRTestSupport.shortCode, "https://example.com/?q=1"] {
            let file = directory.appendingPathComponent("qr.png")
            let made = try QRTestSupport.run("/usr/bin/qrencode", ["-t", "PNG"] + options + ["-o", file.path, payload])
            #expect(made.status == 0, "\(made.stderr)")
            let loaded = try ImageLoader.load(Array(try Data(contentsOf: file)))
            #expect(try QRScanner().scan(loaded.image).map(\.text) == [payload], "\(options) \(payload.prefix(20))")
        }
    }

    @Test("every code in an image is found")
    func severalCodes() throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let payloads = ["first code", "second code", QRTestSupport.shortCode]
        var files: [String] = []
        for (index, payload) in payloads.enumerated() {
            let file = directory.appendingPathComponent("\(index).png").path
            #expect(try QRTestSupport.run("/usr/bin/qrencode", ["-s", "4", "-o", file, payload]).status == 0)
            files.append(file)
        }
        let combined = directory.appendingPathComponent("all.png").path
        #expect(try QRTestSupport.run("/usr/bin/convert", files + ["+append", combined]).status == 0)
        let found = try QRScanner().scan(ImageLoader.load(Array(try Data(contentsOf: URL(fileURLWithPath: combined)))).image)
        #expect(Set(found.compactMap(\.text)) == Set(payloads))
    }

    @Test("inverted codes are found only when the scanner tries inverted images")
    func inverted() throws {
        let image = try QRCode(encoding: "inverted").image().inverted()
        #expect(try QRScanner(tryInverted: false).scan(image).isEmpty)
        #expect(try QRScanner().scan(image).map(\.text) == ["inverted"])
    }

    @Test("blank, tiny and noise images hold no code")
    func nothingFound() throws {
        #expect(try QRScanner().scan(GrayImage(width: 64, height: 64, pixels: [UInt8](repeating: 255, count: 4096))).isEmpty)
        #expect(try QRScanner().scan(GrayImage(width: 1, height: 1, pixels: [0])).isEmpty)
        var generator = SeededGenerator(seed: 7)
        let noise = (0..<(200 * 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        #expect(try QRScanner().scan(GrayImage(width: 200, height: 200, pixels: noise)).isEmpty)
    }
}
