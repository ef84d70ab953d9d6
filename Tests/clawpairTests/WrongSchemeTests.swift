import ClawpairTestSupport
import Foundation
import Testing

/// ws:// to a TLS port and wss:// to a plaintext one are diagnosed, with the URL that works.
@Suite struct WrongSchemeTests {
    static let token = "test-shared-token-0123456789"

    static func run(_ arguments: [String]) throws -> ClawpairBinary.Result {
        let directory = NSTemporaryDirectory() + "clawpair-scheme-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try (token + "\n").write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        return try ClawpairBinary.run(arguments + ["--token-file", directory + "/token", "--timeout", "3s"],
                                      environment: ["CLAWPAIR_HOME": directory + "/home", "HOME": directory])
    }

    @Test("ws:// to a TLS gateway: wrong-scheme with the wss:// command; wss:// to a plaintext one: the ws:// URL")
    func diagnosed() async throws {
        let certificate = try await TestCertificate.make()
        defer { certificate.remove() }
        var options = TestGatewayOptions(token: Self.token)
        options.certificate = certificate
        try await withTestGateway(options) { gateway in
            let plain = gateway.url.replacingOccurrences(of: "wss://", with: "ws://")
            let result = try Self.run(["devices", "list", "--json", "--url", plain])
            #expect(result.status == 1, "\(result)")
            let error = try #require((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["error"]
                                        as? [String: Any], "\(result)")
            #expect(error["code"] as? String == "wrong-scheme", "\(result)")
            #expect(error["url"] as? String == gateway.url, "\(result)")
            #expect((error["message"] as? String)?.hasSuffix(" (this port speaks TLS)") == true, "\(result)")
            #expect(result.stderr.contains("hint: use \(gateway.url): clawpair devices list --url \(gateway.url) --token-file "), "\(result)")
            #expect(result.stderr.contains(" --timeout 3s --json\n"), "\(result)")
        }
        try await withTestGateway(TestGatewayOptions(token: Self.token)) { gateway in
            let tls = gateway.url.replacingOccurrences(of: "ws://", with: "wss://")
            let result = try Self.run(["devices", "list", "--url", tls])
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.contains("(this port speaks plaintext WebSocket, not TLS)\n"), "\(result)")
            #expect(result.stderr.contains("hint: use \(gateway.url): clawpair devices list --url \(gateway.url) --token-file "), "\(result)")
        }
        // Nothing listening: no diagnosis, the ordinary unreachable error.
        let nothing = try Self.run(["devices", "list", "--url", "wss://127.0.0.1:1"])
        #expect(nothing.status == 3 && !nothing.stderr.contains("speaks"), "\(nothing)")
    }
}
