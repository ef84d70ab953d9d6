// Errors from decoding, checking and minting setup codes. Each case has a stable `code` (the
// reject classes of `vectors.json` `setupCode.decode`, plus the encoder's own) and a `message`
// that says what failed; `hint` says what to do next. Strings quoted from the input are kept
// exactly; sanitizing them for a terminal is the CLI's job.

import ClawpairCore

/// A route the decoder did not keep, and why.
public struct DroppedRoute: Sendable, Hashable {
    /// Why a route was dropped.
    public enum Reason: String, Sendable, Hashable {
        /// Plaintext `ws://` to a host the §5 policy refuses.
        case insecurePlaintextHost = "insecure-plaintext-host"
        /// Not a usable ws/wss/http/https URL (or host), e.g. user-info, a bad port, a non-string entry.
        case invalidURL = "invalid-url"
        /// A different spelling of an endpoint already listed (e.g. `wss://h:443` after `wss://h`).
        case duplicate
        /// Beyond the cap of 8 endpoints (or beyond the routes the decoder considers at all).
        case overCap = "over-cap"
        /// The plaintext `url` route of a payload that pins a TLS certificate: the apps reject that
        /// route (and drop the pin) but keep the fallbacks.
        case pinWithoutTLS = "pin-without-tls"
    }

    /// The route as given (URL or host text; for a non-string `urls` entry, its JSON), with a
    /// URL's userinfo, query and fragment redacted (``Redaction/url(_:)``): it is shown and
    /// printed, and a code's URLs may carry secrets there (issue #25.10).
    public let route: String
    /// Why it was dropped.
    public let reason: Reason

    /// Creates a dropped-route record (the route redacted as ``route`` says).
    public init(route: String, reason: Reason) {
        self.route = Redaction.url(route)
        self.reason = reason
    }
}

/// Why a setup code (or setup input) was refused, or could not be minted.
public enum SetupCodeError: Error, Sendable, Equatable {
    /// The input is larger than the decoder reads (`bytes`, `limit`).
    case inputTooLarge(bytes: Int, limit: Int)
    /// Not a setup code, setup JSON, `openclaw://gateway` link or gateway URL; the detail says what it looked like.
    case notAPayload(String)
    /// A known payload field has the wrong type or shape (`name`, what was expected).
    case invalidField(name: String, expected: String)
    /// No usable endpoint: there was none, or every one was invalid (listed).
    case noEndpoint(dropped: [DroppedRoute])
    /// Every endpoint was plaintext to a host the policy refuses; `host` is the first one.
    case insecurePlaintextHost(host: String)
    /// The bootstrap token expired at `expiresAtMs` (epoch ms), at or before `nowMs`.
    case expired(expiresAtMs: Int64, nowMs: Int64)
    /// `expiresAtMs` is not a non-negative safe integer (the detail says what it was).
    case invalidExpiry(String)
    /// `tlsFingerprint` does not normalize to 64 hex digits (the value, or its JSON type).
    case invalidFingerprint(String)
    /// A TLS fingerprint was given for a primary URL that is not `wss://` (the URL).
    case fingerprintWithoutTLS(url: String)
    /// A URL field is not in normalized form, which the strict TS decoder requires.
    case notNormalized(field: String, value: String, normalized: String?)
    /// The strict TS decoder requires a non-empty `bootstrapToken`.
    case missingBootstrapToken
    /// A URL given to the encoder is not a valid gateway URL.
    case invalidURL(String)
    /// A URL given to the encoder carries a query or fragment, which decoders refuse (the URL).
    case urlMetadata(url: String)
    /// More routes than a setup code may carry.
    case tooManyRoutes(count: Int, limit: Int)
    /// A plaintext URL on port 80: the apps would dial 18789 instead (§4 port-80 caveat).
    case plaintextPort80(url: String)
    /// The bootstrap token is empty or only whitespace.
    case emptyToken

    /// A stable identifier (the `reject` names of `vectors.json`, kebab-case).
    public var code: String {
        switch self {
        case .inputTooLarge: return "input-too-large"
        case .notAPayload: return "not-a-payload"
        case .invalidField: return "invalid-field"
        case .noEndpoint: return "no-endpoint"
        case .insecurePlaintextHost: return "insecure-plaintext-host"
        case .expired: return "expired"
        case .invalidExpiry: return "invalid-expiry"
        case .invalidFingerprint: return "invalid-fingerprint"
        case .fingerprintWithoutTLS: return "fingerprint-without-tls"
        case .notNormalized: return "not-normalized"
        case .missingBootstrapToken: return "missing-bootstrap-token"
        case .invalidURL: return "invalid-url"
        case .urlMetadata: return "url-metadata"
        case .tooManyRoutes: return "too-many-routes"
        case .plaintextPort80: return "plaintext-port-80"
        case .emptyToken: return "empty-token"
        }
    }
}

