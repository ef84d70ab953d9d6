// A bounded, incremental parser for the HTTP/1.x response head that answers a WebSocket
// upgrade request (RFC 9112 §4 status line, §5 field lines). Only the head is parsed; the
// bytes after the blank line belong to the WebSocket stream and are handed back untouched.
//
// Limits are checked before bytes are kept: at most `maxHeadBytes` are buffered while looking
// for the end of the head, and at most `maxHeaderCount` field lines are accepted. Bare LF line
// endings are tolerated (RFC 9112 §2.2 allows it); obsolete line folding, fields without a
// colon, non-token names and control bytes in values are refused.

/// An HTTP response head: status line and header fields, in order.
public struct HTTPResponseHead: Sendable, Equatable {
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    /// The three-digit status code.
    public var statusCode: Int
    /// The reason phrase (possibly empty), with control bytes removed.
    public var reason: String
    /// Field names as sent and values with surrounding whitespace removed, in order.
    public var headers: [(name: String, value: String)]

    /// A response head with these members.
    public init(version: String, statusCode: Int, reason: String, headers: [(name: String, value: String)]) {
        self.version = version
        self.statusCode = statusCode
        self.reason = reason
        self.headers = headers
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The values of `name` joined with `, ` (RFC 9110 §5.3), or nil when absent.
    public func value(_ name: String) -> String? {
        let all = values(name)
        return all.isEmpty ? nil : all.joined(separator: ", ")
    }

    /// Equal when every member is.
    public static func == (lhs: HTTPResponseHead, rhs: HTTPResponseHead) -> Bool {
        lhs.version == rhs.version && lhs.statusCode == rhs.statusCode && lhs.reason == rhs.reason
            && lhs.headers.count == rhs.headers.count
            && zip(lhs.headers, rhs.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// Parses a response head from bytes that arrive in pieces.
public struct HTTPResponseHeadParser: Sendable {
    /// Default `maxHeadBytes`: 16 KiB, ample for a 101 response.
    public static let defaultMaxHeadBytes = 16 * 1024
    /// Default `maxHeaderCount`: 100 field lines.
    public static let defaultMaxHeaderCount = 100

    /// The most bytes buffered while looking for the end of the head.
    public let maxHeadBytes: Int
    /// The most header field lines accepted.
    public let maxHeaderCount: Int

    private var buffer: [UInt8] = []
    private var scanFrom = 0

    /// A parser with the given limits (defaults ``defaultMaxHeadBytes``, ``defaultMaxHeaderCount``).
    public init(maxHeadBytes: Int = HTTPResponseHeadParser.defaultMaxHeadBytes,
                maxHeaderCount: Int = HTTPResponseHeadParser.defaultMaxHeaderCount) {
        precondition(maxHeadBytes >= 16 && maxHeaderCount >= 1, "limits must admit a status line")
        self.maxHeadBytes = maxHeadBytes
        self.maxHeaderCount = maxHeaderCount
    }

    /// Bytes buffered so far.
    public var bufferedByteCount: Int { buffer.count }

    /// Feeds bytes. Returns the head and the bytes that followed it once the head is complete,
    /// nil while more bytes are needed. Do not feed the parser again after it returned a head.
    public mutating func parse(_ bytes: some Collection<UInt8>) throws(WebSocketHandshakeError) -> (head: HTTPResponseHead, remainder: [UInt8])? {
        var input = bytes[...]
        // Only keep what fits in the limit; the end of the head must be inside it.
        let room = maxHeadBytes - buffer.count
        let kept = input.prefix(room)
        input = input.dropFirst(kept.count)
        buffer.append(contentsOf: kept)

        guard let end = findEndOfHead() else {
            if buffer.count >= maxHeadBytes { throw .responseHeadTooLarge(limit: maxHeadBytes) }
            return nil
        }
        let head = try Self.parseHead(buffer[..<end.headEnd], maxHeaderCount: maxHeaderCount)
        var remainder = Array(buffer[end.bodyStart...])
        remainder.append(contentsOf: input)
        return (head, remainder)
    }

    /// Finds the blank line: `\r\n\r\n`, `\n\n`, `\r\n\n` or `\n\r\n`. Resumes where the last
    /// scan stopped so a head fed byte by byte costs linear time.
    private mutating func findEndOfHead() -> (headEnd: Int, bodyStart: Int)? {
        var i = max(scanFrom, 0)
        while i < buffer.count {
            if buffer[i] == 0x0A {
                // `i` ends a line; is the next line empty?
                if i + 1 < buffer.count && buffer[i + 1] == 0x0A { return (i + 1, i + 2) }
                if i + 2 < buffer.count && buffer[i + 1] == 0x0D && buffer[i + 2] == 0x0A { return (i + 1, i + 3) }
                if i + 1 >= buffer.count || (i + 2 >= buffer.count && buffer[i + 1] == 0x0D) {
                    scanFrom = i
                    return nil
                }
            }
            i += 1
        }
        scanFrom = buffer.count
        return nil
    }

    private static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(c)
        }
    }

    /// Parses the lines of a complete head (without the final blank line).
    static func parseHead(_ bytes: ArraySlice<UInt8>, maxHeaderCount: Int) throws(WebSocketHandshakeError) -> HTTPResponseHead {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 0x0A {
                var line = bytes[start..<i]
                if line.last == 0x0D { line = line.dropLast() }
                lines.append(line)
                start = i + 1
            }
            i += 1
        }
        if start < bytes.endIndex { lines.append(bytes[start...]) }
        guard let statusLine = lines.first else { throw .malformedResponse("empty response") }

        // Status line: HTTP-version SP 3DIGIT SP reason-phrase (the SP before an empty reason is optional in practice).
        let prefix = Array("HTTP/1.".utf8)
        guard statusLine.count >= 12, Array(statusLine.prefix(7)) == prefix else {
            throw .malformedResponse("the status line does not start with HTTP/1.x")
        }
        let s = Array(statusLine)
        guard s[7] == UInt8(ascii: "0") || s[7] == UInt8(ascii: "1"), s[8] == UInt8(ascii: " ") else {
            throw .malformedResponse("unsupported HTTP version")
        }
        var code = 0
        for c in s[9..<12] {
            guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { throw .malformedResponse("the status code is not three digits") }
            code = code * 10 + Int(c - UInt8(ascii: "0"))
        }
        guard code >= 100 else { throw .malformedResponse("the status code is below 100") }
        var reason = ""
        if s.count > 12 {
            guard s[12] == UInt8(ascii: " ") else { throw .malformedResponse("no space after the status code") }
            reason = String(decoding: s[13...].filter { $0 >= 0x20 && $0 != 0x7F }, as: UTF8.self)
        }
        let version = String(decoding: s[0..<8], as: UTF8.self)

        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard headers.count < maxHeaderCount else { throw .tooManyHeaders(limit: maxHeaderCount) }
            guard let first = line.first, first != UInt8(ascii: " ") && first != 0x09 else {
                throw .malformedResponse("obsolete line folding in the header fields")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw .malformedResponse("a header line has no colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                throw .malformedResponse("a header field name is not a token")
            }
            var value = line[(colon + 1)...]
            while let c = value.first, c == 0x20 || c == 0x09 { value = value.dropFirst() }
            while let c = value.last, c == 0x20 || c == 0x09 { value = value.dropLast() }
            guard !value.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
                throw .malformedResponse("a header field value contains control bytes")
            }
            headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return HTTPResponseHead(version: version, statusCode: code, reason: reason, headers: headers)
    }
}
