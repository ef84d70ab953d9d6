import ClawpairWideArea
import Testing

/// discovery.md §7: when to ask MagicDNS (100.100.100.100) and how a tailnet is recognized from
/// `tailscale status --json`. Detection is injected; nothing here runs Tailscale or sends a packet.
@Suite("tailnet fallback rule")
struct TailnetFallbackTests {
    @Test("100.64.0.0/10 exactly")
    func range() {
        for inside in ["100.64.0.0", "100.64.0.1", "100.100.100.100", "100.127.255.255", "100.69.232.64"] {
            #expect(TailnetFallback.isTailnetIPv4(inside), "\(inside)")
        }
        for outside in ["100.63.255.255", "100.128.0.0", "10.64.0.1", "192.168.1.1", "fd7a:115c:a1e0::1", "", "100.64.0",
                        "100.64.0.1.5", " 100.64.0.1", "100.64.0.1:53", "tailscale"] {
            #expect(!TailnetFallback.isTailnetIPv4(outside), "\(outside)")
        }
    }

    @Test("Self.TailscaleIPs of tailscale status --json: the first 100.64/10 address, else any IPv4 it lists; peers do not count")
    func status() {
        func ip(_ json: String) -> String? { TailnetFallback.selfTailnetIPv4(statusJSON: Array(json.utf8)) }
        #expect(ip(#"{"BackendState":"Running","Self":{"TailscaleIPs":["fd7a:115c:a1e0::8801:e04c","100.69.232.64"]}}"#)
                == "100.69.232.64")
        #expect(ip(#"{"Self":{"TailscaleIPs":["100.69.232.64","100.70.0.1"]},"Peer":{}}"#) == "100.69.232.64")
        #expect(ip(#"{"Self":{"TailscaleIPs":["fd7a:115c:a1e0::1"]},"Peer":{"p":{"TailscaleIPs":["100.123.224.76"]}}}"#) == nil)
        // Headscale and custom ranges (openclaw#27398): what Tailscale reports for this machine is trusted.
        #expect(ip(#"{"Self":{"TailscaleIPs":["192.168.1.5"]}}"#) == "192.168.1.5")
        #expect(ip(#"{"Self":{"TailscaleIPs":["fd7a:115c:a1e0::9","10.77.0.5"]}}"#) == "10.77.0.5")
        #expect(ip(#"{"Self":{"TailscaleIPs":["10.77.0.5","100.70.0.1"]}}"#) == "100.70.0.1", "the CGNAT range first")
        #expect(ip(#"{"Self":{"TailscaleIPs":["10.77.0.5x","not an address"]}}"#) == nil)
        #expect(ip(#"{"BackendState":"Stopped","Self":{"TailscaleIPs":["100.69.232.64"]}}"#) == nil, "tailscale down")
        #expect(ip(#"{"BackendState":"NeedsLogin","Self":{"TailscaleIPs":["10.77.0.5"]}}"#) == nil)
        #expect(ip(#"{"Self":{"TailscaleIPs":null}}"#) == nil)
        #expect(ip(#"{"Self":{}}"#) == nil)
        #expect(ip(#"{"TailscaleIPs":["100.69.232.64"]}"#) == nil)
        #expect(ip("") == nil)
        #expect(ip("failed to connect to local tailscaled; it doesn't appear to be running") == nil)
        #expect(ip("[" + String(repeating: "[", count: 10_000)) == nil)
    }

    @Test("only when the domain found nothing, MagicDNS was not asked already, and only then is detection run")
    func rule() {
        let resolver = DNSServerAddress.parse("192.0.2.53")!
        var detections = 0
        func detect(_ answer: Bool) -> () -> Bool { { detections += 1; return answer } }

        #expect(TailnetFallback.applies(found: 0, servers: [resolver], onTailnet: detect(true)))
        #expect(detections == 1)
        #expect(!TailnetFallback.applies(found: 0, servers: [resolver], onTailnet: detect(false)))
        #expect(detections == 2)
        // Found something, or MagicDNS is already a configured server: no detection at all.
        #expect(!TailnetFallback.applies(found: 1, servers: [resolver], onTailnet: detect(true)))
        #expect(!TailnetFallback.applies(found: 0, servers: [resolver, DNSServerAddress.parse("100.100.100.100")!],
                                         onTailnet: detect(true)))
        #expect(!TailnetFallback.applies(found: 0, servers: [DNSServerAddress.parse("100.100.100.100:5353")!],
                                         onTailnet: detect(true)))
        #expect(detections == 2)
        // No configured server at all still falls back.
        #expect(TailnetFallback.applies(found: 0, servers: [], onTailnet: detect(true)))
        #expect(TailnetFallback.magicDNS.description == "100.100.100.100:53")
    }

    @Test("the fallback browser asks only 100.100.100.100:53 with the upstream budgets (1 s PTR, 0.2 s each after)")
    func browser() {
        let browser = TailnetFallback.browser(serviceType: "_openclaw-gw._tcp")
        #expect(browser.client.servers == [TailnetFallback.magicDNS])
        #expect(browser.client.options.perQuery == .seconds(1))
        #expect(browser.limits.resolveQueryBudget == .milliseconds(200))
    }
}
