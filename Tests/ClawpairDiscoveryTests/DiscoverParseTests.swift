import ClawpairCore
import Foundation
import ClawpairDNS
@testable import ClawpairDiscovery
import Testing

@Suite struct DiscoverParseTests {
    /// Checks each expected member against the beacon; a JSON null means "absent".
    func check(_ beacon: GatewayBeacon, _ expect: [String: AnyJSON], _ id: String) {
        let json = beacon.json
        for (key, value) in expect {
            switch key {
            case "count", "domains", "everyCommandTimeoutMs", "first": continue
            case "endpoint":
                #expect(value.isNull == (beacon.endpoint == nil), "\(id): endpoint")
            case "scheme":
                #expect(beacon.endpoint?.scheme == value.string, "\(id): scheme")
            default:
                guard let actual = json[key] else {
                    Issue.record("\(id): no field \(key)")
                    continue
                }
                switch value {
                case .null: #expect(actual.isNull, "\(id): \(key) is \(actual), expected null")
                case let .string(s): #expect(actual.stringValue == s, "\(id): \(key)")
                case let .number(n): #expect(actual.int64Value == Int64(n), "\(id): \(key)")
                case let .bool(b): #expect(actual.boolValue == b, "\(id): \(key)")
                default: Issue.record("\(id): cannot compare \(key)")
                }
            }
        }
    }

