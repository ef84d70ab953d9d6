@testable import ClawpairDiscovery
import ClawpairTestSupport
import Testing

@Suite struct BonjourEscapeTests {
    @Test func vectors() throws {
        let group = try Vectors.escapes()
        #expect(group.vectors.count >= 11)
        for vector in group.vectors {
            #expect(BonjourEscapes.decode(vector.input) == vector.output, "bonjourEscapes \(vector.input.debugDescription) (\(vector.source))")
        }
        // The divergence the group notes: invalid UTF-8 gives one scalar per escaped byte, not U+FFFD.
        #expect(group.divergence.contains("x\\233y"))
        #expect(BonjourEscapes.decode("x\\233y") == "x\u{E9}y")
        #expect(!BonjourEscapes.decode("x\\233y").contains("\u{FFFD}"))
    }

    @Test func edgeCases() {
        #expect(BonjourEscapes.decode("") == "")
        #expect(BonjourEscapes.decode("\\") == "\\")
        #expect(BonjourEscapes.decode("a\\06") == "a\\06")
        #expect(BonjourEscapes.decode("\\0650") == "A0", "exactly three digits; the fourth is literal")
        #expect(BonjourEscapes.decode("\\\\065") == "\\A", "a backslash that starts no escape stays; the next one does")
        #expect(BonjourEscapes.decode("\\255") == "\u{FF}", "a lone 0xFF is invalid UTF-8: one scalar per byte")
        #expect(BonjourEscapes.decode("\u{E9}\\032x") == "\u{E9} x", "literal non-ASCII next to escapes")
        #expect(BonjourEscapes.decode("\u{E9}\\233") == "\u{E9}\u{E9}", "fallback keeps literal characters")
        #expect(BonjourEscapes.decode("\\000") == "\u{0}")
    }

    @Test func encodeRoundTrips() {
        #expect(BonjourEscapes.encode("Peter\u{2019}s Mac") == "Peter\\226\\128\\153s\\032Mac")
        #expect(BonjourEscapes.encode("a.b\\c") == "a\\046b\\092c")
        var random = SeededGenerator(seed: 42)
        let alphabet: [Character] = ["a", "Z", " ", ".", "\\", "0", "9", "\u{E9}", "\u{2019}", "\u{1F99E}", "\n", "\u{0}", "\"", "("]
        for _ in 0..<2000 {
            let text = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(BonjourEscapes.decode(BonjourEscapes.encode(text)) == text, "\(text.debugDescription)")
        }
    }
}

@Suite struct DisplayNameTests {
    @Test func vectors() throws {
        let group = try Vectors.displayName()
        var functions = Set<String>()
        for vector in group.vectors {
            let id = "displayName \(vector.fn) \((vector.input ?? vector.instanceName ?? vector.osHostname ?? "").debugDescription)"
            functions.insert(vector.fn)
            switch vector.fn {
            case "prettifyInstanceName":
                #expect(AppleDisplayName.prettify(vector.input!) == vector.output.string, "\(id)")
            case "displayName":
                let txt = TXTRecord(pairs: (vector.txt ?? [:]).sorted { $0.key < $1.key })
                #expect(AppleDisplayName.displayName(serviceName: vector.instanceName!, txt: txt) == vector.output.string, "\(id)")
            case "truncatedToDNSLabel":
                let input = vector.input!
                #expect(input.utf8.count == vector.inputUtf8Bytes, "\(id)")
                let output = AppleDisplayName.truncatedToDNSLabel(input)
                #expect(output == vector.output.string, "\(id)")
                #expect(output.count == vector.outputChars && output.utf8.count == vector.outputUtf8Bytes, "\(id)")
            case "formatBonjourInstanceName":
                #expect(BeaconIdentity.instanceName(vector.input!) == vector.output.string, "\(id)")
            case "txtDisplayNameFromInstance":
                #expect(BeaconIdentity.txtDisplayName(instanceName: vector.input!) == vector.output.string, "\(id)")
            case "legacyHostLabel":
                let legacy = BeaconIdentity.legacyIdentity(osHostname: vector.osHostname!, environment: vector.env ?? [:])
                guard case let .object(expected) = vector.output else {
                    Issue.record("\(id): output is not an object")
                    continue
                }
                #expect(legacy.instanceName == expected["instanceName"]?.string, "\(id)")
                #expect(legacy.hostname == expected["hostname"]?.string, "\(id)")
                #expect(legacy.lanHost == expected["lanHost"]?.string, "\(id)")
                // The current rule differs, as the vector notes: a valid first label is used.
                #expect(BeaconIdentity.hostLabel(osHostname: vector.osHostname!, environment: vector.env ?? [:]) == "Mac", "\(id)")
            case "serviceNameFallbackTitle":
                #expect(AppleDisplayName.fallbackTitle(serviceName: vector.input!) == vector.output.string, "\(id)")
            default:
                Issue.record("\(id): no test for this function")
            }
        }
        #expect(functions.count == 7)
    }

