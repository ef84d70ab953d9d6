// Join URLs: `https://<gateway>[/<context path>]/j/<shortcode>`, minted by `openclaw devices
// join-code` and redeemed by `openclaw connect`. Upstream: `src/pairing/join-code.ts`
// (`DEVICE_PAIRING_JOIN_CODE_BYTES = 16`, shortcode `^[A-Za-z0-9_-]{22}$`) and
// `src/cli/connect-cli.ts` `parseJoinTarget` (http/https only; the path must end in exactly
// `/j/<shortcode>`; no userinfo, query or fragment; plain http only to a loopback host).
//
// A join URL is a bearer credential: whoever fetches it first gets the setup code, once. It
// is parsed here and never fetched: redeeming it is `ClawpairGateway.JoinURL` (the pairing
// flow's parser and HTTP client), hence this type's different name.

import ClawpairCore

/// A single-use gateway join URL (`https://gw.example.com/j/<22-char shortcode>`), validated as
/// `openclaw connect` validates one. The shortcode is a secret: show ``redactedURL`` unless
/// the user asked for secrets.
public struct JoinLink: Sendable, Hashable {
    /// The host, as ``SetupEndpoint/host`` (lowercase, IPv6 without brackets).
    public let host: String
    /// The port to connect to: the explicit port, else 443 (`https`) or 80 (`http`).
    public let port: Int
    /// The port as written, when there was one.
    public let explicitPort: Int?
    /// `https` (`true`) or loopback-only plain `http` (`false`).
    public let tls: Bool
    /// The path before `/j/<shortcode>` (the gateway's `controlUi.basePath`), or `nil` for the root.
    public let contextPath: String?
    /// The 22-character base64url shortcode (16 random bytes). Secret.
    public let shortcode: String

    /// The length of a shortcode (16 bytes in unpadded base64url).
    public static let shortcodeLength = 22

