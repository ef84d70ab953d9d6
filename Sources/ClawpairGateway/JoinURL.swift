// Join URLs (OpenClaw 2026.7+): `openclaw devices join-code` mints a single-use
// `https://<gateway>[/<context path>]/j/<shortcode>`; redeeming it is one plain GET that the
// gateway answers with the setup payload JSON itself, once (openclaw/openclaw
// src/cli/connect-cli.ts `parseJoinTarget`/`fetchJoinPayload`: https only, plain http only for a
// loopback host, the path ends in exactly `/j/<code>`, no query, fragment or userinfo, no
// redirects, a 15 s timeout, a body of at most 24 KiB, only a 2xx `application/json` answer
// counts; src/pairing/join-code.ts: the shortcode is `^[A-Za-z0-9_-]{22}$`; the gateway's
// `/j/` route: 404 `{"error":"not_found"}` for an unknown, expired, used or malformed code or
// any query, 429 `{"error":"rate_limited"}` with `Retry-After`).
//
// The GET goes over clawpair's own transport (Happy Eyeballs, OpenSSL with the system roots);
// ``JoinFetching`` is injected so the redemption's decisions are tested without sockets.
// The URL is read by ClawpairSetupCode's `JoinLink`, the one join-URL parser.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairSetupCode
import ClawpairTransport
import ClawpairWebSocket

/// A gateway join URL.
public struct JoinURL: Sendable, Equatable {
    /// The URL as given (it carries a secret: the shortcode).
    public let text: String
    /// The link's host.
    public let host: String
    /// The link's port.
    public let port: Int
    /// https (true) or loopback http.
    public let tls: Bool
    /// The request path, `…/j/<shortcode>`.
    public let path: String

    /// Shortcodes are 16 random bytes in base64url: 22 characters.
    public static let shortcodeLength = JoinLink.shortcodeLength
    /// The most of the answer's body that is read (upstream's MAX_JOIN_PAYLOAD_BYTES).
    public static let maxBodyBytes = 24 * 1024
    /// How long the whole GET may take (upstream's JOIN_FETCH_TIMEOUT_MS).
    public static let timeout: Duration = .seconds(15)

    /// Why text that looks like a join URL cannot be used.
    public enum ParseError: Error, Sendable, Equatable {
        /// Not exactly `…/j/<22-character code>`, or it carries a query, fragment or userinfo.
        case malformed
        /// Plain http to a host that is not loopback.
        case plaintext(host: String)
    }

    /// The join URL in `text`, read by ClawpairSetupCode's ``JoinLink`` (the one join-URL parser);
    /// nil when `text` is not an http(s) URL with a `/j/` segment (then it is something else: a
    /// setup code, a gateway URL).
    public static func parse(_ text: String) throws(ParseError) -> JoinURL? {
        let trimmed = GatewayAddress.trimmed(text)
        let link: JoinLink?
        do {
            link = try JoinLink.recognize(trimmed)
        } catch .plaintextNotLoopback(let host) {
            throw .plaintext(host: host)
        } catch {
            throw .malformed
        }
        guard let link else { return nil }
        return JoinURL(text: trimmed, host: link.host, port: link.port, tls: link.tls,
                       path: (link.contextPath ?? "") + "/j/" + link.shortcode)
    }

    /// The origin without the secret path, for messages: `https://host:port`.
    public var origin: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(tls ? "https" : "http")://\(host):\(port)"
    }
}

/// The gateway's HTTP answer to the GET.
public struct JoinHTTPResponse: Sendable, Equatable {
    /// The HTTP status code.
    public var status: Int
    /// `Content-Type`, lowercased.
    public var contentType: String?
    /// `Retry-After`, in seconds, when it is a number.
    public var retryAfterSeconds: Int?
    /// The body, at most ``JoinURL/maxBodyBytes``.
    public var body: [UInt8]

    /// A response with these members.
    public init(status: Int, contentType: String? = nil, retryAfterSeconds: Int? = nil, body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.retryAfterSeconds = retryAfterSeconds
        self.body = body
    }
}

/// Why redeeming a join URL failed.
public enum JoinError: Error, Sendable, Equatable {
    /// The URL is not a usable join URL.
    case invalidURL(JoinURL.ParseError)
    /// The gateway answered 404: the code was used, expired, or never existed.
    case notFound(origin: String)
    /// The gateway answered 429.
    case rateLimited(retryAfterSeconds: Int?)
    /// Another answer than 200 JSON (a redirect is not followed).
    case unexpectedAnswer(status: Int, contentType: String?)
    /// The body went over ``JoinURL/maxBodyBytes`` or the head over its limit.
    case tooLarge
    /// The body is not a setup payload (the decoder's reason).
    case invalidPayload(String)
    /// The GET failed: TCP, TLS or the HTTP exchange (`phase`, the reason).
    case unreachable(origin: String, phase: String, reason: String)
    /// The certificate failed system trust.
    case tlsTrust(origin: String, TLSTrustFailure)
    /// The target file holds nothing but whitespace (it is left in place).
    case emptyTargetFile(String)

