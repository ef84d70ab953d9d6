@testable import ClawpairDNS
import Testing

@Suite struct NameTests {
    @Test func presentationRoundTrip() throws {
        let cases: [(String, [String], String)] = [
            ("local.", ["local"], "local."),
            ("local", ["local"], "local."),
            (".", [], "."),
            ("My\\032Mac._openclaw-gw._tcp.local", ["My Mac", "_openclaw-gw", "_tcp", "local"], "My\\032Mac._openclaw-gw._tcp.local."),
            ("a\\.b.c", ["a.b", "c"], "a\\.b.c."),
            ("back\\\\slash", ["back\\slash"], "back\\\\slash."),
            ("Peter\\226\\128\\153s", ["Peter\u{2019}s"], "Peter\\226\\128\\153s."),
            ("quote\\\"x", ["quote\"x"], "quote\\\"x."),
            ("Caf\u{E9}", ["Caf\u{E9}"], "Caf\\195\\169."),
            ("\\@\\$\\;\\(\\)", ["@$;()"], "\\@\\$\\;\\(\\)."),
        ]
        for (input, labels, output) in cases {
            let parsed = try DNSName(input)
            #expect(parsed.labels == labels.map { Array($0.utf8) }, "\(input)")
            #expect(parsed.description == output, "\(input)")
            #expect(try DNSName(parsed.description) == parsed, "\(input)")
            #expect(try DNSName(labels: labels) == parsed, "\(input)")
        }
    }

    @Test func presentationRejects() throws {
        let cases: [(String, DNSError.Reason)] = [
            ("", .emptyLabel),
            ("a..b", .emptyLabel),
            (".a", .emptyLabel),
            ("..", .emptyLabel),
            ("a\\", .invalidEscape("\\ at the end")),
            ("a\\25", .invalidEscape("\\25")),
            ("a\\256", .invalidEscape("\\256")),
            ("a\\2x5", .invalidEscape("\\2x5")),
            (String(repeating: "x", count: 64), .labelTooLong(length: 64)),
            (Array(repeating: String(repeating: "x", count: 63), count: 4).joined(separator: "."), .nameTooLong(length: 257)),
        ]
        for (input, reason) in cases {
            #expect(throws: DNSError(reason)) { try DNSName(input) }
        }
        // 255 bytes exactly is fine: 3 × (1+63) + (1+61) + 1.
        let longest = Array(repeating: String(repeating: "x", count: 63), count: 3).joined(separator: ".") + "." + String(repeating: "y", count: 61)
        #expect(try DNSName(longest).wire.count == 255)
    }

    @Test func labelBuilderLimits() throws {
        #expect(throws: DNSError(.emptyLabel)) { try DNSName(labels: [[]]) }
        #expect(throws: DNSError(.labelTooLong(length: 64))) { try DNSName(labels: [Array(repeating: 65, count: 64)]) }
        #expect(try DNSName(labels: [String]()) == .root)
    }

    @Test func caseInsensitiveHelpers() throws {
        let a = try DNSName("Studio._OpenClaw-GW._tcp.LOCAL.")
        let b = try DNSName("studio._openclaw-gw._tcp.local")
        #expect(a != b, "== is exact")
        #expect(a.equalsIgnoringCase(b))
        #expect(a.lowercased() == b)
        #expect(a.isSubdomain(of: try DNSName("local")))
        #expect(a.isSubdomain(of: try DNSName("_TCP.local")))
        #expect(a.isSubdomain(of: .root))
        #expect(a.isSubdomain(of: a))
        #expect(!a.isSubdomain(of: try DNSName("cal")))
        #expect(!DNSName.root.isSubdomain(of: try DNSName("local")))
        // Only ASCII folds: É (UTF-8 C3 89) and é (C3 A9) differ.
        #expect(!(try DNSName("\u{C9}")).equalsIgnoringCase(try DNSName("\u{E9}")))
        #expect(DNSName.labelsEqualIgnoringCase(Array("AbC".utf8), Array("aBc".utf8)))
    }

    @Test func structure() throws {
        let n = try DNSName("a.b.c")
        #expect(n.labelCount == 3)
        #expect(n.firstLabel == Array("a".utf8))
        #expect(n.parent == (try DNSName("b.c")))
        #expect(DNSName.root.parent == .root)
        #expect(try n.prepending([Array("x y".utf8)]).description == "x\\032y.a.b.c.")
    }

    @Test func unpackStandalone() throws {
        var b = Bytes()
        b.name(["b", "c"])          // offset 0
        let start = b.count
        b.name(["a"], pointer: 0)   // a + pointer to b.c
        let (decoded, end) = try DNSName.unpack(b.data, at: start)
        #expect(decoded.description == "a.b.c.")
        #expect(end == b.count)
    }
}

@Suite struct AddressTests {
    @Test func ipv4() {
        #expect(IPv4Address("100.123.224.76")?.description == "100.123.224.76")
        #expect(IPv4Address("0.0.0.0")?.value == 0)
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3", " 1.2.3.4", "1.2.3.4 ", "a.b.c.d", "1.2.3.-4"] {
            #expect(IPv4Address(bad) == nil, "\(bad)")
        }
        let tailnet = IPv4Address("100.64.0.0")!
        #expect(IPv4Address("100.127.255.255")!.isIn(tailnet, prefixLength: 10))
        #expect(!IPv4Address("100.128.0.0")!.isIn(tailnet, prefixLength: 10))
    }

    @Test func ipv6() {
        let cases: [(String, String)] = [
            ("fd7a:115c:a1e0::8801:e04c", "fd7a:115c:a1e0::8801:e04c"),
            ("FD7A:115C:A1E0:0000:0000:0000:8801:E04C", "fd7a:115c:a1e0::8801:e04c"),
            ("::", "::"),
            ("::1", "::1"),
            ("1::", "1::"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
            ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
            ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
            ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
        ]
        for (input, canonical) in cases {
            #expect(IPv6Address(input)?.description == canonical, "\(input)")
            #expect(IPv6Address(canonical).map { IPv6Address(bytes: $0.bytes) } == IPv6Address(canonical), "\(input)")
        }
        for bad in ["", ":", ":::", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::", "1:", ":1",
                    "fe80::1%eth0", "[::1]", "::1.2.3", "1:2:3:4:5:6:7:1.2.3.4", "::ffff:01.2.3.4"] {
            #expect(IPv6Address(bad) == nil, "\(bad)")
        }
        let ula = IPv6Address("fd7a:115c:a1e0::")!
        #expect(IPv6Address("fd7a:115c:a1e0:ab12::1")!.isIn(ula, prefixLength: 48))
        #expect(!IPv6Address("fd7a:115c:a1e1::1")!.isIn(ula, prefixLength: 48))
    }
}
