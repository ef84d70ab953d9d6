import Testing
@testable import ClawpairSetupCode

/// Join URLs as `openclaw connect` reads them (`src/cli/connect-cli.ts` `parseJoinTarget`,
/// `src/pairing/join-code.ts`).
@Suite struct JoinLinkTests {
    static let code = "AbCdEfGhIjKlMnOpQrSt_-"

    @Test func shortcodeShape() {
        #expect(JoinLink.isShortcode(Self.code))
        #expect(!JoinLink.isShortcode(String(Self.code.dropLast())), "21 characters")
        #expect(!JoinLink.isShortcode(Self.code + "A"), "23 characters")
        #expect(!JoinLink.isShortcode("AbCdEfGhIjKlMnOpQrSt+/"), "standard base64 alphabet")
        #expect(!JoinLink.isShortcode("AbCdEfGhIjKlMnOpQrSté-"), "non-ASCII")
        #expect(!JoinLink.isShortcode(""))
    }

    @Test func recognisesJoinURLs() throws {
        let plain = try #require(try JoinLink.recognize("  https://Gateway.Example.com/j/\(Self.code)\n"))
        #expect(plain.host == "gateway.example.com" && plain.port == 443 && plain.tls && plain.contextPath == nil)
        #expect(plain.shortcode == Self.code)
        #expect(plain.url == "https://gateway.example.com/j/\(Self.code)")
        #expect(plain.redactedURL == "https://gateway.example.com/j/<shortcode>")
        #expect(plain.origin == "https://gateway.example.com")

        let based = try JoinLink.parse("https://gw.example.com:8443/openclaw/j/\(Self.code)")
        #expect(based.port == 8443 && based.explicitPort == 8443 && based.contextPath == "/openclaw")
        #expect(based.url == "https://gw.example.com:8443/openclaw/j/\(Self.code)")

        let loopback = try JoinLink.parse("http://127.0.0.1:18789/j/\(Self.code)")
        #expect(!loopback.tls && loopback.port == 18789 && loopback.origin == "http://127.0.0.1:18789")
        #expect(try JoinLink.parse("http://[::1]/j/\(Self.code)").origin == "http://[::1]")
        #expect(try JoinLink.parse("http://localhost:18789/j/\(Self.code)").host == "localhost")
        // A context path may itself contain a /j/ segment; the last one counts.
        #expect(try JoinLink.parse("https://gw.example.com/j/x/j/\(Self.code)").contextPath == "/j/x")
    }

    @Test func otherURLsAreNotJoinURLs() throws {
        for text in ["wss://gw.example.com/j/\(Self.code)", "https://gw.example.com", "https://gw.example.com/",
                     "https://gw.example.com/gateway",
                     "https://gw.example.com/jj/\(Self.code)", Self.code, "oc-pair://\(Self.code)", "not a url"] {
            #expect(try JoinLink.recognize(text) == nil, "\(text)")
            #expect(!JoinLink.looksLikeJoinURL(text), "\(text)")
        }
        #expect(throws: JoinLinkError.notAJoinURL) { try JoinLink.parse("https://gw.example.com/") }
    }

    @Test func unusableJoinURLsAreRefused() {
        let cases: [(String, JoinLinkError)] = [
            ("https://gw.example.com/j/\(Self.code)?x=1", .queryOrFragment),
            ("https://gw.example.com/j/\(Self.code)#frag", .queryOrFragment),
            ("https://gw.example.com/j/\(Self.code)?", .queryOrFragment),
            ("https://user:pw@gw.example.com/j/\(Self.code)", .credentialsInURL),
            ("https://gw.example.com/j/short", .invalidShortcode(length: 5)),
            ("https://gw.example.com/j/", .invalidShortcode(length: 0)),
            ("https://gw.example.com/j", .invalidShortcode(length: 0)),
            // Something after the shortcode: refused by decode and pair alike, as `openclaw connect` does.
            ("https://gw.example.com/j/\(Self.code)/", .notExactForm),
            ("https://gw.example.com/j/\(Self.code)/extra", .notExactForm),
            ("https://gw.example.com/base/j/\(Self.code)//", .notExactForm),
            ("https://gw.example.com/j/AbCdEfGhIjKlMnOpQrSt%2B", .invalidShortcode(length: 23)),
            ("http://gw.example.com/j/\(Self.code)", .plaintextNotLoopback(host: "gw.example.com")),
            ("http://192.168.1.20:18789/j/\(Self.code)", .plaintextNotLoopback(host: "192.168.1.20")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try JoinLink.recognize(text) }
            #expect(JoinLink.looksLikeJoinURL(text), "\(text)")
        }
    }

    @Test func messagesNeverEchoTheShortcode() {
        let errors: [JoinLinkError] = [.notAJoinURL, .credentialsInURL, .queryOrFragment, .invalidShortcode(length: 21),
                                      .notExactForm, .plaintextNotLoopback(host: "gw.example.com")]
        for error in errors {
            #expect(!error.message.contains(Self.code) && error.hint != nil, "\(error)")
        }
        #expect(Set(errors.map(\.code)).count == errors.count)
    }
}