    /// A refusal a user acts on (the code is gone, or TLS trust failed), as opposed to a failure.
    public var isRefusal: Bool {
        switch self {
        case .notFound, .tlsTrust: return true
        default: return false
        }
    }

    /// The join URL or target file given cannot be used.
    public var isBadInput: Bool {
        switch self {
        case .invalidURL, .emptyTargetFile: return true
        default: return false
        }
    }

    /// Nothing answered.
    public var isUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }
}

extension JoinError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .invalidURL(.malformed): return "the join URL must end with exactly /j/<code> (22 characters), with no query, fragment or user name"
        case .invalidURL(.plaintext(let host)):
            return "plain http join URLs are allowed only for loopback gateways (\(TerminalText.sanitize(host, maxScalars: 80)) is not)"
        case .notFound(let origin): return "the gateway at \(origin) does not know this join code: it was used already, expired, or never existed"
        case .rateLimited(let seconds): return "the gateway refused more join attempts for now" + (seconds.map { " (retry after \($0) s)" } ?? "")
        case .unexpectedAnswer(let status, let type):
            return "the gateway answered the join URL with HTTP \(status)" + (type.map { " (\(TerminalText.sanitize($0, maxScalars: 60)))" } ?? "")
                + ", not the setup payload"
        case .tooLarge: return "the gateway's answer to the join URL is larger than \(JoinURL.maxBodyBytes / 1024) KiB"
        case .invalidPayload(let reason): return "the gateway returned an invalid pairing payload: \(reason)"
        case .unreachable(let origin, let phase, let reason): return "cannot fetch the join URL from \(origin) (\(phase)): \(reason)"
        case .tlsTrust(let origin, let failure): return "TLS: \(origin): \(failure.message)"
        case .emptyTargetFile(let path): return "the target file \(TerminalText.sanitize(path, maxScalars: 200)) is empty"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .invalidURL(.plaintext): return "use the https:// join URL the gateway printed"
        case .invalidURL: return "paste the whole URL the gateway printed"
        case .notFound: return "a join URL works once and for about 10 minutes: mint another on the gateway"
        case .rateLimited: return "wait, then try again"
        case .tlsTrust(_, let failure): return failure.hint
        case .emptyTargetFile: return "write the setup code or join URL into it"
        case .unexpectedAnswer, .tooLarge, .invalidPayload, .unreachable: return nil
        }
    }
}

/// One GET of a join URL. ``NetworkJoinFetcher`` does it over the network; tests answer in-process.
public protocol JoinFetching {
    /// Fetches `url` once, following no redirect, reading at most ``JoinURL/maxBodyBytes``.
    func get(_ url: JoinURL, timeout: Duration) throws(JoinError) -> JoinHTTPResponse
}

/// Redeeming a join URL: the GET and the checks on its answer.
public enum JoinRedemption {
    /// The most a target file may hold (upstream's MAX_TARGET_FILE_BYTES).
    public static let maxTargetFileBytes = 64 * 1024

    /// The text of a target file, as `openclaw connect --target-file` reads it: a regular file of
    /// at most 64 KiB, trimmed; an empty one is an error. The file is removed (it holds a
    /// single-use secret) only once its text is known to be a join URL or a setup code: a file
    /// that holds neither is kept, and the decoding error is thrown (issue #25.8).
    public static func takeTargetFile(_ path: String) throws -> String {
        let text = GatewayAddress.trimmed(String(decoding: try FileIO.read(path: path, limit: maxTargetFileBytes), as: UTF8.self))
        guard !text.isEmpty else { throw JoinError.emptyTargetFile(path) }
        let joinURL: JoinURL?
        do {
            joinURL = try JoinURL.parse(text)
        } catch {
            throw JoinError.invalidURL(error)
        }
        if joinURL == nil { _ = try SetupCode.parse(text) }
        _ = unlink(path)
        return text
    }

    /// The most a setup code file or standard input may hold.
    public static let maxCodeBytes = 64 * 1024

