import ClawpairCore
import ClawpairSetupCode
import Testing

/// `DecodedSetup.textRows` / `json` and `JoinLink.textRows` / `json`: what `setup-code decode`
/// prints, for a program that shows setup codes to people.
@Suite("DecodedSetup and JoinLink for people and as JSON documents")
struct DecodedSetupTextTests {
    static let nowMs: Int64 = 1_737_264_000_000
    /// A G4 payload: two routes, a pin on the primary, a bootstrap token, expiry in 10 minutes.
    static let payload = """
        {"url":"wss://gw.example.com","urls":["wss://gw.example.com","ws://192.168.1.20:18789"],\
        "bootstrapToken":"bt-secret-0123456789","expiresAtMs":1737264600000,\
        "tlsFingerprint":"\(String(repeating: "ab", count: 32))"}
        """

    static func decoded(_ text: String = payload) throws -> DecodedSetup { try SetupCode.parse(text) }

    /// Marks each painted part as `<role:text>`.
    static func mark(_ role: TextRole, _ text: String) -> String { "<\(role):\(text)>" }

    @Test("rows in order, secrets redacted with the caller's note, expiry relative to now")
    func rows() throws {
        let setup = try Self.decoded()
        let rows = setup.textRows(nowMs: Self.nowMs, showSecrets: false, secretNote: " (shown with -s)", paint: Self.mark)
        #expect(rows.map(\.label) == ["Setup input", "Gateway", "Fallback 1", "TLS pin", "Expires", "Bootstrap token",
                                      "Access", "Strict decoder"])
        #expect(rows[0].value == "\(setup.generation.summary), \(setup.form.summary)")
        #expect(rows[1].value == "wss://gw.example.com  (TLS, pinned)")
        #expect(rows[2].value == "ws://192.168.1.20:18789  (plaintext)")
        #expect(rows[3].value == "sha256 \(setup.tlsFingerprint ?? "") (primary route only)")
        #expect(rows[4].value == "2025-01-19T05:30:00.000Z (\(WallClock.relative(ms: 1_737_264_600_000, now: Self.nowMs)))")
        #expect(rows[5].value == Redaction.redact("bt-secret-0123456789") + "<dim: (shown with -s)>")
        #expect(!rows.contains { $0.value.contains("bt-secret-0123456789") })
        #expect(rows[6].value == setup.accessHint.summary)

        let shown = setup.textRows(nowMs: Self.nowMs, showSecrets: true, verbose: true, paint: Self.mark)
        #expect(shown.first { $0.label == "Bootstrap token" }?.value == "bt-secret-0123456789")
        #expect(shown.last?.label == "Payload")
        #expect(shown.last?.value.contains("bt-secret-0123456789") == true)
        let verbose = setup.textRows(nowMs: Self.nowMs, showSecrets: false, verbose: true)
        #expect(verbose.last?.value.contains("bt-secret-0123456789") == false)
    }

    @Test("an expired code's Expires row is painted bad; no note means no painted suffix")
    func expired() throws {
        let later = Self.nowMs + 3_600_000
        let rows = try Self.decoded().textRows(nowMs: later, showSecrets: false, paint: Self.mark)
        let relative = WallClock.relative(ms: 1_737_264_600_000, now: later)
        #expect(rows.first { $0.label == "Expires" }?.value == "<bad:expired \(relative)> (2025-01-19T05:30:00.000Z)")
        #expect(rows.first { $0.label == "Bootstrap token" }?.value == Redaction.redact("bt-secret-0123456789"))
    }

    @Test("input text is sanitized in the rows")
    func sanitized() throws {
        let setup = try Self.decoded("{\"url\":\"ws://127.0.0.1:18789\",\"token\":\"t\\u001b[2Jx\"}")
        let rows = setup.textRows(nowMs: Self.nowMs, showSecrets: true)
        #expect(!rows.contains { $0.value.contains("\u{1B}") })
    }

    @Test("the JSON document: ok and error around the members; ok false with the caller's error object")
    func json() throws {
        let setup = try Self.decoded()
        let members = setup.jsonMembers(nowMs: Self.nowMs, showSecrets: false)
        #expect(setup.json(nowMs: Self.nowMs, showSecrets: false) == .object([("ok", .bool(true))] + members + [("error", .null)]))
        let error = JSONValue.object([("code", .string("expired"))])
        #expect(setup.json(nowMs: Self.nowMs, showSecrets: false, error: error)
                == .object([("ok", .bool(false))] + members + [("error", error)]))
    }

    @Test("a join URL: rows with the shortcode redacted unless shown, and its JSON document")
    func joinURL() throws {
        let url = "https://gw.example.com/j/AbCdEfGhIjKlMnOpQrStUv"
        let join = try #require(try JoinLink.recognize(url))
        let rows = join.textRows(showSecrets: false, secretNote: " (note)", paint: Self.mark)
        #expect(rows.map(\.label) == ["Setup input", "Gateway", "Join URL", "What it is"])
        #expect(rows[1].value == "https://gw.example.com  (TLS)")
        #expect(rows[2].value == join.redactedURL + "<dim: (note)>")
        #expect(rows[3].value == JoinLink.explanation)
        #expect(join.textRows(showSecrets: true)[2].value == url)
        #expect(join.json(showSecrets: false)
                == .object([("ok", .bool(true))] + join.jsonMembers(showSecrets: false) + [("error", .null)]))
    }
}
