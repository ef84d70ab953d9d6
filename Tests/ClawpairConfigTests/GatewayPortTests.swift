import ClawpairConfig
import ClawpairCore
import Foundation
import Testing

/// The local gateway's port, in upstream's order (resolveGatewayPort, src/config/paths.ts).
@Suite struct GatewayPortTests {
    @Test("gateway.port: a whole port number, else nil")
    func fromDocument() throws {
        #expect(OpenClawConfig.gatewayPort(in: try JSON5.parse(Array("{gateway: {port: 19001}}".utf8))) == 19001)
        for text in ["{gateway: {port: 0}}", "{gateway: {port: 70000}}", "{gateway: {port: '19001'}}", "{gateway: {port: 1.5}}",
                     "{gateway: {}}", "{}", "{gateway: {port: -1}}"] {
            #expect(OpenClawConfig.gatewayPort(in: try JSON5.parse(Array(text.utf8))) == nil, "\(text)")
        }
    }

    @Test("OPENCLAW_GATEWAY_PORT, then the config file's gateway.port, then 18789; a bad file or value is skipped")
    func order() throws {
        let directory = NSTemporaryDirectory() + "clawpair-port-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/openclaw.json"
        try "{ gateway: { port: 19001 } }\n".write(toFile: config, atomically: true, encoding: .utf8)
        let withConfig = ["OPENCLAW_CONFIG_PATH": config]
        #expect(OpenClawConfig.gatewayPort(environment: withConfig) == 19001)
        #expect(OpenClawConfig.gatewayPort(environment: withConfig.merging(["OPENCLAW_GATEWAY_PORT": " 20000 "]) { $1 }) == 20000)
        #expect(OpenClawConfig.gatewayPort(environment: withConfig.merging(["CLAWDBOT_GATEWAY_PORT": "20001"]) { $1 }) == 20001)
        #expect(OpenClawConfig.gatewayPort(environment: withConfig.merging(["OPENCLAW_GATEWAY_PORT": "99999"]) { $1 }) == 19001)
        #expect(OpenClawConfig.gatewayPort(environment: withConfig.merging(["OPENCLAW_GATEWAY_PORT": "x"]) { $1 }) == 19001)
        #expect(OpenClawConfig.gatewayPort(environment: ["OPENCLAW_CONFIG_PATH": directory + "/missing.json"]) == 18789)
        try "{ not json".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(OpenClawConfig.gatewayPort(environment: withConfig) == 18789)
        #expect(OpenClawConfig.gatewayPort(environment: [:]) == 18789)
    }
}
