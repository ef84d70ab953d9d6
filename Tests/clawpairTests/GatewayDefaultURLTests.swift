import ClawpairTestSupport
import Foundation
import Testing

/// With no gateway named, operator commands dial the local gateway on the port OpenClaw's own
/// CLI would: gateway.port in openclaw.json (OPENCLAW_GATEWAY_PORT first).
@Suite struct GatewayDefaultURLTests {
    @Test("the default URL follows gateway.port in openclaw.json, and OPENCLAW_GATEWAY_PORT before it")
    func followsConfigPort() async throws {
        let directory = NSTemporaryDirectory() + "clawpair-default-url-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let token = "test-shared-token-0123456789"
        try await withTestGateway(TestGatewayOptions(token: token)) { gateway in
            let config = directory + "/openclaw.json"
            try "{ gateway: { port: \(gateway.port), auth: { token: '\(token)' } } }\n".write(toFile: config, atomically: true, encoding: .utf8)
            let environment = ["CLAWPAIR_HOME": directory + "/home", "HOME": directory, "OPENCLAW_CONFIG_PATH": config]
            let listed = try ClawpairBinary.run(["devices", "list", "-v", "--json"], environment: environment)
            #expect(listed.status == 0, "\(listed)")
            #expect(listed.stderr.contains("gateway: ws://127.0.0.1:\(gateway.port)\n"), "\(listed)")
            // The variable wins over the file: nothing listens on port 1.
            let overridden = try ClawpairBinary.run(["devices", "list", "-v"],
                                                    environment: environment.merging(["OPENCLAW_GATEWAY_PORT": "1"]) { $1 })
            #expect(overridden.status == 3, "\(overridden)")
            #expect(overridden.stderr.contains("gateway: ws://127.0.0.1:1\n"), "\(overridden)")
        }
    }
}
