import ClawpairAdvertise
import ClawpairConfig
import ClawpairCore
import ClawpairDiscovery
import Testing

/// The beacon `advertise --from-openclaw-config` builds from openclaw.json and the environment.
@Suite struct AdvertiseSettingsTests {
    func settings(_ json5: String, _ environment: [String: String] = [:]) throws -> AdvertiseSettings {
        try AdvertiseSettings(config: JSON5.parse(json5), path: "/etc/openclaw.json", environment: environment)
    }

    @Test func defaultsAreTheGatewaysDefaults() throws {
        let value = try settings("{}")
        #expect(value == AdvertiseSettings(port: 18789, tls: false, probeHost: "127.0.0.1", directlyReachable: false, mode: .minimal))
    }

    @Test func portTLSBindModeAndInstanceName() throws {
        let value = try settings("""
            { gateway: { port: 19001, tls: { enabled: true }, bind: 'lan' },
              discovery: { mdns: { mode: 'full' } },
              plugins: { entries: { bonjour: { config: { instanceName: ' Lab Box ' } } } } }
            """, ["OPENCLAW_SSH_PORT": "2222", "OPENCLAW_TAILNET_DNS": "lab.tail1234.ts.net.", "PATH": ""])
        #expect(value.port == 19001)
        #expect(value.tls)
        #expect(value.directlyReachable)
        #expect(value.mode == .full)
        #expect(value.instanceName == "Lab Box")
        #expect(value.sshPort == 2222)
        #expect(value.tailnetDns == "lab.tail1234.ts.net")
        #expect(value.cliPath == nil)
    }

    @Test func environmentPortWinsOverTheConfig() throws {
        #expect(try settings("{ gateway: { port: 19001 } }", ["OPENCLAW_GATEWAY_PORT": "19002"]).port == 19002)
        // As resolveGatewayPort: a value that does not parse to a positive number falls back to the config.
        #expect(try settings("{ gateway: { port: 19001 } }", ["OPENCLAW_GATEWAY_PORT": "x"]).port == 19001)
    }

    @Test func customBindProbesTheBoundHost() throws {
        let custom = try settings("{ gateway: { bind: 'custom', customBindHost: '192.0.2.7' } }")
        #expect(custom.probeHost == "192.0.2.7")
        #expect(custom.directlyReachable)
        let loopback = try settings("{ gateway: { bind: 'custom', customBindHost: '127.0.0.1' } }")
        #expect(!loopback.directlyReachable)
    }

    @Test func minimalModeSendsNoFullModeKeys() throws {
        let value = try settings("{}", ["OPENCLAW_SSH_PORT": "2222", "OPENCLAW_TAILNET_DNS": "lab.ts.net"])
        #expect(value.sshPort == nil && value.tailnetDns == nil && value.cliPath == nil)
    }

    @Test func refusals() {
        #expect(throws: AdvertiseSettingsError.mdnsOff(path: "/etc/openclaw.json")) { try settings("{ discovery: { mdns: { mode: 'off' } } }") }
        #expect(throws: AdvertiseSettingsError.invalid(path: "/etc/openclaw.json", key: "gateway.port", reason: "is not a port (1-65535)")) {
            try settings("{ gateway: { port: 70000 } }")
        }
        #expect(throws: AdvertiseSettingsError.invalid(path: "/etc/openclaw.json", key: "discovery.mdns.mode",
                                                       reason: "is not \"off\", \"minimal\" or \"full\"")) {
            try settings("{ discovery: { mdns: { mode: 'loud' } } }")
        }
    }

    @Test func aMissingFileIsNamed() {
        let error = #expect(throws: ClawpairErrorBox.self) {
            try AdvertiseSettings.load(path: "/nonexistent/openclaw.json", environment: [:])
        }
        #expect(error?.message == "no OpenClaw config at /nonexistent/openclaw.json")
    }

    @Test func theBeaconCarriesTheGatewaysTXTKeys() throws {
        let value = try settings("{ gateway: { tls: { enabled: true }, bind: 'lan' } }")
        let fingerprint = String(repeating: "ab", count: 32)
        let plan = try ServicePlan.beacon(value, health: GatewayHealth(answering: true, fingerprint: fingerprint),
                                          overrides: BeaconOverrides(), osHostname: "labbox.local")
        #expect(plan.name == "labbox (OpenClaw)")
        #expect(plan.port == 18789)
        #expect(plan.txt == [TXTPair("role", "gateway"), TXTPair("transport", "gateway"), TXTPair("displayName", "labbox"),
                             TXTPair("lanHost", "labbox.local"), TXTPair("gatewayPort", "18789"), TXTPair("gatewayTls", "1"),
                             TXTPair("gatewayTlsSha256", fingerprint), TXTPair("gatewayDirectReachable", "1")])
        #expect(!plan.txt.contains { $0.key == "canvasPort" })
        // A fingerprint given by the user wins over the observed one; overrides replace keys in place.
        let pinned = try ServicePlan.beacon(value, health: GatewayHealth(answering: true, fingerprint: fingerprint),
                                            overrides: BeaconOverrides(instanceName: "Lab", displayName: "Lab Box",
                                                                       fingerprint: String(repeating: "cd", count: 32),
                                                                       txt: [TXTPair("ROLE", "gateway")]),
                                            osHostname: "labbox")
        #expect(pinned.name == "Lab (OpenClaw)")
        #expect(pinned.txt.first == TXTPair("ROLE", "gateway"))
        #expect(pinned.txt.contains(TXTPair("displayName", "Lab Box")))
        #expect(pinned.txt.contains(TXTPair("gatewayTlsSha256", String(repeating: "cd", count: 32))))
    }
}
