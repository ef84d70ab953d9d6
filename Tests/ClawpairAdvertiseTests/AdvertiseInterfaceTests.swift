import ClawpairAdvertise
import ClawpairCore
import Testing

/// Interface names for `--interface`, and the OPENCLAW_MDNS_HOSTNAME label.
@Suite struct AdvertiseInterfaceTests {
    @Test("a present interface is found with its index; duplicates count once")
    func present() throws {
        let found = try AdvertiseInterface.named(["lo", "lo"])
        #expect(found.count == 1)
        #expect(found.first?.name == "lo")
        #expect((found.first?.index ?? 0) > 0)
    }

    @Test("an unknown or impossible name is refused, named and sanitized", arguments: [
        "clawpair-nope0", "", "eth0/../x", "a b", "much-too-long-name", "\u{1B}[2Jeth0",
    ])
    func unknown(_ name: String) {
        let error = #expect(throws: AdvertiseInterfaceError.self) { try AdvertiseInterface.named([name]) }
        #expect(error?.code == "unknown-interface")
        #expect(error?.message.unicodeScalars.contains { $0.value == 0x1B } == false)
    }

    @Test("more than the bound of interfaces is refused")
    func tooMany() {
        let names = (0...AdvertiseInterface.maxCount).map { "if\($0)" }
        #expect(throws: AdvertiseInterfaceError.tooMany(AdvertiseInterface.maxCount + 1)) { try AdvertiseInterface.named(names) }
    }

    @Test("OPENCLAW_MDNS_HOSTNAME is read as upstream reads it", arguments: [
        ("gw-1", "gw-1"), ("  Gateway.local ", "Gateway"), ("gw.example.com", "gw"), ("GW1.LOCAL", "GW1"),
        (String(repeating: "a", count: 63), String(repeating: "a", count: 63)),
    ])
    func hostLabel(_ raw: String, _ label: String) throws {
        #expect(try AdvertiseHostName.label(raw) == label)
    }

    @Test("an empty value is no value")
    func empty() throws {
        #expect(try AdvertiseHostName.label("  ") == nil)
    }

    @Test("a value that is not a host label is refused", arguments: [
        "bad_name", "-gw", "gw-", "my gateway", String(repeating: "a", count: 64), "gw\u{1B}[2J", ".local", "ünï",
    ])
    func invalidHostLabel(_ raw: String) {
        let error = #expect(throws: AdvertiseHostNameError.self) { try AdvertiseHostName.label(raw) }
        #expect(error?.code == "invalid-host-name")
        #expect(error?.message.unicodeScalars.contains { $0.value == 0x1B } == false)
    }

    @Test("the label becomes the plan's SRV host and TXT lanHost; an invalid one in the environment is refused")
    func plan() throws {
        let settings = AdvertiseSettings(port: 18789)
        let health = GatewayHealth(answering: true)
        let plan = try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(), osHostname: "box",
                                          environment: ["OPENCLAW_MDNS_HOSTNAME": "gw-1.local"])
        #expect(plan.hostLabel == "gw-1")
        #expect(plan.txt.contains(TXTPair("lanHost", "gw-1.local")))
        let plain = try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(), osHostname: "box")
        #expect(plain.hostLabel == nil)
        #expect(plain.txt.contains(TXTPair("lanHost", "box.local")))
        #expect(throws: ClawpairErrorBox.self) {
            try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(), osHostname: "box",
                                   environment: ["OPENCLAW_MDNS_HOSTNAME": "no_good"])
        }
    }
}
