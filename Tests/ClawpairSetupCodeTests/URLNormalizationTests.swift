@testable import ClawpairSetupCode
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
        "ws://\u{E000}.example", "javascript:alert(1)", "WS:h.example", "wss:/h.example", "https:h.example",
        "file:///etc/passwd", "ftp://h.example", "h.example://x", "/only/path", "ws:\\\\h.example",
        String(repeating: "a", count: SetupURL.maxURLBytes + 1),
    ])
    func invalid(input: String) {
        #expect(SetupURL.normalize(input, defaultScheme: .ws) == nil, "\(input.debugDescription)")
        #expect(SetupURL.normalize(input, defaultScheme: .wss) == nil, "\(input.debugDescription)")
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

@Suite struct HostParsingTests {
    @Test func punycodeRFC3492Samples() {
        // RFC 3492 §7.1 samples (lowercased) and common IDNs.
        let samples: [(String, String)] = [
            ("bücher", "bcher-kva"),
            ("münchen", "mnchen-3ya"),
            ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
            ("почемужеонинеговорятпорусски", "b1abfaaepdrnnbgefbadotcwatmq2g4l"),
            ("3年b組金八先生", "3b-ww4c5e180e575a65lsy2b"),
            ("安室奈美恵-with-super-monkeys", "-with-super-monkeys-pc58ag80a8qai00g7n9n"),
            ("ü", "tda"),
        ]
        for (unicode, ascii) in samples {
            #expect(Punycode.encode(Array(unicode.unicodeScalars)) == ascii, "\(unicode)")
            #expect(Punycode.decode(Array(ascii.utf8)).map { String(String.UnicodeScalarView($0)) } == unicode, "\(ascii)")
        }
        #expect(Punycode.decode(Array("99999999999999999999".utf8)) == nil)
        #expect(Punycode.decode(Array("abc-!".utf8)) == nil)
        #expect(Punycode.encode(Array(repeating: "ü", count: Punycode.maxLabelScalars + 1)) == nil)
    }

    @Test func punycodeRandomRoundTrip() {
        var rng = SeededGenerator(seed: 99)
        let ranges: [ClosedRange<UInt32>] = [0x61...0x7A, 0xE0...0xFF, 0x3B1...0x3C9, 0x4E00...0x4FFF, 0x1F600...0x1F64F]
        for i in 0..<500 {
            var scalars: [Unicode.Scalar] = []
            for _ in 0..<Int.random(in: 1...20, using: &rng) {
                let range = ranges[Int.random(in: 0..<ranges.count, using: &rng)]
                scalars.append(Unicode.Scalar(UInt32.random(in: range, using: &rng))!)
            }
            let encoded = Punycode.encode(scalars)
            #expect(encoded.flatMap { Punycode.decode(Array($0.utf8)) } == scalars, "case \(i)")
        }
    }

    @Test func ipv4Forms() {
        func whatwg(_ s: String) -> String? { IPv4Literal.parseWHATWG(Array(s.utf8)).map(IPv4Literal.serialize) }
        #expect(whatwg("1") == "0.0.0.1")
        #expect(whatwg("1.2") == "1.0.0.2")
        #expect(whatwg("1.2.3") == "1.2.0.3")
        #expect(whatwg("0x7F.0.0.1") == "127.0.0.1")
        #expect(whatwg("4294967295") == "255.255.255.255")
        #expect(whatwg("4294967296") == nil)
        #expect(whatwg("1.256.0.0") == nil)
        #expect(whatwg("08") == nil)
        #expect(whatwg("0x") == "0.0.0.0")
        #expect(IPv4Literal.endsInNumber(Array("a.0x1f".utf8)))
        #expect(!IPv4Literal.endsInNumber(Array("a.0x1g".utf8)))
        #expect(!IPv4Literal.endsInNumber(Array("example.com".utf8)))
        #expect(IPv4Literal.parseStrict(Array("127.0.0.1".utf8)) == 0x7F00_0001)
        for bad in ["127.1", "010.0.0.1", "1.2.3.4.", "1.2.3.256", "1.2.3", "+1.2.3.4", "1.2.3.4 ", "0x7f.0.0.1", "1234.1.1.1"] {
            #expect(IPv4Literal.parseStrict(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func ipv6Forms() {
        func round(_ s: String) -> String? { IPv6Literal.parse(Array(s.utf8)).map(IPv6Literal.serialize) }
        #expect(round("::") == "::")
        #expect(round("::1") == "::1")
        #expect(round("1::") == "1::")
        #expect(round("2001:db8::1") == "2001:db8::1")
        #expect(round("2001:0DB8:0000:0000:0000:0000:0000:0001") == "2001:db8::1")
        #expect(round("1:0:0:1:0:0:0:1") == "1:0:0:1::1")
        #expect(round("::ffff:192.168.1.1") == "::ffff:c0a8:101")
        #expect(round("1:2:3:4:5:6:7:8") == "1:2:3:4:5:6:7:8")
        for bad in [":", ":1", "1:", "1:::2", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "::1.2.3", "::01.2.3.4",
                    "::1.2.3.256", "1:2:3:4:5:6:7:1.2.3.4", "g::", ""] {
            #expect(IPv6Literal.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
