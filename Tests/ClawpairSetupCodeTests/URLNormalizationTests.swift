@testable import ClawpairSetupCode
import ClawpairTestSupport
import Testing

@Suite struct URLNormalizationTests {
    @Test func vectors() throws {
        for vector in try Vectors.urlPolicy().normalization {
            let schemes: [SetupURL.Scheme] = vector.defaultScheme.flatMap(SetupURL.Scheme.init(rawValue:)).map { [$0] }
                ?? SetupURL.Scheme.allCases
            for scheme in schemes {
                #expect(SetupURL.normalize(vector.input, defaultScheme: scheme) == vector.output,
                        "\(vector.input) (\(vector.source)) default \(scheme)")
            }
        }
    }

    @Test(arguments: [
        // Hosts
        ("wss://GATEWAY.example.com", "wss://gateway.example.com"),
        ("wss://gateway.example.com.", "wss://gateway.example.com."),
        ("ws://2130706433:18789", "ws://127.0.0.1:18789"),
        ("ws://0x7f.1", "ws://127.0.0.1"),
        ("ws://0177.0.0.1", "ws://127.0.0.1"),
        ("ws://127.1/", "ws://127.0.0.1"),
        ("ws://192.168.1.20.", "ws://192.168.1.20"),
        ("ws://[0:0:0:0:0:0:0:1]:18789", "ws://[::1]:18789"),
        ("ws://[FE80:0:0:0:1:0:0:1]", "ws://[fe80::1:0:0:1]"),
        ("ws://[::ffff:127.0.0.1]", "ws://[::ffff:7f00:1]"),
        ("ws://[1:0:0:2:0:0:0:3]", "ws://[1:0:0:2::3]"),
        ("ws://[1:0:0:2:0:0:3:4]", "ws://[1::2:0:0:3:4]"),
        ("wss://bücher.example", "wss://xn--bcher-kva.example"),
        ("wss://BÜCHER.example", "wss://xn--bcher-kva.example"),
        ("wss://xn--bcher-kva.example", "wss://xn--bcher-kva.example"),
        ("wss://ｅｘａｍｐｌｅ。com", "wss://example.com"),
        ("wss://gate%77ay.example.com", "wss://gateway.example.com"),
        ("wss://münchen.de", "wss://xn--mnchen-3ya.de"),
        ("wss://日本語.jp", "wss://xn--wgv71a119e.jp"),
        ("wss://مثال.com", "wss://xn--mgbh0fb.com"),
        ("wss://ß.de", "wss://xn--zca.de"),
        ("wss://Σ.gr", "wss://xn--4xa.gr"),
        ("wss://\u{212A}.com", "wss://k.com"),
        ("wss://a\u{AD}b.com", "wss://ab.com"),
        ("wss://１２７.０.０.１", "wss://127.0.0.1"),
        // Ports
        ("ws://h.local:80", "ws://h.local"),
        ("http://h.local:80", "ws://h.local"),
        ("https://h.example:443", "wss://h.example"),
        ("ws://h.local:443", "ws://h.local:443"),
        ("wss://h.example:80", "wss://h.example:80"),
        ("ws://h.local:00018789", "ws://h.local:18789"),
        ("ws://h.local:", "ws://h.local"),
        ("ws://h.local:0", "ws://h.local:0"),
        ("ws://h.local:65535", "ws://h.local:65535"),
        // Paths
        ("wss://h.example/a/./b/../c", "wss://h.example/a/c"),
        ("wss://h.example/a/%2e%2E/c", "wss://h.example/c"),
        ("wss://h.example\\ctx\\x", "wss://h.example/ctx/x"),
        ("wss://h.example/sp ace/{x}", "wss://h.example/sp%20ace/%7Bx%7D"),
        ("wss://h.example/é", "wss://h.example/%C3%A9"),
        ("wss://h.example/%zz", "wss://h.example/%zz"),
        ("wss://h.example/..", "wss://h.example"),
        ("wss://h.example?x#y", "wss://h.example"),
        ("wss:///h.example", "wss://h.example"),
        ("wss://@h.example", "wss://h.example"),
        ("wss://:@h.example", "wss://h.example"),
        ("  \twss://h.example/\n  ", "wss://h.example"),
        ("ws://h.lo\tcal", "ws://h.local"),
        // Bare host forms
        ("localhost:18789", "ws://localhost:18789"),
        ("[::1]:18789/x", "ws://[::1]:18789"),
        ("h.example?x=1", "ws://h.example"),
    ])
    func cases(input: String, output: String) {
        #expect(SetupURL.normalize(input, defaultScheme: .ws) == output, "\(input.debugDescription)")
        // Normalization is idempotent.
        #expect(SetupURL.normalize(output, defaultScheme: .ws) == output, "\(output) again")
    }

    @Test(arguments: [
        "", "   ", "ws://", "wss://:18789", "ws://h.local:65536", "ws://h.local:99999999999999999999", "ws://h.local:-1",
        "ws://h.local:1a", "ws://h:1:2", "ws://u@h.local", "ws://:p@h.local", "ws://h@", "ws://[::1", "ws://[::1]x",
        "ws://[fe80::1%25eth0]", "ws://[1:2:3:4:5:6:7:8:9]", "ws://[::1::]", "ws://[1.2.3.4]", "ws://a b.example",
        "ws://a%20b.example", "ws://a%00b", "ws://exa<mple", "ws://h^x", "ws://1.2.3.4.5", "ws://256.0.0.1", "ws://0x100000000",
        "ws://1..2", "ws://xn--", "ws://xn--a.example", "ws://a\u{0}b", "ws://\u{FFFD}.example", "ws://a\u{200E}b.example",
        "ws://\u{E000}.example", "wss://☃.net", "wss://xn--n3h.net", "wss://a\u{200D}b.com", "wss://e\u{301}.com",
        "wss://ﬁle.com", "wss://ẞ.de", "wss://İstanbul.tr", "wss://xn--istanbul-o0e.tr", "wss://مثالa.com", "wss://مثال.1com", "ws://xn--ü.example", "wss://a\u{2024}b",
        "javascript:alert(1)", "WS:h.example", "wss:/h.example", "https:h.example",
        "file:///etc/passwd", "ftp://h.example", "h.example://x", "/only/path", "ws:\\\\h.example",
        String(repeating: "a", count: SetupURL.maxURLBytes + 1),
    ])
    func invalid(input: String) {
        #expect(SetupURL.normalize(input, defaultScheme: .ws) == nil, "\(input.debugDescription)")
        #expect(SetupURL.normalize(input, defaultScheme: .wss) == nil, "\(input.debugDescription)")
    }

    @Test func normalizationIsAFixedPoint() {
        // Whatever normalize returns must normalize to itself: minted codes rely on it to pass
        // the strict decoder, which compares a URL with its own normalization.
        var rng = SeededGenerator(seed: 0xF1A7)
        let ranges: [ClosedRange<UInt32>] = [0x21...0x7E, 0xA0...0x24F, 0x370...0x4FF, 0x590...0x6FF, 0x900...0x97F,
                                             0x1E00...0x1FFF, 0x2000...0x2BFF, 0x3000...0x30FF, 0x4E00...0x4E80,
                                             0xAC00...0xAC40, 0xFB00...0xFB4F, 0xFF00...0xFFEF, 0x1F300...0x1F64F]
        var accepted = 0
        for i in 0..<5000 {
            var host = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let range = ranges[Int.random(in: 0..<ranges.count, using: &rng)]
                if let s = Unicode.Scalar(UInt32.random(in: range, using: &rng)) { host.append(s) }
            }
            let input = ["ws://", "wss://", "http://", ""][i % 4] + String(host) + ["", ".com", ":8443/p", "/x y"][(i / 4) % 4]
            guard let once = SetupURL.normalize(input, defaultScheme: .wss) else { continue }
            accepted += 1
            #expect(SetupURL.normalize(once, defaultScheme: .ws) == once, "case \(i): \(input.debugDescription) → \(once)")
        }
        #expect(accepted > 500)
    }

    @Test func parseGivesEndpoint() throws {
        let e = try #require(SetupURL.parse("https://Gateway.Example.com:8443/ctx/?q=1", defaultScheme: .ws))
        #expect(e == SetupEndpoint(host: "gateway.example.com", explicitPort: 8443, tls: true, contextPath: "/ctx/"))
        let d = try #require(SetupURL.parse("wss://g.example.com:443", defaultScheme: .ws))
        #expect(d.explicitPort == nil && d.port == 443)
        let p = try #require(SetupURL.parse("192.168.1.20", defaultScheme: .ws))
        #expect(p.port == 18789 && !p.tls && p.url == "ws://192.168.1.20:18789")
        let v6 = try #require(SetupURL.parse("ws://[fe80::1]:1", defaultScheme: .ws))
        #expect(v6.host == "fe80::1" && v6.urlHost == "[fe80::1]")
        #expect(SetupURL.literalPort("ws://h.local:80", defaultScheme: .ws) == 80)
        #expect(SetupURL.parse("ws://h.local:80", defaultScheme: .ws)?.port == 18789)
    }
}
