import ClawpairTestSupport
import Foundation
import Testing

/// The executable's one mapping of library errors to exit statuses and command-line hints
/// (Sources/clawpair/Support/ErrorPresentation.swift), for the cases no other CLI test pins:
/// the libraries' own hints name no option, so each hint here is the executable's.
@Suite("error presentation: exit statuses and command-line hints")
struct ErrorPresentationCLITests {
    /// Runs clawpair with a private home (and `extra` environment), removed afterwards.
    static func run(_ arguments: [String], environment extra: [String: String] = [:],
                    home body: ((String) -> [String: String])? = nil) throws -> ClawpairBinary.Result {
        let directory = NSTemporaryDirectory() + "clawpair-errors-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ["CLAWPAIR_HOME": directory + "/home", "HOME": directory]
        environment.merge(body?(directory) ?? [:]) { _, new in new }
        environment.merge(extra) { _, new in new }
        return try ClawpairBinary.run(arguments, environment: environment)
    }

    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let dictionary = object as? [String: Any] else { throw TestError("not a JSON object: \(text)") }
        return dictionary
    }

    static let nothingListens = "ws://127.0.0.1:1"

    @Test("an unreachable gateway is exit 3 with the hint that names 'clawpair probe', also in --json")
    func unreachable() throws {
        let environment = ["OPENCLAW_GATEWAY_URL": Self.nothingListens, "OPENCLAW_GATEWAY_TOKEN": "t"]
        let hint = "is the gateway running? 'clawpair probe URL' shows which step fails"
        let human = try Self.run(["devices", "list"], environment: environment)
        #expect(human.status == 3, "\(human)")
        #expect(human.stderr.hasSuffix("hint: \(hint)\n"), "\(human)")
        let json = try Self.run(["nodes", "status", "--json"], environment: environment)
        #expect(json.status == 3, "\(json)")
        let error = try #require(try Self.json(json.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "unreachable")
        #expect(error["hint"] as? String == hint)
    }

    @Test("an empty OPENCLAW_GATEWAY_TOKEN is exit 1 before any connection, with where to look")
    func emptyCredential() throws {
        let result = try Self.run(["devices", "list"],
                                  environment: ["OPENCLAW_GATEWAY_URL": Self.nothingListens, "OPENCLAW_GATEWAY_TOKEN": ""])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasSuffix("hint: check the file or variable that should hold it\n"), "\(result)")
        #expect(!result.stderr.contains("cannot reach"), "\(result)")
    }

    @Test("nothing to draw is exit 1 with the hint that names --raw, also in --json")
    func emptyQRPayload() throws {
        let human = try Self.run(["qr", "render", "--raw", ""])
        #expect(human.status == 1, "\(human)")
        #expect(human.stderr == "error: there is nothing to encode\nhint: give a setup code (or --raw TEXT)\n", "\(human)")
        let json = try Self.run(["qr", "render", "--raw", "", "--json"])
        #expect(json.status == 1, "\(json)")
        let error = try #require(try Self.json(json.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "empty-payload")
        #expect(error["hint"] as? String == "give a setup code (or --raw TEXT)")
    }

    @Test("a clawpair home inside OpenClaw's state directory is exit 1 with the options that override it")
    func insideOpenClawState() throws {
        let result = try Self.run(["identity", "new"]) { directory in
            ["OPENCLAW_STATE_DIR": directory + "/state", "CLAWPAIR_HOME": directory + "/state/clawpair"]
        }
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("is inside OpenClaw's state directory"), "\(result)")
        #expect(result.stderr.hasSuffix("hint: name the file explicitly (--identity FILE or --output FILE) if you really mean to write there\n"),
                "\(result)")
    }

    @Test("an existing identity is exit 1 with the hint that names --force; no identity is exit 3")
    func identityStatuses() throws {
        let missing = try Self.run(["identity", "show"])
        #expect(missing.status == 3, "\(missing)")
        #expect(missing.stderr.hasSuffix("hint: create one with 'clawpair identity new', or import one with 'clawpair identity import FILE'\n"),
                "\(missing)")
        let directory = NSTemporaryDirectory() + "clawpair-errors-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["CLAWPAIR_HOME": directory, "HOME": directory]
        let first = try ClawpairBinary.run(["identity", "new"], environment: environment)
        #expect(first.status == 0, "\(first)")
        let again = try ClawpairBinary.run(["identity", "new"], environment: environment)
        #expect(again.status == 1, "\(again)")
        #expect(again.stderr.hasSuffix("hint: pass --force to replace it (the old identity is lost unless you exported it)\n"), "\(again)")
    }

    @Test("no avahi-daemon on the bus with --backend avahi is exit 1 with the hint that names --backend native")
    func noAvahiDaemon() throws {
        let result = try Self.run(["discover", "--backend", "avahi", "--timeout", "500"],
                                  environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/clawpair-test-bus"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasSuffix("error: avahi-daemon is not running (or the system D-Bus is not reachable)\n"
                                        + "hint: start it (systemctl start avahi-daemon) or use --backend native\n"), "\(result)")
    }

    @Test("a gateway URL that is not ws:// or wss:// is a usage error (exit 2) with the URL forms")
    func invalidURL() throws {
        let result = try Self.run(["devices", "list"], environment: ["OPENCLAW_GATEWAY_URL": "ftp://x", "OPENCLAW_GATEWAY_TOKEN": "t"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasSuffix("hint: use ws://HOST:PORT or wss://HOST:PORT\n"), "\(result)")
    }

    @Test("a certificate that fails its pin is exit 4 with the hint that names --tls-fingerprint")
    func pinMismatch() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        var options = TestGatewayOptions(token: "test-shared-token-0123456789")
        options.certificate = certificate
        try await withTestGateway(options) { gateway in
            let result = try Self.run(["devices", "list", "--url", gateway.url, "--tls-fingerprint", String(repeating: "ab", count: 32)],
                                      environment: ["OPENCLAW_GATEWAY_TOKEN": "test-shared-token-0123456789"])
            #expect(result.status == 4, "\(result)")
            #expect(result.stderr.hasSuffix("hint: the certificate changed: if you expected that, check it and pin the new one: "
                                            + "clawpair devices list --url \(gateway.url) --tls-fingerprint \(certificate.fingerprint)\n"),
                    "\(result)")
        }
    }

    @Test("an untrusted certificate: exit 4, the exact command with --trust and the observed fingerprint, also as the JSON hint; it works")
    func untrustedCertificate() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        var options = TestGatewayOptions(token: "test-shared-token-0123456789")
        options.certificate = certificate
        try await withTestGateway(options) { gateway in
            let environment = ["OPENCLAW_GATEWAY_TOKEN": "test-shared-token-0123456789"]
            let result = try Self.run(["devices", "list", "--url", gateway.url, "--timeout", "5s", "--json"], environment: environment)
            #expect(result.status == 4, "\(result)")
            let command = "clawpair devices list --url \(gateway.url) --timeout 5s --trust \(certificate.fingerprint) --json"
            let error = try #require(try Self.json(result.stdout)["error"] as? [String: Any], "\(result)")
            #expect(error["code"] as? String == "tls-trust")
            #expect(error["trustCommand"] as? String == command, "\(result)")
            #expect((error["hint"] as? String)?.hasSuffix("then accept it: " + command) == true, "\(result)")
            #expect(result.stderr.hasSuffix("then accept it: \(command)\n"), "\(result)")
            // The printed command is the one to run (the token comes from the environment here, so it
            // reaches a --url only through a file: run it with one).
            let tokenFile = NSTemporaryDirectory() + "clawpair-trust-token-\(UUID().uuidString.prefix(8))"
            try "test-shared-token-0123456789\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: tokenFile) }
            let again = try Self.run(Array(command.split(separator: " ").dropFirst().map(String.init)) + ["--token-file", tokenFile])
            #expect(again.status == 0, "\(again)")
            #expect(try Self.json(again.stdout)["ok"] as? Bool == true)
            let both = try Self.run(["devices", "list", "--url", gateway.url, "--trust", certificate.fingerprint,
                                     "--tls-fingerprint", String(repeating: "ab", count: 32)])
            #expect(both.status == 2, "\(both)")
        }
    }

    @Test("setup-code hints name clawpair's own command for minting a code (clawpair qr), upstream's second")
    func setupCodeHintsNameClawpair() throws {
        let garbage = try Self.run(["setup-code", "decode", "--json", "-"])
        #expect(garbage.status == 1, "\(garbage)")
        #expect(garbage.stderr.hasSuffix("hint: paste the setup code ('clawpair qr --setup-code-only' or 'openclaw qr --setup-code-only' "
                                         + "on the gateway prints one), its oc-pair:// form, the setup JSON, an openclaw://gateway?… "
                                         + "link or a ws:// / wss:// gateway URL\n"), "\(garbage)")
        let error = try #require(try Self.json(garbage.stdout)["error"] as? [String: Any], "\(garbage)")
        #expect((error["hint"] as? String)?.hasPrefix("paste the setup code ('clawpair qr --setup-code-only'") == true, "\(error)")
        let raw = try Self.run(["qr", "render", "openclaw://gateway?host=gw.example.com&port=443&tls=1"])
        #expect(raw.stderr.contains("hint: mint a setup code on the gateway with 'clawpair qr'"), "\(raw)")
    }
}