extension SetupCodeError {
    /// The input of `SetupCode.make` an encoder error is about, so a command can name its option.
    public enum EncoderInput: Sendable, Equatable {
        /// The gateway URLs.
        case url
        /// The TLS fingerprint.
        case tlsFingerprint
        /// The bootstrap token.
        case bootstrapToken
        /// The expiry.
        case expiry
    }

    /// Which input of `SetupCode.make` this error is about; `nil` for a decoder-only error or an
    /// internal check.
    public var encoderInput: EncoderInput? {
        switch self {
        case .invalidURL, .urlMetadata, .insecurePlaintextHost, .plaintextPort80, .tooManyRoutes, .noEndpoint:
            return .url
        case .invalidFingerprint, .fingerprintWithoutTLS: return .tlsFingerprint
        case .emptyToken: return .bootstrapToken
        case .invalidField(let name, _) where name == "bootstrapToken": return .bootstrapToken
        case .invalidExpiry: return .expiry
        default: return nil
        }
    }
}

extension SetupCodeError: ClawpairError {
    /// What failed, in one sentence without a trailing period.
    public var message: String {
        switch self {
        case let .inputTooLarge(bytes, limit):
            return "setup input is \(bytes) bytes; setup codes are far shorter (limit \(limit) bytes)"
        case let .notAPayload(detail):
            return "not a setup code: \(detail)"
        case let .invalidField(name, expected):
            return "setup payload field '\(name)' must be \(expected)"
        case let .noEndpoint(dropped):
            let invalid = dropped.filter { $0.reason == .invalidURL }.map { "'\($0.route)'" }
            if invalid.isEmpty { return "setup payload has no gateway endpoint (no 'url' or 'host')" }
            return "setup payload has no usable gateway endpoint: invalid URL " + invalid.joined(separator: ", ")
        case let .insecurePlaintextHost(host):
            return "setup code points at plaintext ws:// on \(host), which is refused for pairing"
        case let .expired(expiresAtMs, nowMs):
            // The one relative wording (WallClock.relative), as the decoded code's "Expires" line shows it.
            let when = nowMs > expiresAtMs ? WallClock.relative(ms: expiresAtMs, now: nowMs) : "just now"
            // A time people read (UTC), not the epoch ms the payload carries (issue #24 §16).
            return "pairing setup code has expired (\(when)" + (WallClock.iso8601(ms: expiresAtMs).map { ", at \($0)" } ?? "") + ")"
        case let .invalidExpiry(detail):
            return "setup payload field 'expiresAtMs' must be a non-negative integer (epoch ms), got \(detail)"
        case let .invalidFingerprint(value):
            return "setup payload 'tlsFingerprint' is not a SHA-256 fingerprint: \(value)"
        case let .fingerprintWithoutTLS(url):
            return "setup payload pins a TLS certificate, but its primary URL \(url) is not wss://"
        case let .notNormalized(field, value, normalized):
            if let normalized { return "\(field) is not in normalized form: \(value) → \(normalized)" }
            return "\(field) is not a valid gateway URL: \(value)"
        case .missingBootstrapToken:
            return "setup payload has no bootstrapToken"
        case let .invalidURL(url):
            return "invalid gateway URL: \(Redaction.url(url))"
        case let .urlMetadata(url):
            return "gateway URL \(Redaction.url(url)) carries a query or fragment, which OpenClaw's decoders refuse"
        case let .tooManyRoutes(count, limit):
            return "\(count) gateway URLs given; a setup code carries at most \(limit)"
        case let .plaintextPort80(url):
            return "plaintext URL \(url) uses port 80, which the apps would dial as 18789"
        case .emptyToken:
            return "bootstrap token is empty"
        }
    }

    /// What to do next.
    public var hint: String? {
        switch self {
        case .inputTooLarge, .notAPayload:
            return "paste the setup code (from `openclaw qr --setup-code-only`), its oc-pair:// form, the setup JSON, "
                + "an openclaw://gateway?… link or a ws:// / wss:// gateway URL"
        case .invalidField, .invalidExpiry, .invalidFingerprint, .fingerprintWithoutTLS, .noEndpoint,
             .notNormalized, .missingBootstrapToken:
            return "the code is damaged or was not made by an OpenClaw gateway; generate a new one with `openclaw qr`"
        case .insecurePlaintextHost:
            return PlaintextPolicy.refusalMessage
        case .expired:
            return "setup codes are valid for 10 minutes; generate a new one with `openclaw qr`"
        case .invalidURL:
            return "use ws://host[:port][/path] or wss://host[:port][/path] (http:// and https:// map to them)"
        case .urlMetadata:
            return "remove the ?… or #… part; a gateway URL is ws[s]://host[:port][/path]"
        case .tooManyRoutes:
            return "keep the primary URL and at most 7 fallbacks"
        case .plaintextPort80:
            return "serve the gateway on another port (18789 is the default) or use wss://"
        case .emptyToken:
            return "pass the bootstrap token the gateway issued (device.pair.setupCode)"
        }
    }
}
