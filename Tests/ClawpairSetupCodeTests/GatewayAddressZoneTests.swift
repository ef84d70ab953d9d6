@testable import ClawpairSetupCode
import Testing

/// IPv6 zones in gateway addresses (issue #14 §5): link-local literals keep their zone for the
/// dialer; other addresses may not carry one; a bare IPv6 literal gets its bracketed form for a hint.
@Suite struct GatewayAddressZoneTests {
    @Test("a link-local URL or host with a zone: %name, %25name (RFC 6874), %index; plaintext allowed")
    func linkLocalZones() throws {
        for (text, host) in [("ws://[fe80::1%eth0]:18789", "fe80::1%eth0"), ("ws://[fe80::1%25eth0]:18789", "fe80::1%eth0"),
                             ("ws://[FE80::a:b%3]:18789", "fe80::a:b%3"), ("wss://[fe80::1%veth-a.1]", "fe80::1%veth-a.1")] {
            guard case .url(let endpoint) = try GatewayAddress.parse(text) else { Issue.record("\(text): not a URL"); continue }
            #expect(endpoint.host == host, "\(text)")
        }
        guard case .hostPort(let endpoint) = try GatewayAddress.parse("[fe80::1%eth0]") else { Issue.record("not host:port"); return }
        #expect(endpoint.host == "fe80::1%eth0")
        #expect(endpoint.port == 18789)
        #expect(!endpoint.tls, "link-local may use plaintext: the zone does not hide the address")
        #expect(PlaintextPolicy.allowsPlaintext(host: "fe80::1%eth0"))
        #expect(!PlaintextPolicy.allowsPlaintext(host: "2001:db8::1%eth0"))
    }

    @Test("zones refused: on a global or ULA address, empty, too long, or with characters no interface name has")
    func refusedZones() {
        for text in ["ws://[2001:db8::1%eth0]:18789", "ws://[fd00::1%eth0]:18789", "ws://[fe80::1%]:18789",
                     "ws://[fe80::1%0123456789abcdef]:18789", "ws://[fe80::1%e/th0]:18789",
                     "ws://[fe80::1%e th0]:18789"] {
            #expect(throws: GatewayAddress.ParseError.self, "\(text)") { try GatewayAddress.parse(text) }
        }
    }

    @Test("bracketed: the form a bare IPv6 literal needs, nil for anything else")
    func bracketedHint() {
        #expect(GatewayAddress.bracketed("2001:db8::1") == "[2001:db8::1]")
        #expect(GatewayAddress.bracketed(" fe80::1%eth0 ") == "[fe80::1%eth0]")
        #expect(GatewayAddress.bracketed("::1") == "[::1]")
        for text in ["[2001:db8::1]", "gateway:port", "192.168.1.20", "ws://[::1]:1", "2001:db8::1::2", "host:18789"] {
            #expect(GatewayAddress.bracketed(text) == nil, "\(text)")
        }
    }
}
