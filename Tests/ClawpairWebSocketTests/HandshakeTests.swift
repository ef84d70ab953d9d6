@testable import ClawpairWebSocket
import Testing

@Suite struct SHA1Tests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (String(repeating: "a", count: 55), "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (String(repeating: "a", count: 64), "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
    ])
    func fipsVectors(input: String, digest: String) {
        #expect(SHA1.digest(Array(input.utf8)) == hex(digest), "\(input.prefix(10))…")
    }

    @Test func millionAs() {
        #expect(SHA1.digest([UInt8](repeating: 0x61, count: 1_000_000)) == hex("34aa973cd4c4daa4f61eeb2bdbad27316534016f"))
    }
}

@Suite struct HandshakeTests {
    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    @Test func rfcSampleAccept() {
        #expect(WebSocketHandshakeRequest.acceptValue(forKey: Self.sampleKey) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("Host: IPv6 in brackets, its zone left out (RFC 6874 §4)")
    func hostFieldDropsTheZone() {
        #expect(WebSocketHandshakeRequest(host: "fe80::1%eth0", port: 18789, tls: false).hostField == "[fe80::1]:18789")
        #expect(WebSocketHandshakeRequest(host: "fd00::1", port: 443, tls: true).hostField == "[fd00::1]")
        #expect(WebSocketHandshakeRequest(host: "gw.local", port: 80, tls: false).hostField == "gw.local")
    }

    @Test func requestBytes() {
        let request = WebSocketHandshakeRequest(host: "gw.example.com", port: 18789, tls: false, path: "/openclaw", key: Self.sampleKey,
                                                extraHeaders: [("User-Agent", "clawpair/1")])
        #expect(String(decoding: request.bytes, as: UTF8.self) == """
            GET /openclaw HTTP/1.1\r
            Host: gw.example.com:18789\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            User-Agent: clawpair/1\r
            \r

            """)
    }

    @Test func hostFieldOmitsDefaultPortsAndBracketsIPv6() {
        #expect(WebSocketHandshakeRequest(host: "a.example", port: 443, tls: true, key: "k").hostField == "a.example")
        #expect(WebSocketHandshakeRequest(host: "a.example", port: 80, tls: false, key: "k").hostField == "a.example")
        #expect(WebSocketHandshakeRequest(host: "a.example", port: 443, tls: false, key: "k").hostField == "a.example:443")
        #expect(WebSocketHandshakeRequest(host: "fd00::1", port: 18789, tls: false, key: "k").hostField == "[fd00::1]:18789")
    }

    @Test func randomKeysAre16Bytes() throws {
        let a = WebSocketHandshakeRequest.randomKey(), b = WebSocketHandshakeRequest.randomKey()
        #expect(a.count == 24 && a.hasSuffix("=="))
        #expect(a != b)
    }

    func response(_ lines: [String], terminator: String = "\r\n") -> [UInt8] {
        Array((lines.joined(separator: terminator) + terminator + terminator).utf8)
    }

    var goodLines: [String] {
        ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade",
         "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="]
    }

    func handshake() -> WebSocketClientHandshake {
        WebSocketClientHandshake(request: WebSocketHandshakeRequest(host: "h", port: 1, tls: false, key: Self.sampleKey))
    }

    @Test func acceptsAValidResponseAndReturnsTheFramesBehindIt() throws {
        var h = handshake()
        let frame: [UInt8] = [0x81, 0x02, 0x7B, 0x7D]
        let progress = try h.receive(response(goodLines) + frame)
        guard case .upgraded(let head, let remainder) = progress else { Issue.record("not upgraded"); return }
        #expect(head.statusCode == 101)
        #expect(remainder == frame)
    }

    @Test func toleratesCaseAndTokenListsAndBareLF() throws {
        var h = handshake()
        let lines = ["HTTP/1.1 101 ", "upgrade: WebSocket", "connection: keep-alive, upgrade",
                     "sec-websocket-accept:   s3pPLMBiTxaQ9kYGzzhZRbK+xOo=  "]
        #expect(try h.receive(response(lines, terminator: "\n")) == .upgraded(
            head: HTTPResponseHead(version: "HTTP/1.1", statusCode: 101, reason: "", headers: [
                ("upgrade", "WebSocket"), ("connection", "keep-alive, upgrade"),
                ("sec-websocket-accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
            ]), remainder: []))
    }

    @Test func byteByByteNeedsMoreThenUpgrades() throws {
        var h = handshake()
        let bytes = response(goodLines)
        for byte in bytes.dropLast() { #expect(try h.receive(CollectionOfOne(byte)) == .needMoreBytes) }
        guard case .upgraded = try h.receive(CollectionOfOne(bytes.last!)) else { Issue.record("not upgraded"); return }
    }

    @Test func refusals() {
        func check(_ lines: [String], _ expected: WebSocketHandshakeError) {
            var h = handshake()
            #expect(throws: expected, "\(lines)") { _ = try h.receive(response(lines)) }
        }
        check(["HTTP/1.1 200 OK", "Content-Type: text/html"], .unexpectedStatus(code: 200, reason: "OK"))
        check(["HTTP/1.1 426 Upgrade Required"], .unexpectedStatus(code: 426, reason: "Upgrade Required"))
        check(["HTTP/1.0 404 Not Found"], .unexpectedStatus(code: 404, reason: "Not Found"))
        check(["HTTP/1.1 101 Switching Protocols", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="],
              .missingUpgradeHeader(nil))
        check(["HTTP/1.1 101 Switching Protocols", "Upgrade: h2c", "Connection: Upgrade"], .missingUpgradeHeader("h2c"))
        check(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: close"], .missingConnectionUpgrade("close"))
        check(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade"], .acceptMismatch(nil))
        check(["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: AAAA"],
              .acceptMismatch("AAAA"))
        check(goodLines + ["Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="], .acceptMismatch("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        check(goodLines + ["Sec-WebSocket-Extensions: permessage-deflate"], .unexpectedExtension("permessage-deflate"))
        check(goodLines + ["Sec-WebSocket-Protocol: chat"], .unexpectedSubprotocol("chat"))
        check(["SSH-2.0-OpenSSH_9.2"], .malformedResponse("the status line does not start with HTTP/1.x"))
        check(["HTTP/2 101 x"], .malformedResponse("the status line does not start with HTTP/1.x"))
        check(["HTTP/1.1 1x1 Switching"], .malformedResponse("the status code is not three digits"))
        check(["HTTP/1.1 101 Switching", " folded: line"], .malformedResponse("obsolete line folding in the header fields"))
        check(["HTTP/1.1 101 Switching", "no colon here"], .malformedResponse("a header line has no colon"))
        check(["HTTP/1.1 101 Switching", "bad name: x"], .malformedResponse("a header field name is not a token"))
        check(["HTTP/1.1 101 Switching", "X: a\u{01}b"], .malformedResponse("a header field value contains control bytes"))
    }

    @Test func limits() {
        var small = HTTPResponseHeadParser(maxHeadBytes: 64)
        #expect(throws: WebSocketHandshakeError.responseHeadTooLarge(limit: 64)) {
            _ = try small.parse(Array(("HTTP/1.1 101 OK\r\nX-Long: " + String(repeating: "a", count: 100)).utf8))
        }
        // Exactly at the limit is fine.
        let exact = Array("HTTP/1.1 101 OK\r\n\r\n".utf8)
        var fits = HTTPResponseHeadParser(maxHeadBytes: exact.count)
        #expect((try? fits.parse(exact)) != nil)
        var few = HTTPResponseHeadParser(maxHeaderCount: 2)
        #expect(throws: WebSocketHandshakeError.tooManyHeaders(limit: 2)) {
            _ = try few.parse(Array("HTTP/1.1 101 OK\r\na: 1\r\nb: 2\r\nc: 3\r\n\r\n".utf8))
        }
        // A stream that never ends the head is refused once the limit is reached, not buffered further.
        var endless = HTTPResponseHeadParser(maxHeadBytes: 1024)
        var thrown = false
        for _ in 0..<100 {
            do { _ = try endless.parse([UInt8](repeating: 0x41, count: 100)) } catch { thrown = true; break }
            #expect(endless.bufferedByteCount <= 1024)
        }
        #expect(thrown)
    }

    @Test func endOfStreamError() throws {
        var h = handshake()
        _ = try h.receive(Array("HTTP/1.1 101".utf8))
        #expect(h.endOfStreamError == .closedBeforeResponse(receivedBytes: 12))
    }
}
