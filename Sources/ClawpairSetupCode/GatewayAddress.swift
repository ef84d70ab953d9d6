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
    /// A setup code in any form `setup-code decode` accepts except a raw URL.
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

    /// Classifies `text` (surrounding whitespace ignored).
    public static func parse(_ text: String) throws(ParseError) -> GatewayAddress {
        let trimmed = Self.trimmed(text)
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
            if trimmed.utf8.count > 255 || trimmed.contains("{") { throw .setupCode(error) }
        }
        guard let endpoint = SetupURL.parse(trimmed, defaultScheme: .ws), endpoint.contextPath == nil,
              !trimmed.contains("/") else {
            throw .unrecognized(shorten(trimmed))
        }
        let port = endpoint.explicitPort ?? SetupEndpoint.defaultPlaintextPort
        return .hostPort(SetupEndpoint(host: endpoint.host, explicitPort: port,
                                       tls: !PlaintextPolicy.allowsPlaintext(host: endpoint.host)))
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
