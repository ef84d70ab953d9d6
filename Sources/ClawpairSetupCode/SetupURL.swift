// Gateway URL parsing and normalization (`setup-codes.md` §4; TS `normalizeUrl` in
// `src/pairing/setup-code.ts`).
//
// `GatewayURLParser` is the WHATWG URL parser restricted to the four schemes that matter here
// (http, https, ws, wss; every other scheme is "not a gateway URL"): leading/trailing C0 and
// space stripped, tab/CR/LF removed, any number of `/` or `\` after `scheme:`, userinfo split at
// the last `@`, the host through `HostParser`, port digits ≤ 65535, and the path with `\` as a
// separator, dot segments resolved and the WHATWG path percent-encode set applied. Query and
// fragment are parsed past and dropped.

/// A gateway URL as the WHATWG parser reads it (internal; the public faces are `SetupURL` and
/// `SetupEndpoint`).
struct ParsedGatewayURL: Equatable, Sendable {
    /// `ws`, `wss`, `http` or `https`, lowercase, as written.
    var scheme: String
    /// The parsed host.
    var host: ParsedHost
    /// The port as written, even when it is the scheme's default.
    var literalPort: Int?
    /// The WHATWG pathname (always starts with `/`).
    var pathname: String
    /// Whether a non-empty username or password was present.
    var hasCredentials: Bool
    /// Whether a query (`?`) or fragment (`#`) was present (dropped from every form we produce).
    var hasQueryOrFragment: Bool

    /// Whether the scheme is `wss` or `https`.
    var tls: Bool { scheme == "wss" || scheme == "https" }

    /// WHATWG `url.port`: the literal port unless it is the written scheme's default.
    var whatwgPort: Int? {
        let defaultPort = (scheme == "ws" || scheme == "http") ? 80 : 443
        return literalPort == defaultPort ? nil : literalPort
    }

    /// The TS normalized form: `ws[s]://host[:port][path]`.
    var normalized: String {
        var out = (tls ? "wss" : "ws") + "://" + host.urlForm
        if let port = whatwgPort { out += ":\(port)" }
        if pathname != "/" { out += pathname }
        return out
    }
}

enum GatewayURLParser {
    private static let gatewaySchemes: Set<String> = ["ws", "wss", "http", "https"]

    /// Parses `input` as a WHATWG URL with an http/https/ws/wss scheme, or `nil` when it is not one.
    static func parse(_ input: String) -> ParsedGatewayURL? {
        guard input.utf8.count <= SetupURL.maxURLBytes else { return nil }
        var bytes = Array(input.utf8)
        // Strip leading and trailing C0 control or space, then every tab and newline.
        var start = 0
        var end = bytes.count
        while start < end && bytes[start] <= 0x20 { start += 1 }
        while end > start && bytes[end - 1] <= 0x20 { end -= 1 }
        bytes = bytes[start..<end].filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }

        // Scheme.
        guard let first = bytes.first, TextRules.isASCIIAlpha(first) else { return nil }
        var i = 1
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: ":") { break }
            guard TextRules.isASCIIAlpha(c) || TextRules.isASCIIDigit(c) || c == UInt8(ascii: "+")
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") else { return nil }
            i += 1
        }
        guard i < bytes.count else { return nil }
        let scheme = String(decoding: bytes[0..<i].map(TextRules.lowerASCII), as: UTF8.self)
        guard gatewaySchemes.contains(scheme) else { return nil }
        i += 1

        // Special authority slashes: skip every `/` and `\`.
        while i < bytes.count && (bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "\\")) { i += 1 }

        // Authority ends at `/`, `\`, `?`, `#` or the end.
        let authorityStart = i
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") {
                break
            }
            i += 1
        }
        let authority = Array(bytes[authorityStart..<i])
        let rest = Array(bytes[i...])

        var hostPort = authority[...]
        var hasCredentials = false
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            if let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) {
                hasCredentials = colon > userinfo.startIndex || userinfo.index(after: colon) < userinfo.endIndex
            } else {
                hasCredentials = !userinfo.isEmpty
            }
            hostPort = authority[(at + 1)...]
        }
        guard !hostPort.isEmpty else { return nil }

        // Host and port: the first `:` outside brackets.
        var insideBrackets = false
        var colonIndex: Int? = nil
        for j in hostPort.indices {
            let c = hostPort[j]
            if c == UInt8(ascii: "[") { insideBrackets = true }
            if c == UInt8(ascii: "]") { insideBrackets = false }
            if c == UInt8(ascii: ":") && !insideBrackets {
                colonIndex = j
                break
            }
        }
        let hostBytes = Array(colonIndex.map { hostPort[..<$0] } ?? hostPort)
        guard !hostBytes.isEmpty else { return nil }
        var literalPort: Int? = nil
        if let colonIndex {
            let portBytes = hostPort[(colonIndex + 1)...]
            if !portBytes.isEmpty {
                var value = 0
                for c in portBytes {
                    guard TextRules.isASCIIDigit(c) else { return nil }
                    value = value * 10 + Int(c - UInt8(ascii: "0"))
                    guard value <= 65535 else { return nil }
                }
                literalPort = value
            }
        }
        guard let host = HostParser.parse(hostBytes) else { return nil }

        let (pathname, hasQueryOrFragment) = parsePath(rest)
        return ParsedGatewayURL(scheme: scheme, host: host, literalPort: literalPort, pathname: pathname,
                                hasCredentials: hasCredentials, hasQueryOrFragment: hasQueryOrFragment)
    }

    // MARK: Path

    private static func isPathPercentEncoded(_ c: UInt8) -> Bool {
        switch c {
        case 0x00...0x20, 0x22, 0x23, 0x3C, 0x3E, 0x3F, 0x5E, 0x60, 0x7B, 0x7D, 0x7F...0xFF: return true
        default: return false
        }
    }

    private static func isSingleDot(_ s: [UInt8]) -> Bool {
        let lower = s.map(TextRules.lowerASCII)
        return lower == Array(".".utf8) || lower == Array("%2e".utf8)
    }

    private static func isDoubleDot(_ s: [UInt8]) -> Bool {
        let lower = String(decoding: s.map(TextRules.lowerASCII), as: UTF8.self)
        return lower == ".." || lower == ".%2e" || lower == "%2e." || lower == "%2e%2e"
    }

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The WHATWG path state for a special URL, from just after the authority. Returns the
    /// pathname and whether a query or fragment followed.
    static func parsePath(_ input: [UInt8]) -> (String, Bool) {
        var segments: [[UInt8]] = []
        var buffer: [UInt8] = []
        var i = 0
        if let c = input.first, c == UInt8(ascii: "/") || c == UInt8(ascii: "\\") { i = 1 }
        var sawQueryOrFragment = false
        while true {
            let c: UInt8? = i < input.count ? input[i] : nil
            let isSlash = c == UInt8(ascii: "/") || c == UInt8(ascii: "\\")
            if c == nil || isSlash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") {
                if isDoubleDot(buffer) {
                    if !segments.isEmpty { segments.removeLast() }
                    if !isSlash { segments.append([]) }
                } else if isSingleDot(buffer) {
                    if !isSlash { segments.append([]) }
                } else {
                    segments.append(buffer)
                }
                buffer.removeAll()
                if !isSlash {
                    sawQueryOrFragment = c != nil
                    break
                }
            } else if let c {
                if isPathPercentEncoded(c) {
                    buffer.append(UInt8(ascii: "%"))
                    buffer.append(hex[Int(c >> 4)])
                    buffer.append(hex[Int(c & 0x0F)])
                } else {
                    buffer.append(c)
                }
            }
            i += 1
        }
        var out: [UInt8] = []
        for segment in segments {
            out.append(UInt8(ascii: "/"))
            out.append(contentsOf: segment)
        }
        if out.isEmpty { out = [UInt8(ascii: "/")] }
        return (String(decoding: out, as: UTF8.self), sawQueryOrFragment)
    }
}

/// One gateway endpoint: where to dial and how.
public struct SetupEndpoint: Sendable, Hashable {
    /// The host: a lowercase ASCII (Punycode) name, dotted-decimal IPv4, or IPv6 **without**
    /// brackets (see `urlHost` for the bracketed form).
    public let host: String
    /// The port to dial: the explicit port, else 443 with TLS and 18789 without (never 80).
    public let port: Int
    /// The port as written in the source, when there was one (it may equal a scheme default).
    public let explicitPort: Int?
    /// Whether to use TLS (`wss://`).
    public let tls: Bool
    /// A non-root path the gateway is served under (e.g. `/openclaw-gw`), percent-encoded as in a
    /// URL; `nil` for the root.
    public let contextPath: String?

    /// The default port with TLS.
    public static let defaultTLSPort = 443
    /// The default gateway port without TLS (OpenClaw's `18789`, not HTTP's 80).
    public static let defaultPlaintextPort = 18789

    /// Creates an endpoint; `port` defaults from `tls` when `explicitPort` is `nil`.
    public init(host: String, explicitPort: Int?, tls: Bool, contextPath: String? = nil) {
        self.host = host
        self.explicitPort = explicitPort
        self.port = explicitPort ?? (tls ? Self.defaultTLSPort : Self.defaultPlaintextPort)
        self.tls = tls
        self.contextPath = contextPath
    }

    /// The scheme to dial.
    public var scheme: SetupURL.Scheme { tls ? .wss : .ws }

    /// The host as written in a URL (IPv6 in brackets).
    public var urlHost: String { host.contains(":") ? "[" + host + "]" : host }

    /// The endpoint as a WebSocket URL for display and dialing. The port is shown unless it is
    /// 443 with TLS, so a plaintext URL always says which port is dialed (18789 by default).
    public var url: String {
        var out = scheme.rawValue + "://" + urlHost
        if !(tls && port == Self.defaultTLSPort) { out += ":\(port)" }
        if let contextPath { out += contextPath }
        return out
    }

    init(parsed: ParsedGatewayURL) {
        self.init(host: parsed.host.bareForm, explicitPort: parsed.literalPort, tls: parsed.tls,
                  contextPath: parsed.pathname == "/" ? nil : parsed.pathname)
    }
}

