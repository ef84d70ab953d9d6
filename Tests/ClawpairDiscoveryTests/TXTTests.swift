import ClawpairDNS
@testable import ClawpairDiscovery
import Testing

@Suite struct TXTTests {
    @Test func vectors() throws {
        for vector in try Vectors.txtParsing().vectors {
            let id = "txtParsing \(vector.fn) \(vector.key ?? "") (\(vector.source))"
            let txt = TXTRecord(pairs: (vector.txt ?? [:]).sorted { $0.key < $1.key })
            switch vector.fn {
            case "txtValue":
                #expect(txt.trimmedValue(vector.key!) == vector.output?.string, "\(id)")
            case "txtBoolValue":
                #expect(txt.boolValue(vector.key!) == vector.output?.bool, "\(id)")
            case "gatewayTls":
                for (value, expected) in vector.values! {
                    #expect(TXTRecord.isTruthy(value) == expected.bool, "\(id) \(value.debugDescription)")
                    let beacon = GatewayBeacon(instanceName: "x", host: nil, port: nil, txt: TXTRecord(pairs: [("gatewayTls", value)]))
                    #expect(beacon.gatewayTls == expected.bool, "\(id) beacon \(value.debugDescription)")
                }
            case "port":
                for (value, expected) in vector.values! {
                    #expect(TXTRecord.parsePort(value) == expected.int, "\(id) \(value.debugDescription)")
                    let beacon = GatewayBeacon(instanceName: "x", host: nil, port: nil,
                                               txt: TXTRecord(pairs: [("gatewayPort", value), ("sshPort", value)]))
                    #expect(beacon.gatewayPort == expected.int && beacon.sshPort == expected.int, "\(id) beacon \(value.debugDescription)")
                }
            case "advertiserTxt":
                let options = vector.options!
                let ad = BeaconAdvertisement(BeaconOptions(
                    machineName: "Test Host", hostname: options.hostname, osHostname: "ignored-host",
                    gatewayPort: options.gatewayPort, mode: options.minimal ? .minimal : .full,
                    tailnetDns: options.tailnetDns, sshPort: options.sshPort, cliPath: options.cliPath))
                let expect = vector.expect!
                if let type = expect.serviceType { #expect("_\(type)._tcp" == BeaconIdentity.serviceType, "\(id)") }
                if let port = expect.port { #expect(ad.port == port, "\(id)") }
                if let hostname = expect.hostname { #expect(ad.hostLabel == hostname, "\(id)") }
                if let domain = expect.domain {
                    let records = try ad.records(domain: try DNSName(domain))
                    #expect(records.allSatisfy { $0.name.isSubdomain(of: try! DNSName(domain)) }, "\(id)")
                }
                for (key, value) in expect.txtIncludes ?? [:] {
                    #expect(ad.txtValue(key) == value, "\(id) includes \(key)")
                }
                for key in expect.txtExcludes ?? [] {
                    #expect(ad.txtValue(key) == nil, "\(id) excludes \(key)")
                }
            default:
                Issue.record("\(id): no test for this function")
            }
        }
    }

    @Test func rfc6763Rules() {
        let strings: [[UInt8]] = [
            Array("Role=gateway".utf8),
            Array("role=other".utf8),          // duplicate key, other case: ignored (first wins)
            Array("flag".utf8),                // bare key: present, no value
            Array("empty=".utf8),              // present, empty value
            Array("=novalue".utf8),            // no key: ignored
            [],                                // empty string: ignored
            Array("eq=a=b".utf8),              // value keeps later '='
            [0x62, 0x69, 0x6E, 0x3D, 0x00, 0xFF, 0xC3],  // binary value
            [0x6B, 0xC3, 0xA9, 0x3D, 0x31],    // non-ASCII key: ignored
        ]
        let txt = TXTRecord(strings: strings)
        #expect(txt.entries.map(\.key) == ["Role", "flag", "empty", "eq", "bin"])
        #expect(txt.ignoredCount == 4)
        #expect(txt.value("ROLE") == "gateway")
        #expect(txt.contains("flag") && txt.value("flag") == nil && txt.bytes("flag") == nil)
        #expect(txt.value("empty") == "" && txt.trimmedValue("empty") == nil)
        #expect(txt.value("eq") == "a=b")
        #expect(txt.bytes("bin") == [0x00, 0xFF, 0xC3])
        #expect(txt.value("bin") == "\u{0}\u{FFFD}\u{FFFD}")
        #expect(!txt.contains("missing"))
        // Writing gives back each kept entry.
        #expect(txt.strings == [Array("Role=gateway".utf8), Array("flag".utf8), Array("empty=".utf8), Array("eq=a=b".utf8),
                                [0x62, 0x69, 0x6E, 0x3D, 0x00, 0xFF, 0xC3]])
    }

    @Test func manyEntriesAreCappedAndCheap() {
        // 30000 distinct keys: linear work, at most maxEntries kept.
        let strings = (0..<30_000).map { Array("k\($0)=v".utf8) }
        let txt = TXTRecord(strings: strings)
        #expect(txt.entries.count == TXTRecord.maxEntries)
        #expect(txt.ignoredCount == 30_000 - TXTRecord.maxEntries)
        let duplicates = TXTRecord(strings: Array(repeating: Array("a=1".utf8), count: 30_000))
        #expect(duplicates.entries.count == 1 && duplicates.ignoredCount == 29_999)
    }

    @Test func portEdges() {
        #expect(TXTRecord.parsePort(" 22 ") == 22)
        #expect(TXTRecord.parsePort("022") == 22)
        #expect(TXTRecord.parsePort("000022") == nil)
        #expect(TXTRecord.parsePort("") == nil)
        #expect(TXTRecord.parsePort("+22") == nil)
        #expect(TXTRecord.parsePort("2 2") == nil)
        #expect(TXTRecord.parsePort("\u{0662}\u{0662}") == nil, "Arabic-Indic digits are not ports")
    }

    @Test func advertisementFullAndMinimal() throws {
        let options = BeaconOptions(machineName: "Studio", osHostname: "studio.lan", gatewayTls: true,
                                    gatewayTlsFingerprintSha256: String(repeating: "ab", count: 32), canvasPort: 18789,
                                    mode: .full, tailnetDns: " studio.tail.ts.net ", cliPath: "/usr/bin/openclaw")
        let full = BeaconAdvertisement(options)
        #expect(full.instanceName == "Studio (OpenClaw)")
        #expect(full.hostLabel == "studio")
        #expect(full.txt.map(\.key) == ["role", "transport", "displayName", "lanHost", "gatewayPort", "gatewayTls",
                                        "gatewayTlsSha256", "gatewayDirectReachable", "tailnetDns", "sshPort", "cliPath"])
        #expect(full.txtValue("canvasPort") == nil, "canvasPort is retired upstream: never written")
        #expect(full.txtValue("displayName") == "Studio")
        #expect(full.txtValue("tailnetDns") == "studio.tail.ts.net")
        #expect(full.txtValue("sshPort") == "22")
        var minimalOptions = options
        minimalOptions.mode = .minimal
        let minimal = BeaconAdvertisement(minimalOptions)
        #expect(minimal.txtValue("tailnetDns") == nil && minimal.txtValue("sshPort") == nil && minimal.txtValue("cliPath") == nil)

        // The records it announces parse back into the same beacon.
        let records = try full.records(ipv4: [IPv4Address("192.168.1.20")!])
        let message = DNSMessage(header: DNSHeader(flags: 0x8400), answers: records)
        let back = try DNSMessage.unpack(message.pack(compression: .multicast))
        guard case let .ptr(instance) = back.answers[0].data, case let .srv(srv) = back.answers[1].data,
              case let .txt(strings) = back.answers[2].data else {
            Issue.record("unexpected records \(back)")
            return
        }
        let beacon = GatewayBeacon(instance: instance, domain: "local.", srv: srv, txt: strings)
        #expect(beacon.instanceName == "Studio (OpenClaw)")
        #expect(beacon.displayName == "Studio")
        #expect(beacon.endpoint?.url == "wss://studio.local:18789")
        #expect(beacon.lanHost == "studio.local" && beacon.sshPort == 22 && beacon.cliPath == "/usr/bin/openclaw")
    }
}