    /// Whether `text` is a well-formed shortcode: exactly 22 characters of `[A-Za-z0-9_-]`.
    public static func isShortcode(_ text: String) -> Bool {
        let bytes = text.utf8
        return bytes.count == shortcodeLength && bytes.allSatisfy {
            TextRules.isASCIIAlpha($0) || TextRules.isASCIIDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// The HTTP scheme, `https` or `http`.
    public var scheme: String { tls ? "https" : "http" }

    /// `scheme://host[:port]`: the port is shown unless it is the scheme's default.
    public var origin: String {
        let urlHost = host.contains(":") ? "[" + host + "]" : host
        let defaultPort = tls ? 443 : 80
        return scheme + "://" + urlHost + (port == defaultPort ? "" : ":\(port)")
    }

    /// The URL to fetch, shortcode included (a secret).
    public var url: String { origin + (contextPath ?? "") + "/j/" + shortcode }

    /// The URL with the shortcode replaced by `<shortcode>`, for display and logs.
    public var redactedURL: String { origin + (contextPath ?? "") + "/j/<shortcode>" }

    /// Reads `text` (surrounding whitespace ignored) as a join URL. Returns `nil` when it is not
    /// shaped like one (not an `http`/`https` URL whose last path segments are `j/…`), so the
    /// caller can try other readings; throws when it is shaped like a join URL but unusable.
    public static func recognize(_ text: String) throws(JoinLinkError) -> JoinLink? {
        let trimmed = TextRules.jsTrim(text)
        let lower = trimmed.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
              let parsed = GatewayURLParser.parse(trimmed) else { return nil }
        // The last segment is the shortcode, the one before it `j`; what precedes is the context path.
        var segments = parsed.pathname.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.last == "j" { segments.append("") }
        guard segments.count >= 2, segments[segments.endIndex - 2] == "j" else {
            // A `j` segment with more after it than one shortcode (`…/j/<code>/`, `…/j/<code>/x`): a
            // join URL with something appended, refused as `openclaw connect` refuses it.
            if segments.dropLast().contains("j") { throw .notExactForm }
            return nil
        }
        let code = String(segments[segments.endIndex - 1])
        let prefix = segments.dropLast(2).map { "/" + $0 }.joined()
        guard !parsed.hasCredentials else { throw .credentialsInURL }
        guard !parsed.hasQueryOrFragment else { throw .queryOrFragment }
        guard isShortcode(code) else { throw .invalidShortcode(length: code.unicodeScalars.count) }
        let host = parsed.host.bareForm
        guard parsed.tls || PlaintextPolicy.isLoopback(host: host) else { throw .plaintextNotLoopback(host: host) }
        let defaultPort = parsed.tls ? 443 : 80
        return JoinLink(host: host, port: parsed.literalPort ?? defaultPort, explicitPort: parsed.literalPort,
                       tls: parsed.tls, contextPath: prefix.isEmpty ? nil : String(prefix), shortcode: code)
    }

    /// Reads `text` as a join URL, or throws ``JoinLinkError/notAJoinURL`` when it is not shaped
    /// like one.
    public static func parse(_ text: String) throws(JoinLinkError) -> JoinLink {
        guard let joinURL = try recognize(text) else { throw .notAJoinURL }
        return joinURL
    }

    /// Whether `text` is shaped like a join URL (valid or not): what a caller checks before
    /// deciding to treat input as one.
    public static func looksLikeJoinURL(_ text: String) -> Bool {
        do { return try recognize(text) != nil } catch { return true }
    }
}

/// Why text shaped like a join URL cannot be used. Messages never echo the shortcode.
public enum JoinLinkError: Error, Sendable, Equatable {
    /// Not an `http(s)://…/j/<shortcode>` URL at all.
    case notAJoinURL
    /// The URL carries a user name or password.
    case credentialsInURL
    /// The URL carries a query (`?`) or fragment (`#`); the gateway answers such a request as unknown.
    case queryOrFragment
    /// The last path segment is not a 22-character base64url shortcode (its length).
    case invalidShortcode(length: Int)
    /// The path goes on after `/j/<shortcode>` (a trailing `/` or more segments).
    case notExactForm
    /// Plain `http://` to a host that is not loopback (the host).
    case plaintextNotLoopback(host: String)

    /// A stable identifier (kebab-case).
    public var code: String {
        switch self {
        case .notAJoinURL: return "not-a-join-url"
        case .credentialsInURL: return "join-url-credentials"
        case .queryOrFragment: return "join-url-query"
        case .invalidShortcode: return "join-url-shortcode"
        case .notExactForm: return "join-url-path"
        case .plaintextNotLoopback: return "join-url-plaintext"
        }
    }
}

extension JoinLinkError: ClawpairError {
    /// What failed, in one sentence without a trailing period.
    public var message: String {
        switch self {
        case .notAJoinURL:
            return "not a join URL: expected https://<gateway>/j/<shortcode>"
        case .credentialsInURL:
            return "join URL carries a user name or password; a join URL is exactly https://<gateway>/j/<shortcode>"
        case .queryOrFragment:
            return "join URL carries a query or fragment; it must end with the exact /j/<shortcode> form"
        case let .invalidShortcode(length):
            return "join URL shortcode is \(length) characters; a join shortcode is \(JoinLink.shortcodeLength) "
                + "characters of A-Z, a-z, 0-9, _ and -"
        case .notExactForm:
            return "join URL goes on after /j/<shortcode>; it must end with the exact /j/<shortcode> form"
        case let .plaintextNotLoopback(host):
            return "plain http:// join URLs are allowed only for loopback gateways, not \(host)"
        }
    }

    /// What to do next.
    public var hint: String? {
        switch self {
        case .notAJoinURL, .credentialsInURL, .queryOrFragment, .invalidShortcode, .notExactForm:
            return "copy the whole join URL again exactly as the gateway printed it (openclaw devices join-code)"
        case .plaintextNotLoopback:
            return "use the https:// join URL the gateway printed; a join URL over plain http would expose the setup code"
        }
    }
}
