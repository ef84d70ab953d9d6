import ClawpairAdvertise
import ClawpairConfig
import ClawpairCore
import ClawpairTestSupport
import Foundation
import Synchronization
import Testing

/// TXT `tailnetDns` in `advertise --from-openclaw-config`, as upstream's gateway fills it
/// (src/gateway/server-discovery.ts resolveTailnetDnsHint, src/infra/tailscale.ts
/// getTailnetHostname): `OPENCLAW_TAILNET_DNS`, else `tailscale status --json` when the config turns
/// Tailscale on; only in full mode.
@Suite struct TailnetDnsHintTests {
    static let status = Array(#"""
        {"BackendState": "Running", "Self": {"DNSName": "gw.tail1234.ts.net.", "TailscaleIPs": ["100.101.102.103", "fd7a:115c:a1e0::1"]},
         "Peer": {"x": {"DNSName": "peer.tail1234.ts.net."}}}
        """#.utf8)

    @Test("the hint is Self.DNSName without its trailing dot, else the first Self.TailscaleIPs entry")
    func nameFromStatus() {
        #expect(TailnetDnsHint.name(statusJSON: Self.status) == "gw.tail1234.ts.net")
        #expect(TailnetDnsHint.name(statusJSON: Array(#"{"Self": {"DNSName": "", "TailscaleIPs": ["100.64.0.7"]}}"#.utf8)) == "100.64.0.7")
        // A warning line before the document is skipped, as upstream's parsePossiblyNoisyJsonObject does.
        #expect(TailnetDnsHint.name(statusJSON: Array("Warning: client version mismatch\n".utf8) + Self.status) == "gw.tail1234.ts.net")
        for bad in ["", "not json", #"{"Self": {}}"#, #"{"Self": {"TailscaleIPs": []}}"#, #"{"Self": {"DNSName": "gw\u001b[31m.ts.net."}}"#,
                    #"{"Self": {"DNSName": "gw ts net"}}"#] {
            #expect(TailnetDnsHint.name(statusJSON: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    func settings(_ json5: String, _ environment: [String: String] = [:], status: [UInt8]?) throws -> (AdvertiseSettings, Int) {
        let asked = Mutex(0)
        let value = try AdvertiseSettings(config: JSON5.parse(json5), path: "/etc/openclaw.json", environment: environment,
                                          tailnetStatus: { asked.withLock { $0 += 1 }; return status })
        return (value, asked.withLock { $0 })
    }

    @Test("full mode with gateway.tailscale.mode serve or funnel takes tailnetDns from tailscale status; the environment wins")
    func fromTailscaleWhenTheConfigTurnsItOn() throws {
        for mode in ["serve", "funnel"] {
            let (value, asked) = try settings("{ gateway: { tailscale: { mode: '\(mode)' } }, discovery: { mdns: { mode: 'full' } } }",
                                              status: Self.status)
            #expect(value.tailnetDns == "gw.tail1234.ts.net" && asked == 1, "\(mode)")
            #expect(value.beacon(osHostname: "lab", fingerprint: nil).txt.contains { $0.key == "tailnetDns" && $0.value == Array("gw.tail1234.ts.net".utf8) })
        }
        let (named, asked) = try settings("{ gateway: { tailscale: { mode: 'serve' } }, discovery: { mdns: { mode: 'full' } } }",
                                          ["OPENCLAW_TAILNET_DNS": " other.ts.net. "], status: Self.status)
        #expect(named.tailnetDns == "other.ts.net" && asked == 0)
        // The command failed or said nothing usable: no tailnetDns, as upstream (never invented).
        let (failed, _) = try settings("{ gateway: { tailscale: { mode: 'serve' } }, discovery: { mdns: { mode: 'full' } } }", status: nil)
        #expect(failed.tailnetDns == nil)
    }

    @Test("Tailscale off (the default) or minimal mode: tailscale status is not asked")
    func notAskedOtherwise() throws {
        for config in ["{ discovery: { mdns: { mode: 'full' } } }",
                       "{ gateway: { tailscale: { mode: 'off' } }, discovery: { mdns: { mode: 'full' } } }",
                       "{ gateway: { tailscale: { mode: 'serve' } } }"] {
            let (value, asked) = try settings(config, status: Self.status)
            #expect(value.tailnetDns == nil && asked == 0, "\(config)")
        }
        #expect(throws: AdvertiseSettingsError.invalid(path: "/etc/openclaw.json", key: "gateway.tailscale.mode",
                                                        reason: "is not \"off\", \"serve\" or \"funnel\"")) {
            _ = try settings("{ gateway: { tailscale: { mode: 'on' } } }", status: nil)
        }
    }

    @Test("runStatus runs the program's status --json: its output when it exits 0, nil when it fails or outlives the deadline")
    func runsTheCommand() throws {
        let directory = NSTemporaryDirectory() + "clawpair-tailscale-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func script(_ name: String, _ body: String) throws -> String {
            let path = "\(directory)/\(name)"
            try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            return path
        }
        let clock = SystemMonotonicClock()
        let answering = try script("answering", #"[ "$1 $2" = "status --json" ] && printf '{"Self": {"DNSName": "gw.ts.net."}}'"#)
        let output = TailnetDnsHint.runStatus(program: answering, deadline: clock.now + .seconds(30), clock: clock)
        #expect(output.flatMap { TailnetDnsHint.name(statusJSON: $0) } == "gw.ts.net")
        let failing = try script("failing", "echo '{\"Self\": {\"DNSName\": \"x.ts.net\"}}'; exit 1")
        #expect(TailnetDnsHint.runStatus(program: failing, deadline: clock.now + .seconds(30), clock: clock) == nil)
        #expect(TailnetDnsHint.runStatus(program: "\(directory)/missing", deadline: clock.now + .seconds(30), clock: clock) == nil)
        // A hung tailscale is killed at the deadline (a deadline already passed: at once), with its group.
        let marker = "\(directory)/child-ran"
        let hanging = try script("hanging", "sleep 30 & wait; touch \(marker)")
        #expect(TailnetDnsHint.runStatus(program: hanging, deadline: clock.now, clock: clock) == nil)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