    @Test func vectors() throws {
        let group = try Vectors.discoverParse()
        #expect(group.vectors.count == 7)
        for vector in group.vectors {
            let id = "discoverParse \(vector.name.debugDescription)"
            if let browse = vector.browse {
                // Browse each domain, resolve each instance with the template, then dedupe and sort.
                let timeout = try #require(vector.timeoutMs)
                let domains = browse.keys.sorted { $0 == "local." ? true : $1 == "local." ? false : $0 < $1 }
                var beacons: [GatewayBeacon] = []
                for domain in domains {
                    for line in browse[domain]! {
                        guard let instance = DNSSDOutput.browseInstance(line) else { continue }
                        let lines = vector.resolveTemplate!.map { $0.replacingOccurrences(of: "<instance>", with: BonjourEscapes.encode(instance)) }
                        let resolved = DNSSDOutput.resolve(lines)
                        beacons.append(GatewayBeacon(instanceName: instance, domain: domain, host: resolved.host, port: resolved.port, txt: resolved.txt))
                    }
                }
                beacons = GatewayBeacon.sorted(GatewayBeacon.deduplicated(beacons))
                #expect(beacons.count == vector.expect["count"]?.int, "\(id): count")
                guard case let .object(first)? = vector.expect["first"] else { Issue.record("\(id): no first"); continue }
                check(beacons[0], first, id + " first")
                guard case let .array(expectedDomains)? = vector.expect["domains"] else { continue }
                #expect(domains == expectedDomains.compactMap(\.string), "\(id): domains")
                let json = GatewayBeacon.discoverJSON(timeoutMs: timeout, domains: domains, beacons: beacons)
                #expect(json["count"]?.int64Value == Int64(beacons.count) && json["timeoutMs"]?.int64Value == Int64(timeout), "\(id): json")
                let platform = vector.platform == "darwin" ? ToolScan.Platform.darwin : .linux
                var commands = ToolScan.browseCommands(platform: platform, domains: domains, timeoutMs: timeout)
                commands += beacons.map { ToolScan.resolveCommand(instance: $0.instanceName, domain: $0.domain, timeoutMs: timeout) }
                #expect(commands.allSatisfy { $0.timeoutMs == vector.expect["everyCommandTimeoutMs"]?.int }, "\(id): timeouts")
                #expect(commands[0].argv == ["dns-sd", "-B", "_openclaw-gw._tcp", "local."], "\(id): browse command")
            } else if let line = vector.txtLine {
                let beacon = GatewayBeacon(instanceName: "x", host: nil, port: nil,
                                           txt: DNSSDOutput.txtTokens(line.split(separator: " ").map(String.init)))
                check(beacon, vector.expect, id)
            } else if let lines = vector.resolve {
                let resolved = DNSSDOutput.resolve(lines)
                let beacon = GatewayBeacon(instanceName: "broken", host: resolved.host, port: resolved.port, txt: resolved.txt)
                check(beacon, vector.expect, id)
            } else if let dig = vector.dig, let domain = vector.domain {
                func answer(_ prefix: String) -> String? { dig.first { $0.key.hasPrefix(prefix) }?.value }
                let instance = try #require(DigOutput.instanceName(fromPTR: answer("PTR ")!, domain: domain), "\(id): PTR")
                let srv = try #require(DigOutput.srv(answer("SRV ")!), "\(id): SRV")
                let txt = DigOutput.txt(answer("TXT ")!)
                let beacon = GatewayBeacon(instanceName: instance, domain: domain, host: srv.target, port: srv.port, txt: txt)
                check(beacon, vector.expect, id)
                // The same answers as DNS records (what the toolkit's own resolver gets) give the same beacon.
                let srvData = SRVData(port: UInt16(srv.port!), target: try DNSName(srv.target))
                let fromRecords = GatewayBeacon(instance: try DNSName(answer("PTR ")!), domain: domain, srv: srvData, txt: txt.strings)
                check(fromRecords, vector.expect, id + " (records)")
            } else if let fields = vector.beacon {
                var pairs: [(String, String)] = []
                if let v = fields["lanHost"]?.string { pairs.append(("lanHost", v)) }
                if let v = fields["tailnetDns"]?.string { pairs.append(("tailnetDns", v)) }
                if let v = fields["gatewayPort"]?.int { pairs.append(("gatewayPort", String(v))) }
                if fields["gatewayTls"]?.bool == true { pairs.append(("gatewayTls", "1")) }
                if let v = fields["gatewayTlsFingerprintSha256"]?.string { pairs.append(("gatewayTlsSha256", v)) }
                let beacon = GatewayBeacon(instanceName: "x", host: fields["host"]?.string, port: fields["port"]?.int,
                                           txt: TXTRecord(pairs: pairs))
                check(beacon, vector.expect, id)
                if let url = vector.expect["wsUrl"] { #expect(beacon.endpoint?.url == url.string, "\(id): endpoint wsUrl") }
            } else {
                Issue.record("\(id): no test for this vector shape")
            }
        }
    }

    @Test func endpointFailsClosed() {
        func endpoint(_ host: String?, _ port: Int?) -> BeaconEndpoint? {
            GatewayBeacon(instanceName: "x", host: host, port: port, txt: TXTRecord()).endpoint
        }
        #expect(endpoint("studio.local.", 18789)?.url == "ws://studio.local:18789")
        #expect(endpoint("fe80::1", 18789)?.url == "ws://[fe80::1]:18789")
        #expect(endpoint("192.168.1.20", 1)?.host == "192.168.1.20")
        #expect(endpoint(nil, 18789) == nil)
        #expect(endpoint("", 18789) == nil)
        #expect(endpoint(".", 18789) == nil)
        #expect(endpoint("studio.local", 0) == nil)
        #expect(endpoint("studio.local", 65536) == nil)
        for bad in ["evil.com/x", "user@evil.com", "a b", "a..b", "-a", "h\u{E9}llo", "fe80::1%eth0", "a\\046b", "[::1]"] {
            #expect(endpoint(bad, 18789) == nil, "\(bad.debugDescription)")
        }
        // A label holding a dot, straight from the wire, shows escaped and does not route.
        let dotted = GatewayBeacon(instance: try! DNSName("x._openclaw-gw._tcp.local"), domain: "local.",
                                   srv: SRVData(port: 18789, target: try! DNSName(labels: ["evil.com", "local"])), txt: nil)
        #expect(dotted.host == "evil\\.com.local")
        #expect(dotted.endpoint == nil)
        // The SRV target "." means no service.
        let none = GatewayBeacon(instance: try! DNSName("x._openclaw-gw._tcp.local"), domain: "local.",
                                 srv: SRVData(port: 18789, target: .root), txt: [])
        #expect(none.host == nil && none.endpoint == nil)
    }

    @Test func plaintextPolicyGatesConnecting() {
        func endpoint(_ host: String, tls: Bool) -> BeaconEndpoint? {
            GatewayBeacon(instanceName: "x", host: host, port: 18789,
                          txt: TXTRecord(pairs: tls ? [("gatewayTls", "1")] : [])).endpoint
        }
        #expect(endpoint("studio.local", tls: false)?.mayConnect == true)
        #expect(endpoint("192.168.1.20", tls: false)?.mayConnect == true)
        #expect(endpoint("100.101.102.103", tls: false)?.mayConnect == false, "tailnet plaintext is not adopted")
        #expect(endpoint("gw.tail1234.ts.net", tls: false)?.mayConnect == false)
        #expect(endpoint("gw.tail1234.ts.net", tls: true)?.mayConnect == true)
    }

    @Test func dedupeAndSort() {
        func beacon(_ instance: String, _ display: String?, domain: String = "local.", host: String = "h", port: Int = 1) -> GatewayBeacon {
            GatewayBeacon(instanceName: instance, domain: domain, host: host, port: port,
                          txt: TXTRecord(pairs: display.map { [("displayName", $0)] } ?? []))
        }
        let input = [beacon("b", "beta"), beacon("a", "Alpha"), beacon("b", "beta"), beacon("b", "beta", domain: "openclaw.internal."),
                     beacon("c", nil), beacon("d", "\u{C9}clair"), beacon("e", "alpha"), beacon("f", "Zulu")]
        let deduped = GatewayBeacon.deduplicated(input)
        #expect(deduped.count == 7, "the same gateway in two domains stays twice")
        let sorted = GatewayBeacon.sorted(deduped)
        #expect(sorted.map(\.instanceName) == ["a", "e", "b", "b", "c", "f", "d"])
        #expect(sorted[2].domain == "local." && sorted[3].domain == "openclaw.internal.", "stable among equals")
    }

    @Test func extrasAndJSON() throws {
        var txt = TXTRecord(pairs: [("displayName", "Studio"), ("sshPort", "2222"), ("gatewayTls", "true"),
                                    ("gatewayTlsSha256", "AB:CD"), ("role", "gateway")])
        txt.add(Array("flag".utf8))
        let beacon = GatewayBeacon(instanceName: "Studio (OpenClaw)", domain: "local.", host: "studio.local.", port: 18789, txt: txt)
        #expect(beacon.title == "Studio")
        #expect(beacon.sshTarget(user: "me") == "me@studio.local:2222")
        #expect(beacon.onboardingLabel == "Studio (studio.local:18789)")
        #expect(beacon.endpoint?.gatewayTlsFingerprintSha256 == "AB:CD", "TXT values are kept exactly")
        let json = GatewayBeacon.discoverJSON(timeoutMs: 2000, domains: ["local."], beacons: [beacon])
        #expect(json.compact() == #"{"timeoutMs":2000,"domains":["local."],"count":1,"beacons":[{"instanceName":"Studio (OpenClaw)","domain":"local.","displayName":"Studio","host":"studio.local","port":18789,"lanHost":null,"tailnetDns":null,"gatewayPort":null,"sshPort":2222,"gatewayTls":true,"gatewayTlsFingerprintSha256":"AB:CD","gatewayDirectReachable":false,"cliPath":null,"role":"gateway","transport":null,"txt":{"displayName":"Studio","sshPort":"2222","gatewayTls":"true","gatewayTlsSha256":"AB:CD","role":"gateway","flag":true},"wsUrl":"wss://studio.local:18789"}]}"#)
        let plain = GatewayBeacon(instanceName: "x", host: "h", port: 22, txt: TXTRecord(pairs: [("sshPort", "22")]))
        #expect(plain.sshTarget() == "h" && plain.title == "x")
        #expect(GatewayBeacon(instanceName: "", host: nil, port: nil, txt: TXTRecord()).title == "Gateway")
    }

    @Test("gatewayDirectReachable is read from any beacon, mDNS or wide-area, as 1, true or yes (upstream's Linux companion)")
    func directReachable() {
        for value in ["1", "true", "yes", "TRUE", " Yes "] {
            let beacon = GatewayBeacon(instanceName: "a", domain: "local.", host: "a.local", port: 18789,
                                       txt: TXTRecord(pairs: [("gatewayDirectReachable", value)]))
            #expect(beacon.gatewayDirectReachable, "\(value)")
            #expect(beacon.json["gatewayDirectReachable"]?.boolValue == true)
        }
        for value in ["0", "false", "no", ""] {
            let beacon = GatewayBeacon(instanceName: "a", domain: "openclaw.internal.", host: "a", port: 18789,
                                       txt: TXTRecord(pairs: [("gatewayDirectReachable", value)]))
            #expect(!beacon.gatewayDirectReachable, "\(value)")
        }
    }

    @Test func toolOutputParsers() {
        // avahi-browse -rt, human form.
        let avahi = """
        +   eth0 IPv4 Studio\\032Mac                                    _openclaw-gw._tcp    local
        =   eth0 IPv4 Studio\\032Mac                                    _openclaw-gw._tcp    local
           hostname = [studio.local]
           address = [192.168.1.20]
           port = [18789]
           txt = ["role=gateway" "displayName=Studio \\"Mac\\"" "gatewayTls=1"]
        =   eth0 IPv6 Other Box _openclaw-gw._tcp local
           hostname = [other.local.]
           port = [99999]
        """.split(separator: "\n").map(String.init)
        let services = AvahiBrowseOutput.parse(avahi)
        #expect(services.count == 2)
        #expect(services[0].instanceName == "Studio Mac" && services[0].host == "studio.local" && services[0].port == 18789)
        #expect(services[0].txt.value("displayName") == "Studio \"Mac\"" && services[0].txt.boolValue("gatewayTls"))
        #expect(services[1].instanceName == "Other Box" && services[1].host == "other.local" && services[1].port == nil)
        // Quoted strings with \DDD and unquoted words.
        #expect(QuotedStrings.parse(#""a\032b" "c\\d" plain "" "x\"y""#) == [Array("a b".utf8), Array("c\\d".utf8), Array("plain".utf8), [], Array("x\"y".utf8)])
        // PTR answers with presentation escapes, wrong domain, extra labels.
        #expect(DigOutput.instanceName(fromPTR: "Studio\\032Mac._openclaw-gw._tcp.OpenClaw.Internal.", domain: "openclaw.internal.") == "Studio Mac")
        #expect(DigOutput.instanceName(fromPTR: "a\\.b._openclaw-gw._tcp.openclaw.internal.", domain: "openclaw.internal") == "a.b")
        #expect(DigOutput.instanceName(fromPTR: "x._openclaw-gw._tcp.other.", domain: "openclaw.internal.") == nil)
        #expect(DigOutput.instanceName(fromPTR: "a.b._openclaw-gw._tcp.openclaw.internal.", domain: "openclaw.internal.") == nil)
        #expect(DigOutput.srv("0 0 x host.") == nil || DigOutput.srv("0 0 x host.")?.port == nil)
        #expect(DNSSDOutput.browseInstance("Timestamp A/R Flags if Domain Service Type Instance Name") == nil)
        #expect(DNSSDOutput.browseInstance("Rmv 2 3 local. _openclaw-gw._tcp. Gone") == nil)
        let linux = ToolScan.browseCommands(platform: .linux, domains: ["local.", "openclaw.internal."], timeoutMs: 2000)
        #expect(linux.map(\.argv) == [["avahi-browse", "-rt", "_openclaw-gw._tcp"],
                                       ["avahi-browse", "-rt", "_openclaw-gw._tcp", "-d", "openclaw.internal"]])
    }
}
