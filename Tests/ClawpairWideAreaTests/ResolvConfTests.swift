import ClawpairCore
import ClawpairWideArea
import Testing

@Suite("resolv.conf and --dns-server parsing")
struct ResolvConfTests {
    @Test("nameserver lines: IPv4, IPv6 with scope, at most three, comments and options skipped")
    func resolvConf() {
        let text = """
            # generated
            ; also a comment
            search example.net
            options timeout:2 attempts:3 edns0
            nameserver 192.0.2.53
            nameserver\t2001:db8::53   # trailing words ignored
            nameserver fe80::1%1
            nameserver 198.51.100.1
            """
        let conf = ResolvConf.parse(text)
        #expect(conf.servers.map(\.description) == ["192.0.2.53:53", "[2001:db8::53]:53", "[fe80::1%1]:53"])
        #expect(conf.servers[2].scopeID == 1)
    }

    @Test("malformed or duplicate nameservers are skipped; CRLF lines work")
    func resolvConfBad() {
        let text = "nameserver\r\nnameserver dns.example\r\nnameserver 192.0.2.1:53\r\nnameserver 300.1.1.1\r\n"
            + "nameserver [2001:db8::1]\r\nnameserver 192.0.2.9\r\nnameserver 192.0.2.9\r\nnameserverx 192.0.2.8\r\n"
        #expect(ResolvConf.parse(text).servers.map(\.description) == ["192.0.2.9:53"])
        #expect(ResolvConf.parse("").servers.isEmpty)
    }

    @Test("a missing file means the local host, as in glibc")
    func missingFile() {
        #expect(ResolvConf.load(path: "/nonexistent/resolv.conf").servers.map(\.description) == ["127.0.0.1:53"])
    }

    @Test("server spellings", arguments: [
        ("192.0.2.53", "192.0.2.53:53"),
        ("192.0.2.53:5353", "192.0.2.53:5353"),
        ("2001:db8::53", "[2001:db8::53]:53"),
        ("[2001:db8::53]", "[2001:db8::53]:53"),
        ("[2001:db8::53]:5353", "[2001:db8::53]:5353"),
        ("::1", "[::1]:53"),
        ("[fe80::1%7]:53", "[fe80::1%7]:53"),
        ("fe80::1%lo", "[fe80::1%lo]:53"),
    ])
    func serverParsing(input: String, expected: String) {
        #expect(DNSServerAddress.parse(input)?.description == expected, "\(input)")
    }

    @Test("rejected server spellings", arguments: [
        "", "dns.example", "192.0.2.53:", "192.0.2.53:0", "192.0.2.53:65536", "192.0.2.53:+53", "192.0.2", "1.2.3.4.5",
        "[2001:db8::53", "[2001:db8::53]53", "[2001:db8::53]:", "2001:db8::53:53:53:53:53:53:53", "[192.0.2.1]:53",
        "fe80::1%", "fe80::1%no-such-interface0", " 192.0.2.1", "192.0.2.1 ",
        // One ":" byte that is no ":" Character (a combining mark follows it): trapped before (FuzzTailscaleStatus).
        "fd7a:\u{303}03", "192.0.2.53:\u{303}53",
    ])
    func serverRejects(input: String) {
        #expect(DNSServerAddress.parse(input) == nil, "\(input)")
    }
}
