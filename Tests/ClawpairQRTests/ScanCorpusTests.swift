import ClawpairQR
import Foundation
import Testing

/// The scanner against a corpus made in the test: `qrencode` images of three payloads, each put
/// through ImageMagick transforms (scale, rotate, blur, noise, JPEG quality, inverted, and a
/// phone-photo-like mix). The decode rate per transform is printed, and the test fails when a
/// transform falls below its floor.
///
/// Floors and measured rates (Debian 12: zbar 0.23.92, ImageMagick 6.9.11, qrencode 4.1.1; the
/// pipeline is deterministic, noise is seeded). The floors leave a little room for other versions.
///
/// | transform    | variants                                      | measured      | floor |
/// |--------------|-----------------------------------------------|---------------|-------|
/// | original     | as made (4 px per module, 4-module margin)    |  3/3  = 100%  | 100%  |
/// | scale        | 35%, 50%, 75%, 160%, 300%                     | 15/15 = 100%  |  80%  |
/// | rotate       | 7°, 30°, 45°, 90°, 180°                       | 15/15 = 100%  | 100%  |
/// | shear        | 10x0, 15x10, 25x0                             |  9/9  = 100%  |  90%  |
/// | blur         | σ 1, 1.5, 2, 2.5, 3 px (σ 2.5 px = 0.6 module)|  9/15 =  60%  |  60%  |
/// | noise        | Gaussian ×0.5, ×1, ×2; impulse ×0.3, ×0.6     | 15/15 = 100%  |  90%  |
/// | jpeg-quality | 50, 20, 8, 4                                  | 12/12 = 100%  |  90%  |
/// | inverted     | negated; negated + blur + JPEG 30             |  6/6  = 100%  | 100%  |
/// | photo-mix    | rotate/shear + blur + noise + JPEG            |  9/9  = 100%  |  85%  |
///
/// Blur beyond σ ≈ 0.5 module is lost to zbar even after sharpening; 35% scale (1.4 px per
/// module) decodes only through the scanner's doubled-and-sharpened pass.
///
/// Bounded: one `qrencode` and one `convert` process per payload (ImageMagick writes every
/// variant from one command line with `-write`), then in-process decoding; about 3 s in total.
@Suite struct ScanCorpusTests {
    /// A transform: its name, ImageMagick operators per variant, the output format, and the
    /// lowest acceptable decode rate.
    struct Transform {
        let name: String
        let variants: [[String]]
        let format: String
        let floor: Double
    }

    static let transforms: [Transform] = [
        Transform(name: "original", variants: [[]], format: "png", floor: 1.0),
        Transform(name: "scale", variants: [["-resize", "35%"], ["-resize", "50%"], ["-resize", "75%"], ["-resize", "160%"],
                                            ["-resize", "300%"]],
                  format: "png", floor: 0.8),
        Transform(name: "rotate", variants: [["-rotate", "7"], ["-rotate", "30"], ["-rotate", "45"], ["-rotate", "90"],
                                             ["-rotate", "180"]],
                  format: "png", floor: 1.0),
        Transform(name: "shear", variants: [["-shear", "10x0"], ["-shear", "15x10"], ["-shear", "25x0"]], format: "png", floor: 0.9),
        Transform(name: "blur", variants: [["-blur", "0x1"], ["-blur", "0x1.5"], ["-blur", "0x2"], ["-blur", "0x2.5"], ["-blur", "0x3"]],
                  format: "png", floor: 0.6),
        Transform(name: "noise", variants: [["-attenuate", "0.5", "+noise", "Gaussian"], ["-attenuate", "1", "+noise", "Gaussian"],
                                            ["-attenuate", "2", "+noise", "Gaussian"], ["-attenuate", "0.3", "+noise", "Impulse"],
                                            ["-attenuate", "0.6", "+noise", "Impulse"]],
                  format: "png", floor: 0.9),
        Transform(name: "jpeg-quality", variants: [["-quality", "50"], ["-quality", "20"], ["-quality", "8"], ["-quality", "4"]],
                  format: "jpg", floor: 0.9),
        Transform(name: "inverted", variants: [["-negate"], ["-negate", "-blur", "0x1", "-quality", "30"]], format: "jpg", floor: 1.0),
        Transform(name: "photo-mix", variants: [["-rotate", "12", "-blur", "0x1", "-attenuate", "0.4", "+noise", "Gaussian", "-quality", "40"],
                                                ["-resize", "70%", "-rotate", "-20", "-quality", "30"],
                                                ["-shear", "12x6", "-blur", "0x1.5", "-attenuate", "0.8", "+noise", "Gaussian", "-quality", "25"]],
                  format: "jpg", floor: 0.85),
    ]

    static let payloads = [QRTestSupport.sampleCode, QRTestSupport.shortCode, "https://docs.openclaw.ai/pairing"]

    @Test("decode rate per ImageMagick transform is at or above its floor")
    func corpus() throws {
        let directory = try QRTestSupport.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var outcomes: [String: (decoded: Int, tried: Int, misses: [String])] = [:]
        for (payloadIndex, payload) in Self.payloads.enumerated() {
            let source = directory.appendingPathComponent("p\(payloadIndex).png").path
            let made = try QRTestSupport.run("/usr/bin/qrencode", ["-t", "PNG", "-s", "4", "-m", "4", "-o", source, payload])
            try #require(made.status == 0, "\(made.stderr)")
            // One convert run writes every variant: ( +clone OPS -write FILE +delete ) ...
            var arguments = ["-seed", "4242", source, "-background", "white"]
            var files: [(String, String, String)] = []   // (transform, variant label, path)
            for transform in Self.transforms {
                for (variantIndex, variant) in transform.variants.enumerated() {
                    let path = directory.appendingPathComponent("p\(payloadIndex)-\(transform.name)-\(variantIndex).\(transform.format)").path
                    arguments += ["(", "+clone"] + variant + ["-write", path, "+delete", ")"]
                    files.append((transform.name, variant.joined(separator: " "), path))
                }
            }
            let converted = try QRTestSupport.run("/usr/bin/convert", arguments + ["null:"])
            try #require(converted.status == 0, "convert: \(converted.stderr)")
            for (name, label, path) in files {
                let loaded = try ImageLoader.load(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                let found = try QRScanner().scan(loaded.image).compactMap(\.text)
                var outcome = outcomes[name] ?? (0, 0, [])
                outcome.tried += 1
                if found == [payload] { outcome.decoded += 1 } else { outcome.misses.append("payload \(payloadIndex) [\(label)]") }
                outcomes[name] = outcome
            }
        }
        var report = "QR scan corpus (\(Self.payloads.count) payloads, qrencode -s 4 -m 4, ImageMagick):\n"
        for transform in Self.transforms {
            let outcome = outcomes[transform.name] ?? (0, 0, [])
            let rate = Double(outcome.decoded) / Double(max(outcome.tried, 1))
            report += "  \(transform.name.padding(12)) \(outcome.decoded)/\(outcome.tried) = \(Int((rate * 100).rounded()))%"
                + " (floor \(Int(transform.floor * 100))%)"
                + (outcome.misses.isEmpty ? "" : "  missed: \(outcome.misses.joined(separator: ", "))") + "\n"
            #expect(rate >= transform.floor, "\(transform.name): \(outcome.decoded)/\(outcome.tried), missed \(outcome.misses)")
        }
        print(report, terminator: "")
    }
}

extension String {
    /// Left-aligned in `width` characters.
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