    @Test func instanceNameRules() {
        #expect(BeaconIdentity.instanceName("  My Mac  ") == "My Mac (OpenClaw)")
        #expect(BeaconIdentity.instanceName("My OPENCLAW box") == "My OPENCLAW box")
        let long = String(repeating: "\u{E9}", count: 40)
        let name = BeaconIdentity.instanceName(long)
        #expect(name.utf8.count <= 63 && name == String(repeating: "\u{E9}", count: 31), "cut on a character boundary")
        let emoji = String(repeating: "a", count: 60) + "\u{1F99E}"
        #expect(BeaconIdentity.instanceName(emoji) == String(repeating: "a", count: 60), "a 4-byte character is not split")
        #expect(BeaconIdentity.machineDisplayName(osHostname: "studio.local") == "studio")
        #expect(BeaconIdentity.machineDisplayName(osHostname: ".local") == "openclaw")
        #expect(BeaconIdentity.txtDisplayName(instanceName: "Studio (OpenClaw) (OpenClaw)") == "Studio (OpenClaw)")
    }

    @Test func hostLabelRules() {
        #expect(BeaconIdentity.hostLabel(osHostname: "studio.example.com") == "studio")
        #expect(BeaconIdentity.hostLabel(osHostname: "studio.local") == "studio")
        #expect(BeaconIdentity.hostLabel(osHostname: "-bad-.lan") == "openclaw")
        #expect(BeaconIdentity.hostLabel(osHostname: "my_host") == "openclaw")
        #expect(BeaconIdentity.hostLabel(osHostname: "") == "openclaw")
        #expect(BeaconIdentity.hostLabel(osHostname: "x", environment: ["OPENCLAW_MDNS_HOSTNAME": "gw.local"]) == "gw")
        #expect(BeaconIdentity.hostLabel(osHostname: "x", environment: ["OPENCLAW_MDNS_HOSTNAME": "gw.lan.example"]) == "gw")
        #expect(BeaconIdentity.hostLabel(osHostname: "x", environment: ["OPENCLAW_MDNS_HOSTNAME": "   "]) == "x")
        #expect(BeaconIdentity.hostLabel(osHostname: String(repeating: "a", count: 70)) == "openclaw", "70 characters is not a label")
        #expect(BeaconIdentity.hostLabel(osHostname: "x", environment: ["OPENCLAW_MDNS_HOSTNAME": String(repeating: "b", count: 70)])
                == String(repeating: "b", count: 63))
    }

    @Test func appleHelpers() {
        #expect(AppleDisplayName.prettify("Studio (OpenClaw) (12)") == "Studio")
        #expect(AppleDisplayName.prettify("Studio (x)") == "Studio (x)")
        #expect(AppleDisplayName.fallbackTitle(serviceName: "my_mac-book gateway") == "My Mac Book")
        #expect(AppleDisplayName.fallbackTitle(serviceName: "MacBook-Pro") == "MacBook Pro")
        #expect(AppleDisplayName.displayName(serviceName: "x", txt: TXTRecord(pairs: [("displayName", "   ")])) == "X")
        #expect(AppleDisplayName.StableID.bonjour(type: "_openclaw-gw._tcp", domain: "local.", name: "Studio\\032\\032Mac")
                == "_openclaw-gw._tcp|local.|Studio Mac")
        #expect(AppleDisplayName.StableID.wideArea(domain: "openclaw.internal.", instance: "studio") == "wide-area|openclaw.internal.|studio")
        #expect(AppleDisplayName.StableID.tailscaleServe(dnsName: "GW.Tailnet.ts.net") == "tailscale-serve|gw.tailnet.ts.net")
        #expect(AppleDisplayName.StableID.manual(host: "Studio.Local", port: 18789) == "manual|studio.local|18789")
    }
}
