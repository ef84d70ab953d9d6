// The plaintext `ws://` host policy for mobile pairing (`setup-codes.md` §5; TS
// `validateMobilePairingUrl`), and the loopback test of the G4 downgrade rule (§8).
//
// IP classes are checked as real CIDRs on parsed literals (the TS code compares IPv6 text
// prefixes). Only strict literals count as IPs: `127.1`, `0x7f.0.0.1` or `127.attacker.example`
// are names to this policy and are refused. URLs reach the policy already WHATWG-normalized, so
// their IPv4 hosts are canonical dotted decimal by then.

/// Which hosts may be reached over plaintext `ws://` for pairing. Everything else must use `wss://`.
public enum PlaintextPolicy {
    /// Lowercase, strip `[]`, strip one trailing `.`, drop an IPv6 zone (`%…`), in the TS order.
    public static func normalizeHost(_ host: String) -> String {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") && h.count >= 2 {
            h = String(h.dropFirst().dropLast())
        }
        if h.hasSuffix(".") { h = String(h.dropLast()) }
        if let zone = h.firstIndex(of: "%") { h = String(h[..<zone]) }
        return h
    }

    /// A classified host literal.
    private enum Literal {
        case ipv4(UInt32)
        case ipv6([UInt16])
        case name(String)
    }

    private static func classify(_ host: String) -> Literal {
        let h = normalizeHost(host)
        let bytes = Array(h.utf8)
        if let v = IPv4Literal.parseStrict(bytes) { return .ipv4(v) }
        // A link-local literal may carry its zone (`fe80::1%eth0`, GatewayAddress): the address decides.
        if bytes.contains(UInt8(ascii: ":")), let p = IPv6Literal.parse(Array(bytes.prefix { $0 != UInt8(ascii: "%") })) {
            return .ipv6(p)
        }
        return .name(h)
    }

    private static func ipv4(_ v: UInt32, in base: UInt32, prefix: UInt32) -> Bool {
        let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
        return v & mask == base & mask
    }

    private static func octets(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        a << 24 | b << 16 | c << 8 | d
    }

    /// `::ffff:a.b.c.d` → the IPv4 address.
    private static func mappedIPv4(_ p: [UInt16]) -> UInt32? {
        guard p.count == 8, p[0...4].allSatisfy({ $0 == 0 }), p[5] == 0xFFFF else { return nil }
        return UInt32(p[6]) << 16 | UInt32(p[7])
    }

    private static func isLoopbackIPv4(_ v: UInt32) -> Bool {
        ipv4(v, in: octets(127, 0, 0, 0), prefix: 8)
    }

    /// Whether `host` is loopback: `localhost`, 127.0.0.0/8, `::1` or `::ffff:127.0.0.0/104`.
    /// The §8 rule: a `ws://` URL on such a host does not downgrade a full-access code.
    public static func isLoopback(host: String) -> Bool {
        switch classify(host) {
        case let .name(n): return n == "localhost"
        case let .ipv4(v): return isLoopbackIPv4(v)
        case let .ipv6(p):
            if p == [0, 0, 0, 0, 0, 0, 0, 1] { return true }
            if let v = mappedIPv4(p) { return isLoopbackIPv4(v) }
            return false
        }
    }

    /// Whether pairing may use plaintext `ws://` to `host` (§5): `localhost`, loopback, the
    /// Android emulator host 10.0.2.2, RFC 1918 (10/8, 172.16/12, 192.168/16), IPv4 link-local
    /// 169.254/16, IPv6 link-local fe80::/10 and ULA fc00::/7, and names ending in `.local`.
    /// Everything else is refused, including Tailscale's 100.64/10 and `*.ts.net`, single-label
    /// names and global addresses.
    public static func allowsPlaintext(host: String) -> Bool {
        if isLoopback(host: host) { return true }
        switch classify(host) {
        case let .name(n):
            return n.hasSuffix(".local")
        case let .ipv4(v):
            return ipv4(v, in: octets(10, 0, 0, 0), prefix: 8)
                || ipv4(v, in: octets(172, 16, 0, 0), prefix: 12)
                || ipv4(v, in: octets(192, 168, 0, 0), prefix: 16)
                || ipv4(v, in: octets(169, 254, 0, 0), prefix: 16)
        case let .ipv6(p):
            guard let first = p.first else { return false }
            return first & 0xFFC0 == 0xFE80 || first & 0xFE00 == 0xFC00
        }
    }

    /// Whether a gateway URL may be used for pairing: `wss://`/`https://` always, `ws://`/`http://`
    /// only for `allowsPlaintext(host:)`. `nil` when `url` is not a ws/wss/http/https URL.
    public static func allowsURL(_ url: String) -> Bool? {
        guard let parsed = SetupURL.parseGatewayURL(TextRules.jsTrim(url)) else { return nil }
        return parsed.tls || allowsPlaintext(host: parsed.host.bareForm)
    }

    /// Why plaintext was refused and how to get `wss://`; begins like the TS gateway's message.
    public static let refusalMessage =
        "Tailscale and public mobile pairing require a secure gateway URL (wss://) or Tailscale Serve/Funnel. "
        + "ws:// is only valid for localhost, private LAN addresses (10/8, 172.16/12, 192.168/16, link-local), "
        + ".local hosts, or the Android emulator. To get a wss:// URL, run `tailscale serve` in front of the "
        + "gateway (gateway.tailscale.mode=serve) and use its https:// name, or enable gateway TLS "
        + "(gateway.tls.enabled=true) and use wss://."

    /// `refusalMessage` naming the refused host.
    public static func refusalMessage(host: String) -> String {
        "Plaintext ws:// to \(host) is refused. " + refusalMessage
    }
}