    /// The pairing target text, trimmed: `targetFile` (read and removed, see
    /// ``takeTargetFile(_:)``), else `codeFile` (kept), else the argument (`-`: `standardInput`,
    /// called with the byte limit); `inArgv` when the text itself was on the command line.
    public static func readTarget(argument: String?, codeFile: String?, targetFile: String?,
                                  standardInput: (Int) throws -> [UInt8]) throws -> (text: String, inArgv: Bool) {
        if let targetFile { return (try takeTargetFile(targetFile), false) }
        let bytes: [UInt8]
        if let codeFile {
            bytes = try FileIO.read(path: codeFile, limit: maxCodeBytes)
        } else if argument == "-" {
            bytes = try standardInput(maxCodeBytes)
        } else {
            return (GatewayAddress.trimmed(argument ?? ""), true)
        }
        return (GatewayAddress.trimmed(String(decoding: bytes, as: UTF8.self)), false)
    }

    /// The setup behind `text`: a join URL is redeemed (once; `willFetch` hears it first), anything
    /// else decoded as a setup code; the join URL, when it was one.
    /// `timeout` bounds the join URL's fetch (at most ``JoinURL/timeout``).
    public static func setup(from text: String, fetcher: any JoinFetching = NetworkJoinFetcher(), timeout: Duration = JoinURL.timeout,
                             willFetch: (JoinURL) -> Void = { _ in }) throws -> (DecodedSetup, JoinURL?) {
        let url: JoinURL?
        do {
            url = try JoinURL.parse(text)
        } catch {
            throw JoinError.invalidURL(error)
        }
        guard let url else { return (try SetupCode.parse(text), nil) }
        willFetch(url)
        return (try redeem(url, fetcher: fetcher, timeout: timeout), url)
    }

    /// The setup payload behind `url` (a single-use secret: the gateway forgets it once fetched).
    public static func redeem(_ url: JoinURL, fetcher: any JoinFetching = NetworkJoinFetcher(),
                              timeout: Duration = JoinURL.timeout) throws(JoinError) -> DecodedSetup {
        let answer = try fetcher.get(url, timeout: min(timeout, JoinURL.timeout))
        switch answer.status {
        case 200...299 where answer.contentType?.hasPrefix("application/json") == true:
            guard answer.body.count <= JoinURL.maxBodyBytes else { throw .tooLarge }
            guard let text = String(validating: answer.body, as: UTF8.self),
                  case .object = (try? JSONValue.parse(text)) ?? .null else {
                throw .invalidPayload("not a JSON object")
            }
            do {
                return try SetupCode.parse(Base64URL.encode(Array(text.utf8)))
            } catch {
                throw .invalidPayload(error.message)
            }
        case 404: throw .notFound(origin: url.origin)
        case 429: throw .rateLimited(retryAfterSeconds: answer.retryAfterSeconds)
        default: throw .unexpectedAnswer(status: answer.status, contentType: answer.contentType)
        }
    }
}

/// A join URL as `openclaw devices join-code` mints it.
public struct JoinCode: Sendable, Equatable {
    /// The single-use URL (a secret until used or expired).
    public var url: String
    /// When its setup credential expires (epoch ms), if the gateway said.
    public var expiresAtMs: Int64?
    /// The URL is plain http to loopback: the gateway is only bound to loopback (no public
    /// origin), so only this machine, or a tunnel to it, can use it.
    public var loopbackOnly: Bool

    /// Mints one: `device.pair.setupCode {bootstrapProfile: node, includeQr: false, joinUrl: true}`
    /// (operator.admin; upstream src/gateway/server-methods/device-pair-setup.ts). A URL the
    /// gateway returned that no node would redeem is ``JoinError/invalidURL(_:)``.
    public static func mint(_ session: OperatorSession) throws -> JoinCode {
        var request = SetupCodeRequest(bootstrapProfile: "node")
        request.joinURL = true
        let result = try session.mintSetupCode(request)
        var parsed: JoinURL?
        if let text = result.joinUrl {
            do {
                parsed = try JoinURL.parse(text)
            } catch {
                // A URL no node would redeem (plain http to a host that is not loopback, or malformed).
                throw JoinError.invalidURL(error)
            }
        }
        guard let url = parsed else {
            throw GatewayError.protocolViolation("device.pair.setupCode returned no join URL (the gateway may predate 2026.7)")
        }
        return JoinCode(url: url.text, expiresAtMs: result.expiresAtMs, loopbackOnly: !url.tls)
    }

    /// `{"ok": true, "joinUrl", "expiresAtMs", "loopbackOnly"}`.
    public var json: JSONValue {
        .object([("ok", true), ("joinUrl", .string(url)), ("expiresAtMs", expiresAtMs.map(JSONValue.int) ?? .null),
                 ("loopbackOnly", .bool(loopbackOnly))])
    }
}
