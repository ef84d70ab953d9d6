import ClawpairCore

/// A gateway as a person names one on a command line or in a config: a `ws://`/`wss://`/
/// `http(s)://` URL, a bare `host[:port]`, or a setup code. The probe turns each into routes; the
/// gateway client accepts the first two.
public enum GatewayAddress: Sendable, Equatable {
    /// A URL (`http` → `ws`, `https` → `wss`; a `ws://` URL without a port dials 18789, a
    /// `wss://` one 443).
    case url(SetupEndpoint)
    /// A bare host with an optional port (IPv6 in brackets): the port is always set (18789 by
    /// default), and TLS is on unless the plaintext policy allows the host (the apps' rule for
    /// manual hosts).
    case hostPort(SetupEndpoint)
    /// A setup code in any form ``SetupCode/parse(_:)`` accepts except a raw URL.
    case setupCode(DecodedSetup)
    /// A setup code whose every route is plaintext to `host`, a host that needs TLS.
    case plaintextSetupCode(host: String)

    /// Why text is not a gateway address.
    public enum ParseError: Error, Sendable, Equatable {
        /// Not a URL, `host[:port]` or setup code (the text, shortened and with credentials
        /// redacted).
        case unrecognized(String)
        /// A setup code that cannot be used (the decoder's error).
        case setupCode(SetupCodeError)
    }

    /// Classifies `text` (surrounding whitespace ignored). An IPv6 link-local literal may carry
    /// its zone (`ws://[fe80::1%eth0]:18789`, or RFC 6874's `%25eth0`): the host is then
    /// `fe80::1%eth0`, which the dialer turns into the scope id. Zones of other addresses are refused.
    public static func parse(_ text: String) throws(ParseError) -> GatewayAddress {
        let trimmed = Self.trimmed(text)
        if let (unzoned, zone) = splitZone(trimmed) {
            let scoped = { (endpoint: SetupEndpoint) throws(ParseError) -> SetupEndpoint in
                guard Self.isLinkLocalIPv6(endpoint.host) else { throw .unrecognized(shorten(trimmed)) }
                return SetupEndpoint(host: endpoint.host + "%" + zone, explicitPort: endpoint.explicitPort,
                                     tls: endpoint.tls, contextPath: endpoint.contextPath)
            }
            switch try parse(unzoned) {
            case .url(let endpoint): return .url(try scoped(endpoint))
            case .hostPort(let endpoint): return .hostPort(try scoped(endpoint))
            case .setupCode, .plaintextSetupCode: throw .unrecognized(shorten(trimmed))
            }
        }
        if looksLikeURL(trimmed) {
            guard let endpoint = SetupURL.parse(trimmed, defaultScheme: .ws) else { throw .unrecognized(shorten(trimmed)) }
            return .url(endpoint)
        }
        do {
            let decoded = try SetupCode.parse(trimmed)
            if decoded.form != .rawURL { return .setupCode(decoded) }
        } catch .insecurePlaintextHost(let host) {
            return .plaintextSetupCode(host: host)
        } catch .inputTooLarge(let bytes, let limit) {
            throw .setupCode(.inputTooLarge(bytes: bytes, limit: limit))
        } catch {
            // A code that does not decode must never be looked up as a host name (the secret would
            // go to DNS, issue #25.9): text that cannot be a host[:port] is reported as a bad code.
            if trimmed.utf8.count > 255 || trimmed.contains("{") || Self.looksLikeEncodedCode(trimmed) { throw .setupCode(error) }
        }
        guard let endpoint = SetupURL.parse(trimmed, defaultScheme: .ws), endpoint.contextPath == nil,
              !trimmed.contains("/") else {
            throw .unrecognized(shorten(trimmed))
        }
        let port = endpoint.explicitPort ?? SetupEndpoint.defaultPlaintextPort
        return .hostPort(SetupEndpoint(host: endpoint.host, explicitPort: port,
                                       tls: !PlaintextPolicy.allowsPlaintext(host: endpoint.host)))
    }

    /// Whether `text` is base64 or base64url (the alphabet of an encoded setup code) and cannot
    /// be a host name: it has `_`, `+`, `/` or `=`, or a run longer than a DNS label's 63 bytes
    /// (RFC 1035 §2.3.4). Host names, IP literals and `host:port` never match (they hold `.` or `:`
    /// or are short).
    static func looksLikeEncodedCode(_ text: String) -> Bool {
        var special = false
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5a, 0x61...0x7a, 0x2d: continue
            case 0x5f, 0x2b, 0x2f, 0x3d: special = true
            default: return false
            }
        }
        return special || text.utf8.count > 63
    }

    /// The bracketed form of a bare IPv6 literal (`2001:db8::1` → `[2001:db8::1]`, a zone kept),
    /// for a hint: a host with a port needs brackets around IPv6. nil when `text` is not one.
    public static func bracketed(_ text: String) -> String? {
        let trimmed = Self.trimmed(text)
        guard trimmed.contains(":"), !trimmed.contains("["), trimmed.utf8.count <= 64 else { return nil }
        let (address, zone) = trimmed.firstIndex(of: "%").map { (String(trimmed[..<$0]), String(trimmed[$0...])) } ?? (trimmed, "")
        guard case .ipv6? = HostParser.parse(Array("[\(address)]".utf8)) else { return nil }
        return "[" + address + zone + "]"
    }

    /// The longest zone (interface name or index) accepted: Linux's IFNAMSIZ less the NUL.
    static let maxZoneBytes = 15

    /// `text` without the zone of a bracketed IPv6 literal, and the zone (`%25` or `%` then an
    /// interface name or index), or nil when there is none.
    static func splitZone(_ text: String) -> (String, String)? {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]"),
              let percent = text[open..<close].firstIndex(of: "%") else { return nil }
        var zone = text[text.index(after: percent)..<close]
        if zone.hasPrefix("25"), zone.count > 2 { zone = zone.dropFirst(2) }
        guard !zone.isEmpty, zone.utf8.count <= maxZoneBytes,
              zone.utf8.allSatisfy({ TextRules.isASCIIAlpha($0) || TextRules.isASCIIDigit($0) || $0 == UInt8(ascii: "-")
                  || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }) else { return nil }
        return (String(text[..<percent]) + String(text[close...]), String(zone))
    }

    /// Whether `host` (bare, no brackets) is an IPv6 address in fe80::/10.
    static func isLinkLocalIPv6(_ host: String) -> Bool {
        guard case .ipv6(let pieces)? = HostParser.parse(Array("[\(host)]".utf8)), let first = pieces.first else { return false }
        return first & 0xFFC0 == 0xFE80
    }

    /// Text for error messages: short text as it is, long text (setup codes, which are secrets)
    /// cut to its first 8 characters.
    public static func redacted(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(8)) + "…" : text
    }

    static func looksLikeURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["ws://", "wss://", "http://", "https://"].contains { lower.hasPrefix($0) }
    }

    static func shorten(_ raw: String) -> String {
        let text = Redaction.url(raw)
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }

    /// `text` as ``parse(_:)`` reads it: surrounding whitespace removed.
    public static func trimmed(_ text: String) -> String {
        var s = Substring(text)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
