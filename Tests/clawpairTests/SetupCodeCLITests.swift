import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair setup-code encode|decode` through the built binary, with exact expectations.
@Suite struct SetupCodeCLITests {
    /// 2025-01-19T05:20:00Z: ten minutes before the T13 vector's expiry.
    static let now: Int64 = 1_737_264_000_000
    static let t13 = "eyJ1cmwiOiJ3czovLzE5Mi4xNjguMS4yMDoxODc4OSIsImJvb3RzdHJhcFRva2VuIjoiYm9vdHN0cmFwLWFiYyIsImV4cGlyZXNBdE1zIjoxNzM3MjY0NjAwMDAwfQ"
    static let pin = "a3f1c2d4e5b60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"

    @Test func decodeHumanOutputIsExact() throws {
        let result = try ClawpairBinary.run(["setup-code", "decode", "-"], stdin: Self.t13 + "\n", nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout == """
            Setup input      G4 setup code (bootstrap token with expiry), bare code
            Gateway          ws://192.168.1.20:18789  (plaintext)
            Expires          2025-01-19T05:30:00.000Z (in 10m)
            Bootstrap token  <redacted, 13 chars> (--show-secrets prints it)
            Access           at most limited: the gateway downgrades codes with a plaintext ws:// route that is not loopback
            Strict decoder   accepted (current OpenClaw gateways and apps read it)

            """, "\(result)")
    }

    @Test func decodeShowsSecretsOnlyWhenAsked() throws {
        let hidden = try ClawpairBinary.run(["setup-code", "decode"], stdin: Self.t13, nowMs: Self.now)
        #expect(!hidden.stdout.contains("bootstrap-abc"))
        let shown = try ClawpairBinary.run(["setup-code", "decode", "--show-secrets"], stdin: Self.t13, nowMs: Self.now)
        #expect(shown.stdout.contains("Bootstrap token  bootstrap-abc\n"), "\(shown)")
        let json = try ClawpairBinary.run(["--json", "setup-code", "decode"], stdin: Self.t13, nowMs: Self.now)
        #expect(!json.stdout.contains("bootstrap-abc"))
        #expect(json.stdout.contains("\"secrets\": null"))
    }

    @Test func verboseShowsPayloadWithSecretsRedacted() throws {
        let result = try ClawpairBinary.run(["setup-code", "decode", "-v"], stdin: Self.t13, nowMs: Self.now)
        #expect(result.stdout.hasSuffix(#"Payload          {"url":"ws://192.168.1.20:18789","bootstrapToken":"<redacted, 13 chars>","expiresAtMs":1737264600000}"# + "\n"),
                "\(result)")
    }

    @Test func decodeJSONSchema() throws {
        let result = try ClawpairBinary.run(["setup-code", "decode", "--json", "-"], stdin: Self.t13, nowMs: Self.now)
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["ok", "form", "generation", "endpoints", "dropped", "tlsFingerprint", "expiresAtMs",
                                     "expiresAt", "expired", "credentials", "access", "strict", "notes", "secrets", "error"])
        #expect(object["ok"] as? Bool == true)
        #expect(object["generation"] as? String == "G4")
        #expect(object["expiresAtMs"] as? Int64 == 1_737_264_600_000)
        #expect(object["access"] as? String == "limited-downgraded")
        let endpoints = try #require(object["endpoints"] as? [[String: Any]])
        #expect(endpoints.count == 1)
        #expect(endpoints[0]["url"] as? String == "ws://192.168.1.20:18789")
        #expect(endpoints[0]["port"] as? Int == 18789)
    }

    @Test func expiredCodeIsExit4WithMessage() throws {
        let later = Self.now + 600_000
        let result = try ClawpairBinary.run(["setup-code", "decode"], stdin: Self.t13, nowMs: later)
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.contains("Expires          expired now (2025-01-19T05:30:00.000Z)"), "\(result)")
        #expect(result.stderr.hasPrefix("error: pairing setup code has expired"), "\(result)")
        let json = try ClawpairBinary.run(["setup-code", "decode", "--json"], stdin: Self.t13, nowMs: later)
        #expect(json.status == 4)
        #expect(json.stdout.contains("\"expired\": true"))
        #expect(json.stdout.contains("\"code\": \"expired\""))
    }

    @Test func junkNeverCrashes() throws {
        var generator = SystemRandomNumberGenerator()
        let inputs = ["", " ", "oc-pair://", "{", "[]", "null", "\u{0}", String(repeating: "A", count: 70_000),
                      "eyJ1cmwiOjF9", "openclaw://gateway?host=", "ws://", "wss://[::1", "\u{1B}[2J\u{202E}"]
            + (0..<20).map { _ in String(decoding: (0..<Int.random(in: 1...300, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator) }, as: UTF8.self) }
        for input in inputs {
            let result = try ClawpairBinary.run(["setup-code", "decode"], stdin: input, nowMs: Self.now)
            #expect([1, 4].contains(result.status), "input \(input.debugDescription): \(result)")
            #expect(result.stderr.hasPrefix("error: "), "input \(input.debugDescription): \(result)")
            #expect(!result.stderr.contains("\u{1B}"), "escape sequences must not reach the terminal")
        }
    }

    @Test func hostileRoutesAreSanitized() throws {
        let input = #"{"url":"wss://ok.example.com","urls":["wss://ok.example.com","ws://evil.example\u001b[2J"],"bootstrapToken":"t"}"#
        let result = try ClawpairBinary.run(["setup-code", "decode"], stdin: input, nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(result.stdout.contains("\\x1b[2J"), "\(result)")
    }

    @Test func codeOnTheCommandLineWarns() throws {
        let result = try ClawpairBinary.run(["setup-code", "decode", Self.t13], nowMs: Self.now)
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("warning: this setup code was given on the command line"), "\(result)")
    }

    @Test func encodeRoundTripsThroughDecode() throws {
        let result = try ClawpairBinary.run(
            ["setup-code", "encode", "--url", "wss://Gateway.Example.com:443/", "--url", "ws://192.168.1.20:18789",
             "--bootstrap-token", "-", "--expires-at-ms", "1737264600000", "--tls-fingerprint", "SHA256:" + Self.pin.uppercased()],
            stdin: "bootstrap-abc\n", nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "no warning for a token from stdin: \(result)")
        let code = result.stdout.trimmingCharacters(in: .newlines)
        let payload = try #require(Data(base64Encoded: code.replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/").padding(toLength: (code.count + 3) / 4 * 4, withPad: "=", startingAt: 0)))
        #expect(String(decoding: payload, as: UTF8.self) == #"{"url":"wss://gateway.example.com","urls":["wss://gateway.example.com","ws://192.168.1.20:18789"],"bootstrapToken":"bootstrap-abc","expiresAtMs":1737264600000,"tlsFingerprint":"\#(Self.pin)"}"#)
        let decoded = try ClawpairBinary.run(["setup-code", "decode", "--json"], stdin: code, nowMs: Self.now)
        #expect(decoded.stdout.contains("\"accepted\": true"), "\(decoded)")
    }

    @Test func encodeMatchesVectorT13() throws {
        let result = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://192.168.1.20:18789", "--expires-at-ms",
                                             "1737264600000"], environment: ["CLAWPAIR_BOOTSTRAP_TOKEN": "bootstrap-abc"],
                                            nowMs: Self.now)
        #expect(result.stdout == Self.t13 + "\n", "\(result)")
        let prefixed = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://192.168.1.20:18789", "--prefix",
                                               "--expires-at-ms", "1737264600000"],
                                              environment: ["CLAWPAIR_BOOTSTRAP_TOKEN": "bootstrap-abc"], nowMs: Self.now)
        #expect(prefixed.stdout == "oc-pair://" + Self.t13 + "\n")
    }

    @Test func encodeTokenSources() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-token-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try "bootstrap-abc\n".write(to: file, atomically: true, encoding: .utf8)
        let args = ["setup-code", "encode", "--url", "ws://192.168.1.20:18789", "--expires-at-ms", "1737264600000"]
        let fromFile = try ClawpairBinary.run(args + ["--bootstrap-token-file", file.path], nowMs: Self.now)
        #expect(fromFile.stdout == Self.t13 + "\n", "\(fromFile)")
        let literal = try ClawpairBinary.run(args + ["--bootstrap-token", "bootstrap-abc"], nowMs: Self.now)
        #expect(literal.stdout == Self.t13 + "\n")
        #expect(literal.stderr.hasPrefix("warning: a bootstrap token on the command line is visible to other users"), "\(literal)")
        let none = try ClawpairBinary.run(args, nowMs: Self.now)
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("error: no bootstrap token given\n"), "\(none)")
        let missing = try ClawpairBinary.run(args + ["--bootstrap-token-file", "/nonexistent/token"], nowMs: Self.now)
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: /nonexistent/token: No such file or directory\n"), "\(missing)")
    }

    @Test func encodeRefusesInsecureRoutes() throws {
        let env = ["CLAWPAIR_BOOTSTRAP_TOKEN": "tok"]
        let publicWS = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://gateway.tailnet.ts.net:18789"],
                                              environment: env, nowMs: Self.now)
        #expect(publicWS.status == 4, "\(publicWS)")
        #expect(publicWS.stderr.contains("wss://"), "the message says how to get wss://")
        #expect(publicWS.stdout.isEmpty)
        let port80 = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://192.168.1.20:80"], environment: env, nowMs: Self.now)
        #expect(port80.status == 2, "\(port80)")
        #expect(port80.stderr.hasPrefix("error: --url: plaintext URL ws://192.168.1.20:80 uses port 80"), "\(port80)")
        let pinOnWS = try ClawpairBinary.run(["setup-code", "encode", "--url", "ws://192.168.1.20", "--tls-fingerprint", Self.pin],
                                             environment: env, nowMs: Self.now)
        #expect(pinOnWS.status == 2, "\(pinOnWS)")
        #expect(pinOnWS.stderr.hasPrefix("error: --tls-fingerprint: "), "\(pinOnWS)")
        #expect(!pinOnWS.stderr.contains("damaged"), "\(pinOnWS)")
        let nine = try ClawpairBinary.run(["setup-code", "encode"] + (0..<9).flatMap { ["--url", "wss://gw-\($0).example.com"] },
                                          environment: env, nowMs: Self.now)
        #expect(nine.status == 2, "\(nine)")
        let noURL = try ClawpairBinary.run(["setup-code", "encode"], environment: env, nowMs: Self.now)
        #expect(noURL.status == 2)
        let past = try ClawpairBinary.run(["setup-code", "encode", "--url", "wss://a.example", "--expires-at-ms", "5"],
                                          environment: env, nowMs: Self.now)
        #expect(past.status == 2, "\(past)")
    }

    @Test func encodeJSON() throws {
        let result = try ClawpairBinary.run(["--json", "setup-code", "encode", "--url", "ws://192.168.1.20:18789",
                                             "--expires-in", "10m"], environment: ["CLAWPAIR_BOOTSTRAP_TOKEN": "bootstrap-abc"],
                                            nowMs: Self.now)
        #expect(result.stdout == """
            {
              "ok": true,
              "setupCode": "\(Self.t13)",
              "gatewayUrl": "ws://192.168.1.20:18789",
              "expiresAtMs": 1737264600000,
              "expiresAt": "2025-01-19T05:30:00.000Z"
            }

            """, "\(result)")
    }

    /// The duration rule (clawpair(1) DURATIONS): units everywhere; --expires-in's old bare seconds still work, and warn.
    @Test func expiresInUnitsAndBareSeconds() throws {
        func expiry(_ lifetime: String) throws -> (Int64?, String) {
            let result = try ClawpairBinary.run(["--json", "setup-code", "encode", "--url", "wss://a.example", "--expires-in", lifetime],
                                                environment: ["CLAWPAIR_BOOTSTRAP_TOKEN": "bootstrap-abc"], nowMs: Self.now)
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return ((object?["expiresAtMs"] as? NSNumber)?.int64Value, result.stderr)
        }
        #expect(try expiry("90s") == (Self.now + 90_000, ""))
        #expect(try expiry("1500ms") == (Self.now + 1_500, ""))
        #expect(try expiry("5m") == (Self.now + 300_000, ""))
        #expect(try expiry("90") == (Self.now + 90_000, "warning: --expires-in 90 is read as 90 seconds, as before; a bare number "
                                     + "means milliseconds on every other option, so write the unit: --expires-in 90s\n"))
    }

    /// One relative wording on stdout and stderr, also for a code that expired decades ago (#15 §3).
    @Test func longExpiredReadsInYears() throws {
        let result = try ClawpairBinary.run(["setup-code", "decode", "-"],
                                            stdin: #"{"url":"wss://a.example","bootstrapToken":"x","expiresAtMs":5}"#, nowMs: Self.now)
        #expect(result.status == 4, "\(result)")
        #expect(result.stdout.contains("Expires          expired 55 years ago (1970-01-01T00:00:00.005Z)\n"), "\(result)")
        #expect(result.stderr.hasPrefix("error: pairing setup code has expired (55 years ago, at 1970-01-01T00:00:00.005Z)\n"), "\(result)")
    }

    static let joinCode = "AbCdEfGhIjKlMnOpQrSt_-"

    @Test func decodeExplainsAJoinURL() throws {
        let url = "https://gw.example.com/openclaw/j/\(Self.joinCode)"
        let result = try ClawpairBinary.run(["setup-code", "decode"], stdin: url + "\n", nowMs: Self.now)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout == """
            Setup input      join URL (single use), not a setup code
            Gateway          https://gw.example.com/openclaw  (TLS)
            Join URL         https://gw.example.com/openclaw/j/<shortcode> (--show-secrets prints it)
            What it is       a link minted by 'openclaw devices join-code': the gateway hands its node setup code to the \
            first request only; a used or expired link answers like an unknown one (about 10 minutes)
            Redeem           clawpair pair <join URL>
            Note             decode does not fetch the link: fetching it would use it up

            """, "\(result)")
        let shown = try ClawpairBinary.run(["setup-code", "decode", "--show-secrets"], stdin: url, nowMs: Self.now)
        #expect(shown.stdout.contains("Join URL         \(url)\n"), "\(shown)")

        let json = try ClawpairBinary.run(["--json", "setup-code", "decode"], stdin: url, nowMs: Self.now)
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout == """
            {
              "ok": true,
              "form": "join-url",
              "joinUrl": {
                "url": "https://gw.example.com/openclaw/j/<shortcode>",
                "origin": "https://gw.example.com",
                "host": "gw.example.com",
                "port": 443,
                "tls": true,
                "contextPath": "/openclaw",
                "singleUse": true
              },
              "secrets": null,
              "error": null
            }

            """, "\(json)")

        let argv = try ClawpairBinary.run(["setup-code", "decode", "http://127.0.0.1:18789/j/\(Self.joinCode)"], nowMs: Self.now)
        #expect(argv.status == 0, "\(argv)")
        #expect(argv.stdout.contains("Gateway          http://127.0.0.1:18789  (plaintext, loopback only)\n"), "\(argv)")
        #expect(argv.stderr.contains("this join URL was given on the command line"), "\(argv)")
    }

    @Test func decodeRefusesUnusableJoinURLs() throws {
        let plain = try ClawpairBinary.run(["--json", "setup-code", "decode"], stdin: "http://gw.example.com/j/\(Self.joinCode)",
                                           nowMs: Self.now)
        #expect(plain.status == 1, "\(plain)")
        #expect(plain.stdout.contains(#""code": "join-url-plaintext""#), "\(plain)")
        #expect(!plain.stdout.contains(Self.joinCode) && !plain.stderr.contains(Self.joinCode), "\(plain)")
        let query = try ClawpairBinary.run(["setup-code", "decode"], stdin: "https://gw.example.com/j/\(Self.joinCode)?x=1",
                                           nowMs: Self.now)
        #expect(query.status == 1, "\(query)")
        #expect(query.stderr.hasPrefix("error: join URL carries a query or fragment"), "\(query)")
    }

    @Test func decodeOfAFileNameSuggestsStandardInput() throws {
        let path = NSTemporaryDirectory() + "clawpair-code-\(UUID().uuidString.prefix(8)).txt"
        try Self.t13.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try ClawpairBinary.run(["setup-code", "decode", path], nowMs: Self.now)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("hint: \(path) is a file; to decode what it holds, run: clawpair setup-code decode - < \(path)"),
                "\(result)")
        let json = try ClawpairBinary.run(["--json", "setup-code", "decode", path], nowMs: Self.now)
        #expect(json.stdout.contains(#""code": "not-a-payload""#) && json.stdout.contains("decode - < "), "\(json)")
        let missing = try ClawpairBinary.run(["setup-code", "decode", "/nonexistent/code.txt"], nowMs: Self.now)
        #expect(!missing.stderr.contains("is a file"), "\(missing)")
    }

    @Test func encodeFlagErrorsAreUsageErrors() throws {
        let env = ["CLAWPAIR_BOOTSTRAP_TOKEN": "tok"]
        let pin = try ClawpairBinary.run(["setup-code", "encode", "--url", "wss://gw.example.com", "--tls-fingerprint", "nope"],
                                         environment: env, nowMs: Self.now)
        #expect(pin.status == 2, "\(pin)")
        #expect(pin.stderr.hasPrefix("error: --tls-fingerprint: setup payload 'tlsFingerprint' is not a SHA-256 fingerprint: nope\n"),
                "\(pin)")
        #expect(!pin.stderr.contains("damaged"), "\(pin)")
        let query = try ClawpairBinary.run(["setup-code", "encode", "--url", "wss://gw.example.com/?a=b"], environment: env,
                                           nowMs: Self.now)
        #expect(query.status == 2, "\(query)")
        // The query is not echoed: a code's URL may carry a secret there (#25.10).
        #expect(query.stderr.hasPrefix("error: --url: gateway URL wss://gw.example.com/?<redacted> carries a query or fragment"), "\(query)")
        let zero = try ClawpairBinary.run(["setup-code", "encode", "--url", "wss://gw.example.com:0"], environment: env, nowMs: Self.now)
        #expect(zero.status == 2, "\(zero)")
        let json = try ClawpairBinary.run(["--json", "setup-code", "encode", "--url", "ws://127.0.0.1"], environment: env,
                                          nowMs: Self.now)
        #expect(json.stdout.contains(#""gatewayUrl": "ws://127.0.0.1:18789""#), "encode always writes the port: \(json)")
    }

    @Test func encodeRefusesATokenFileThatIsNotAToken() throws {
        let directory = NSTemporaryDirectory() + "clawpair-token-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = directory + "/shadow"
        try "root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n".write(toFile: lines, atomically: true, encoding: .utf8)
        chmod(lines, 0o600)
        let big = directory + "/big"
        try String(repeating: "x", count: 4096).write(toFile: big, atomically: true, encoding: .utf8)
        chmod(big, 0o600)
        for (file, fragment) in [(lines, "must be one line, not 2 lines"), (big, "must be at most 512 bytes, not 4096")] {
            let result = try ClawpairBinary.run(["setup-code", "encode", "--url", "wss://gw.example.com", "--bootstrap-token-file", file],
                                                nowMs: Self.now)
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains(fragment), "\(result)")
            #expect(!result.stderr.contains("root:") && result.stdout.isEmpty, "the file's content is not echoed: \(result)")
        }
    }
}
