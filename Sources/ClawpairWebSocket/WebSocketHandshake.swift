// The client side of the RFC 6455 §4.1 opening handshake, without I/O: the request bytes to
// send, and the checks on the server's response (§4.1 "the client MUST validate"): status 101,
// `Upgrade: websocket`, a `Connection` field with the `Upgrade` token, the exact
// `Sec-WebSocket-Accept` for our key, and no extension or subprotocol we did not offer.

import ClawpairCore

/// The GUID appended to the key before hashing (§1.3).
let webSocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/// The opening request of a client.
public struct WebSocketHandshakeRequest: Sendable, Equatable {
    /// The host as it goes in the `Host` field: a name, an IPv4 literal, or an IPv6 literal
    /// without brackets (they are added).
    public let host: String
    /// The TCP port.
    public let port: Int
    /// Whether the connection is `wss://` (changes which port is the default in `Host`).
    public let tls: Bool
    /// The request target: the URL's path (and query), starting with `/`.
    public let path: String
    /// `Sec-WebSocket-Key`: base64 of 16 random bytes.
    public let key: String
    /// Extra header fields, e.g. `User-Agent` or `Origin`, sent after the required ones.
    public let extraHeaders: [(name: String, value: String)]

    /// A request for `ws[s]://host:port/path`. `key` defaults to a fresh random key (§4.1:
    /// "randomly selected 16-byte value"). `path` must start with `/` and contain no spaces or
    /// control bytes; header names and values must not contain CR or LF.
    public init(host: String, port: Int, tls: Bool, path: String = "/", key: String = WebSocketHandshakeRequest.randomKey(),
                extraHeaders: [(name: String, value: String)] = []) {
        precondition(path.hasPrefix("/") && !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }), "path must be a request target")
        precondition(!(host + key).utf8.contains(where: { $0 < 0x20 }), "no control bytes in host or key")
        precondition(extraHeaders.allSatisfy { !($0.name + $0.value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) },
                     "no CR or LF in header fields")
        self.host = host
        self.port = port
        self.tls = tls
        self.path = path
        self.key = key
        self.extraHeaders = extraHeaders
    }

    /// A fresh `Sec-WebSocket-Key` from the system CSPRNG.
    public static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let word = generator.next() as UInt64
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Base64.encode(bytes)
    }

    /// The `Host` field value: brackets around IPv6, the port unless it is the scheme's default (§4.1 item 4).
    /// An IPv6 zone (`fe80::1%eth0`) is this machine's business and left out (RFC 6874 §4).
    public var hostField: String {
        let bare = host.contains(":") ? String(host.prefix { $0 != "%" }) : host
        let bracketed = host.contains(":") ? "[\(bare)]" : host
        let defaultPort = tls ? 443 : 80
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    /// The value the server must return in `Sec-WebSocket-Accept`: base64(SHA-1(key + GUID)).
    public var expectedAccept: String { WebSocketHandshakeRequest.acceptValue(forKey: key) }

    /// base64(SHA-1(`key` + the RFC 6455 GUID)) (§4.2.2 step 5.4).
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.digest(Array((key + webSocketGUID).utf8)))
    }

    /// The request bytes.
    public var bytes: [UInt8] {
        var text = "GET \(path) HTTP/1.1\r\n"
        text += "Host: \(hostField)\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        text += "Sec-WebSocket-Version: 13\r\n"
        for (name, value) in extraHeaders { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Equal when every member is.
    public static func == (lhs: WebSocketHandshakeRequest, rhs: WebSocketHandshakeRequest) -> Bool {
        lhs.bytes == rhs.bytes
    }

    /// Checks a complete response head against this request (§4.1, the client's validation
    /// steps 1–6). Throws the first violation.
    public func validate(_ head: HTTPResponseHead) throws(WebSocketHandshakeError) {
        guard head.statusCode == 101 else { throw .unexpectedStatus(code: head.statusCode, reason: head.reason) }
        let upgrade = head.value("Upgrade")
        guard let upgrade, upgrade.lowercased() == "websocket" else { throw .missingUpgradeHeader(upgrade) }
        let connection = head.value("Connection")
        let tokens = connection?.split(separator: ",").map { $0.trimmingASCIISpaces.lowercased() } ?? []
        guard tokens.contains("upgrade") else { throw .missingConnectionUpgrade(connection) }
        let accepts = head.values("Sec-WebSocket-Accept")
        guard accepts.count == 1, accepts[0] == expectedAccept else { throw .acceptMismatch(accepts.first) }
        if let extensions = head.value("Sec-WebSocket-Extensions"), !extensions.isEmpty {
            throw .unexpectedExtension(extensions)
        }
        if let subprotocol = head.value("Sec-WebSocket-Protocol"), !subprotocol.isEmpty {
            throw .unexpectedSubprotocol(subprotocol)
        }
    }
}

/// The client handshake as a state machine: send `request.bytes`, feed what the server sends,
/// and get either "need more" or the upgraded stream's first bytes.
public struct WebSocketClientHandshake: Sendable {
    /// What feeding bytes achieved.
    public enum Progress: Sendable, Equatable {
        /// The response head has not ended yet.
        case needMoreBytes
        /// The server accepted the upgrade; `remainder` is the start of the frame stream.
        case upgraded(head: HTTPResponseHead, remainder: [UInt8])
    }

    /// The request this handshake sends and validates against.
    public let request: WebSocketHandshakeRequest
    private var parser: HTTPResponseHeadParser
    private var done = false

    /// A handshake for `request`, parsing the response with `parser`'s limits.
    public init(request: WebSocketHandshakeRequest, parser: HTTPResponseHeadParser = HTTPResponseHeadParser()) {
        self.request = request
        self.parser = parser
    }

    /// Bytes received so far that did not yet complete the head.
    public var bufferedByteCount: Int { parser.bufferedByteCount }

    /// Feeds bytes from the server.
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(WebSocketHandshakeError) -> Progress {
        precondition(!done, "the handshake already completed")
        guard let (head, remainder) = try parser.parse(bytes) else { return .needMoreBytes }
        try request.validate(head)
        done = true
        return .upgraded(head: head, remainder: remainder)
    }

    /// The error to report when the connection ends before the head did.
    public var endOfStreamError: WebSocketHandshakeError {
        .closedBeforeResponse(receivedBytes: parser.bufferedByteCount)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingASCIISpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