/// Gateway URL normalization as the TypeScript gateway does it before putting a URL in a setup code.
public enum SetupURL {
    /// A WebSocket scheme.
    public enum Scheme: String, Sendable, CaseIterable {
        /// Plaintext WebSocket.
        case ws
        /// WebSocket over TLS.
        case wss
    }

    /// The longest URL text considered (bytes); longer text is invalid. Gateway URLs are short;
    /// the bound keeps IDNA work on hostile input small.
    public static let maxURLBytes = 4096

    /// `^(?:https?|wss?):(?!//)`, case-insensitive: a gateway scheme without `//` (`ws:host`).
    static func isSchemeWithoutAuthority(_ text: String) -> Bool {
        for prefix in ["https:", "http:", "wss:", "ws:"] where TextRules.hasPrefixASCIICaseInsensitive(text, prefix) {
            let after = Array(text.utf8.dropFirst(prefix.utf8.count).prefix(2))
            return after != Array("//".utf8)
        }
        return false
    }

    /// `^[A-Za-z][A-Za-z0-9+.-]*:/`: text that looks like `scheme:/…`.
    static func looksLikeSchemePath(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, TextRules.isASCIIAlpha(first) else { return false }
        var i = 1
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: ":") {
                return i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/")
            }
            guard TextRules.isASCIIAlpha(c) || TextRules.isASCIIDigit(c) || c == UInt8(ascii: "+")
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") else { return false }
            i += 1
        }
        return false
    }

    /// TS `parseNormalizedGatewayUrl`: a WHATWG parse with a gateway scheme and no credentials.
    static func parseGatewayURL(_ text: String) -> ParsedGatewayURL? {
        guard let parsed = GatewayURLParser.parse(text), !parsed.hasCredentials else { return nil }
        return parsed
    }

    /// Applies the §4 steps and returns the parsed URL (literal port kept), or `nil` when invalid.
    static func parseForNormalization(_ raw: String, defaultScheme: Scheme) -> ParsedGatewayURL? {
        guard raw.utf8.count <= maxURLBytes else { return nil }
        let trimmed = TextRules.jsTrim(raw)
        guard !trimmed.isEmpty else { return nil }
        if isSchemeWithoutAuthority(trimmed) { return nil }
        if let parsed = parseGatewayURL(trimmed) { return parsed }
        if TextRules.contains(trimmed, "://") { return nil }
        if looksLikeSchemePath(trimmed) { return nil }
        let beforeSlash = trimmed.utf8.split(separator: UInt8(ascii: "/"), maxSplits: 1,
                                             omittingEmptySubsequences: false).first.map { Array($0) } ?? []
        let withoutPath = TextRules.jsTrim(String(decoding: beforeSlash, as: UTF8.self))
        guard !withoutPath.isEmpty else { return nil }
        return parseGatewayURL(defaultScheme.rawValue + "://" + withoutPath)
    }

    /// Normalizes a gateway URL exactly as the TS gateway does (`setup-codes.md` §4), or returns
    /// `nil` when the gateway would call it invalid ("Configured publicUrl is invalid.").
    ///
    /// - `ws`/`wss`/`http`/`https` URLs: `http`→`ws`, `https`→`wss`; user-info → invalid; host
    ///   lowercased, IPv4 number forms canonicalized, IPv6 compressed in brackets, IDN labels
    ///   Punycode-encoded (UTS #46 subset, see `HostParser.swift`); scheme-default port dropped;
    ///   path kept unless `/`; query and fragment dropped.
    /// - `scheme:` without `//` for those schemes, any other `…://`, and `scheme:/…` → invalid.
    /// - Anything else is a bare `host[:port][/path]`: the part before the first `/` gets
    ///   `defaultScheme://` and is parsed as above (so the path is dropped).
    public static func normalize(_ raw: String, defaultScheme: Scheme) -> String? {
        parseForNormalization(raw, defaultScheme: defaultScheme)?.normalized
    }

    /// Normalizes `raw` (as `normalize`) and returns it as an endpoint: `explicitPort` is the
    /// port left in the normalized URL (`nil` when it was absent or the scheme default).
    public static func parse(_ raw: String, defaultScheme: Scheme) -> SetupEndpoint? {
        guard let parsed = parseForNormalization(raw, defaultScheme: defaultScheme) else { return nil }
        var endpoint = SetupEndpoint(parsed: parsed)
        if parsed.whatwgPort == nil {
            endpoint = SetupEndpoint(host: endpoint.host, explicitPort: nil, tls: endpoint.tls,
                                     contextPath: endpoint.contextPath)
        }
        return endpoint
    }

    /// The port written in `raw` after the §4 steps, even when it is the scheme default (the
    /// normalized form drops `ws://host:80`'s port; this still reports 80). `nil` when invalid
    /// or absent.
    public static func literalPort(_ raw: String, defaultScheme: Scheme) -> Int? {
        parseForNormalization(raw, defaultScheme: defaultScheme)?.literalPort
    }
}
