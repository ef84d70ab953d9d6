import ClawpairCore
import ClawpairDiscovery
import Testing

/// `WideAreaZoneOptions.gateway`: the gateway's defaults for what is not given; and a written
/// zone's JSON and summary line.
@Suite struct ZoneGatewayTests {
    static let now: Int64 = 1_773_403_200_000  // 2026-03-13T12:00:00Z

    @Test func defaultsAreTheGatewaysOwn() {
        let options = WideAreaZoneOptions.gateway(domain: "openclaw.internal", tailnetIPv4: "100.64.0.1",
                                                  osHostname: "studio.local", environment: [:])
        #expect(options == WideAreaZoneOptions(domain: "openclaw.internal", displayName: "studio (OpenClaw)",
                                               tailnetIPv4: "100.64.0.1", osHostname: "studio.local"))
    }

    @Test func givenValuesWinAndAFingerprintImpliesTLS() {
        let options = WideAreaZoneOptions.gateway(
            domain: "openclaw.internal", tailnetIPv4: "100.64.0.1", tailnetIPv6: "fd7a::1", gatewayPort: 18790,
            displayName: "Box", tlsFingerprint: String(repeating: "ab", count: 32), instanceLabel: "box-gw", hostLabel: "box",
            tailnetDns: "box.tail.ts.net", osHostname: "studio", environment: [WideAreaZoneOptions.tailnetDnsVariable: "env.ts.net"])
        #expect(options.displayName == "Box" && options.gatewayPort == 18790 && options.tailnetIPv6 == "fd7a::1")
        #expect(options.gatewayTlsEnabled && options.gatewayTlsFingerprintSha256 == String(repeating: "ab", count: 32))
        #expect(options.instanceLabel == "box-gw" && options.hostLabel == "box")
        #expect(options.tailnetDns == "box.tail.ts.net", "--tailnet-dns wins over the environment")
        let plainTLS = WideAreaZoneOptions.gateway(domain: "d", tailnetIPv4: "100.64.0.1", tls: true, osHostname: "h", environment: [:])
        #expect(plainTLS.gatewayTlsEnabled && plainTLS.gatewayTlsFingerprintSha256 == nil)
    }

    @Test func tailnetDnsFromTheEnvironment() {
        let options = WideAreaZoneOptions.gateway(domain: "d", tailnetIPv4: "100.64.0.1", osHostname: "h",
                                                  environment: ["OPENCLAW_TAILNET_DNS": "studio.tail.ts.net"])
        #expect(options.tailnetDns == "studio.tail.ts.net")
    }

    @Test func fullModeFillsSSHPortAndCLIPathMinimalLeavesThemOut() {
        let environment = ["OPENCLAW_SSH_PORT": "2222", "PATH": "/nonexistent-clawpair"]
        let full = WideAreaZoneOptions.gateway(domain: "d", tailnetIPv4: "100.64.0.1", mode: .full, osHostname: "h",
                                               environment: environment)
        #expect(full.sshPort == 2222 && full.cliPath == nil, "no openclaw on PATH: no cliPath")
        let given = WideAreaZoneOptions.gateway(domain: "d", tailnetIPv4: "100.64.0.1", mode: .full, sshPort: 22,
                                                cliPath: "/opt/openclaw", osHostname: "h", environment: environment)
        #expect(given.sshPort == 22 && given.cliPath == "/opt/openclaw")
        let minimal = WideAreaZoneOptions.gateway(domain: "d", tailnetIPv4: "100.64.0.1", sshPort: 22, cliPath: "/opt/openclaw",
                                                  osHostname: "h", environment: environment)
        #expect(minimal.sshPort == nil && minimal.cliPath == nil)
    }

    @Test func jsonAndSummaryOfAnUpdate() throws {
        let options = WideAreaZoneOptions.gateway(domain: "openclaw.internal", tailnetIPv4: "100.64.0.1", displayName: "Box",
                                                  hostLabel: "box", osHostname: "box", environment: [:])
        let update = WideAreaZone.update(options, existing: nil, nowMs: Self.now)
        let json = update.json(path: "/srv/zone.db", options: options)
        #expect(json.objectValue?.map(\.0) == ["path", "domain", "serial", "changed", "contentHash", "records"])
        #expect(json["path"] == "/srv/zone.db" && json["domain"] == "openclaw.internal.")
        #expect(json["serial"]?.int64Value == 2026031301 && json["changed"] == true)
        #expect(json["contentHash"]?.stringValue == update.contentHash)
        let records = try #require(json["records"]?.arrayValue)
        #expect(records.count == WideAreaZone.recordFields(options, serial: update.serial).count)
        #expect(records.first == ["name": "@", "type": "SOA", "data": "ns1 hostmaster 2026031301 7200 3600 1209600 60"])
        #expect(update.summary(path: "/srv/zone.db") == "Wrote /srv/zone.db (serial 2026031301, content hash \(update.contentHash))")

        let same = WideAreaZone.update(options, existing: update.text, nowMs: Self.now + 86_400_000)
        #expect(!same.changed)
        #expect(same.summary(path: "z.db") == "z.db unchanged (serial 2026031301, content hash \(update.contentHash))")
        // A file with the same content hash but no SOA line to read the serial from.
        let header = try #require(update.text.split(separator: "\n").first { $0.hasPrefix(WideAreaZone.hashPrefix) })
        let unreadable = WideAreaZone.update(options, existing: header + "\n", nowMs: Self.now)
        #expect(unreadable.serial == nil && !unreadable.changed)
        #expect(unreadable.summary(path: "z.db") == "z.db unchanged (serial unreadable, content hash \(update.contentHash))")
        #expect(unreadable.json(path: "z.db", options: options)["serial"]?.isNull == true)
    }
}
