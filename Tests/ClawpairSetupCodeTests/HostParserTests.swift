@testable import ClawpairSetupCode
import ClawpairTestSupport
import Testing

/// Punycode, IPv4 and IPv6 literal parsing (HostParser.swift, Punycode.swift, IPAddress.swift).
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
