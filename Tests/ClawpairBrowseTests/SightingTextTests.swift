import ClawpairBrowse
import ClawpairDiscovery
import Testing

/// The text block `clawpair discover` prints for a gateway, exactly, with each role painted.
@Suite struct SightingTextTests {
    static func sighting(txt: [String], host: String = "studio.local.", addresses: [String] = ["192.0.2.10", "fd00::10"])
        -> GatewaySighting {
        let beacon = GatewayBeacon(instanceName: "Studio\u{1B}[2J", domain: "local.", host: host, port: 18789,
                                   txt: TXTRecord(strings: txt.map { Array($0.utf8) }))
        return GatewaySighting(key: "local.|Studio", beacon: beacon, addresses: addresses,
                               origin: .init(backend: .native, domain: "local."))
    }

    @Test("every line, values sanitized, each role painted")
    func fullBlock() {
        let sighting = Self.sighting(txt: ["displayName=Studio", "gatewayTls=1", "gatewayTlsSha256=" + String(repeating: "ab", count: 32),
                                           "lanHost=studio.lan", "tailnetDns=studio.tail1234.ts.net", "sshPort=2222"])
        let text = sighting.textBlock { role, text in "<\(role)>\(text)</\(role)>" }
        #expect(text == """
            <bold>Studio</bold>
              instance   Studio\\x1b[2J
              url        wss://studio.local:18789
              tls        yes, advertises sha256 \(String(repeating: "ab", count: 32)) <dim>(unauthenticated hint)</dim>
              addresses  192.0.2.10, fd00::10
              lan host   studio.lan
              tailnet    studio.tail1234.ts.net
              ssh        ssh -p 2222 studio.local
              domain     local.
              seen via   native

            """)
    }

    @Test("plaintext to a host that needs TLS, and no usable host: warnings")
    func warnings() {
        let plaintext = Self.sighting(txt: ["displayName=Studio"], host: "gw.example.com.", addresses: [])
        #expect(plaintext.textBlock { role, text in role == .warning ? "!" + text : text }
                .contains("  url        ws://gw.example.com:18789!  (plaintext to a non-local host: needs wss://)\n"))
        let none = Self.sighting(txt: ["displayName=Studio"], host: "", addresses: [])
        #expect(none.textBlock().contains("  url        none: the beacon did not resolve to a usable host and port\n"))
    }
}
