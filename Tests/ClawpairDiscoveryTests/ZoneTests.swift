import ClawpairDNS
@testable import ClawpairDiscovery
import ClawpairTestSupport
import Testing

@Suite struct WideAreaDomainTests {
    @Test func vectors() throws {
        let group = try Vectors.wideAreaDomain()
        for vector in group.vectors {
            var environment: [String: String] = [:]
            if let env = vector.env { environment[WideAreaDomain.environmentVariable] = env }
            #expect(WideAreaDomain.resolve(config: vector.config, environment: environment) == vector.output,
                    "wideAreaDomain config \(vector.config.debugDescription) env \(vector.env.debugDescription)")
        }
    }

    @Test func rules() {
        // A configured blank domain means none, and the environment is not consulted (TS `??`).
        #expect(WideAreaDomain.resolve(config: "  ", environment: [WideAreaDomain.environmentVariable: "env.internal"]) == nil)
        #expect(WideAreaDomain.appleRule(environment: [WideAreaDomain.environmentVariable: " OpenClaw.Internal "]) == "openclaw.internal.")
        #expect(WideAreaDomain.appleRule(environment: [WideAreaDomain.environmentVariable: "LOCAL"]) == nil)
        #expect(WideAreaDomain.same("OpenClaw.Internal", "openclaw.internal."))
        #expect(!WideAreaDomain.same("openclaw.internal", "openclaw.internet"))
        #expect(WideAreaDomain.problemAsZoneOrigin("openclaw.internal.") == nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("my_zone.example") == nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("local.") != nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("x.local") != nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("a..b") != nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("a b.internal") != nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("a\nb") != nil)
        #expect(WideAreaDomain.problemAsZoneOrigin("-a.internal") != nil)
        #expect(WideAreaDomain.problemAsZoneOrigin(String(repeating: "a", count: 64) + ".internal") != nil)
    }
}

@Suite struct ZoneTests {
    static func options(_ inputs: ZoneGroup.Inputs, osHostname: String = "unused-host") -> WideAreaZoneOptions {
        WideAreaZoneOptions(domain: inputs.domain!, gatewayPort: inputs.gatewayPort!, displayName: inputs.displayName!,
                            tailnetIPv4: inputs.tailnetIPv4!, tailnetIPv6: inputs.tailnetIPv6,
                            gatewayTlsEnabled: inputs.gatewayTlsEnabled ?? false,
                            gatewayTlsFingerprintSha256: inputs.gatewayTlsFingerprintSha256,
                            instanceLabel: inputs.instanceLabel, hostLabel: inputs.hostLabel, tailnetDns: inputs.tailnetDns,
                            sshPort: inputs.sshPort, cliPath: inputs.cliPath, osHostname: osHostname)
    }

    static func merged(_ base: ZoneGroup.Inputs, _ delta: ZoneGroup.Inputs) -> ZoneGroup.Inputs {
        var out = base
        if let v = delta.domain { out.domain = v }
        if let v = delta.gatewayPort { out.gatewayPort = v }
        if let v = delta.displayName { out.displayName = v }
        if let v = delta.tailnetIPv4 { out.tailnetIPv4 = v }
        if let v = delta.tailnetIPv6 { out.tailnetIPv6 = v }
        if let v = delta.hostLabel { out.hostLabel = v }
        if let v = delta.instanceLabel { out.instanceLabel = v }
        if let v = delta.sshPort { out.sshPort = v }
        if let v = delta.cliPath { out.cliPath = v }
        if let v = delta.tailnetDns { out.tailnetDns = v }
        if let v = delta.gatewayTlsEnabled { out.gatewayTlsEnabled = v }
        if let v = delta.gatewayTlsFingerprintSha256 { out.gatewayTlsFingerprintSha256 = v }
        return out
    }

    @Test func contentHashVectors() throws {
        let group = try Vectors.zone().contentHash
        for vector in group.primitiveVectors {
            let hex = String(WideAreaZone.fnv1a32UTF16(vector.input), radix: 16)
            #expect(String(repeating: "0", count: 8 - hex.count) + hex == vector.fnv1a32Utf16, "zone fnv1a32Utf16 \(vector.input.debugDescription)")
        }
        let hex = String(WideAreaZone.fnv1a32UTF16(group.hashedText), radix: 16)
        #expect(hex == group.recomputedValue, "zone contentHash hashedText")
    }

    @Test func fullExample() throws {
        let example = try Vectors.zone().fullExample
        let options = Self.options(example.inputs)
        #expect(WideAreaZone.render(options, serial: example.inputs.serial!) == example.zoneText, "zone fullExample")
        #expect(WideAreaZone.contentHash(options) == "3564c7ee", "zone fullExample hash")
        #expect(example.zonePathSuffix.hasSuffix(WideAreaZone.fileName(domain: example.inputs.domain!)), "zone fullExample path")
        try WideAreaZone.validate(options)
        // Reading the file back finds its hash and serial.
        #expect(WideAreaZone.previousContentHash(in: example.zoneText) == "3564c7ee")
        #expect(WideAreaZone.previousSerial(in: example.zoneText) == example.inputs.serial)
    }

    @Test func substringVectors() throws {
        let group = try Vectors.zone()
        for vector in group.substringVectors {
            let inputs = Self.merged(group.fullExample.inputs, vector.inputsDelta)
            let text = WideAreaZone.render(Self.options(inputs, osHostname: vector.osHostname ?? "unused-host"), serial: 1)
            for needle in vector.contains {
                #expect(text.contains(needle), "zone substring \(needle.debugDescription) (\(vector.source))")
            }
        }
    }

    @Test func dnsLabelVectors() throws {
        for vector in try Vectors.zone().dnsLabel {
            #expect(WideAreaZone.dnsLabel(vector.input, fallback: vector.fallback ?? "openclaw") == vector.output,
                    "zone dnsLabel \(vector.input.debugDescription)")
        }
        #expect(WideAreaZone.dnsLabel("a -b", fallback: "x") == "a--b", "each run becomes one hyphen; existing hyphens stay")
        #expect(WideAreaZone.dnsLabel("Caf\u{E9} \u{1F99E} Bar", fallback: "x") == "caf-bar")
        #expect(WideAreaZone.dnsLabel(String(repeating: "a", count: 70), fallback: "x").count == 63)
    }

    @Test func serialVectors() throws {
        let group = try Vectors.zoneSerial()
        let now = Vectors.ms(group.nowUtc)
        #expect(WideAreaZone.serialBase(nowMs: now) == group.todayBase, "zoneSerial todayBase")
        let example = try Vectors.zone().fullExample
        var inputs = example.inputs
        inputs.gatewayTlsEnabled = true
        inputs.gatewayTlsFingerprintSha256 = "abc123"
        let options = Self.options(inputs)
        for vector in group.vectors {
            #expect(WideAreaZone.nextSerial(previous: vector.previous, nowMs: now) == vector.expected,
                    "zoneSerial previous \(vector.previous)")
            // The same through a previous file whose content differs (the upstream test's path).
            let previousFile = WideAreaZone.render(Self.options(example.inputs), serial: vector.previous)
            let update = WideAreaZone.update(options, existing: previousFile, nowMs: now)
            #expect(update.changed && update.serial == vector.expected, "zoneSerial file previous \(vector.previous)")
            #expect(WideAreaZone.previousSerial(in: update.text) == vector.expected, "zoneSerial file previous \(vector.previous)")
        }
    }

    @Test func updateRules() throws {
        let options = Self.options(try Vectors.zone().fullExample.inputs)
        let now = Vectors.ms("2026-03-13T12:00:00.000Z")
        let fresh = WideAreaZone.update(options, existing: nil, nowMs: now)
        #expect(fresh.changed && fresh.serial == 2026031301)
        // Same content: nothing to write, the old serial stays.
        let again = WideAreaZone.update(options, existing: fresh.text, nowMs: now + 86_400_000)
        #expect(!again.changed && again.serial == 2026031301 && again.text == fresh.text)
        // A change the same day bumps the serial.
        var changed = options
        changed.gatewayPort = 18790
        let bumped = WideAreaZone.update(changed, existing: fresh.text, nowMs: now)
        #expect(bumped.changed && bumped.serial == 2026031302)
        // A file without a readable serial starts from today's base.
        let noSerial = WideAreaZone.update(changed, existing: "; openclaw-content-hash: 00000000\n", nowMs: now)
        #expect(noSerial.serial == 2026031301)
        #expect(!WideAreaZone.isOurZone("$ORIGIN example.\n") && WideAreaZone.isOurZone(fresh.text))
        // The header may be indented or spaced as upstream's regex allows.
        #expect(WideAreaZone.previousContentHash(in: "x\n  ;openclaw-content-hash:   abc  \n") == "abc")
        #expect(WideAreaZone.previousContentHash(in: "; openclaw-content-hash: a b\n") == nil)
        #expect(WideAreaZone.previousSerial(in: "  @  IN  SOA ns1 hostmaster 0042 7200\n") == 42)
        #expect(WideAreaZone.previousSerial(in: "@ IN SOA ns1 hostmaster 99999999999 7200\n") == nil)
        #expect(WideAreaZone.previousSerial(in: "@ IN SOA ns1 hostmaster 12x 7200\n") == nil)
    }

    @Test func dateEdges() {
        #expect(WideAreaZone.serialBase(nowMs: 0) == 1970010101)
        #expect(WideAreaZone.serialBase(nowMs: 951_782_400_000) == 2000022901)   // 2000-02-29
        #expect(WideAreaZone.serialBase(nowMs: 4_102_444_799_999) == 2099123101)  // 2099-12-31T23:59:59.999Z
        #expect(WideAreaZone.serialBase(nowMs: -1) == 1969123101)
    }

    @Test func validation() throws {
        let base = Self.options(try Vectors.zone().fullExample.inputs)
        func problem(_ change: (inout WideAreaZoneOptions) -> Void) -> ZoneError? {
            var options = base
            change(&options)
            do { try WideAreaZone.validate(options); return nil } catch { return error }
        }
        #expect(problem { _ in } == nil)
        #expect(problem { $0.domain = "local" } != nil)
        #expect(problem { $0.tailnetIPv4 = "100.64.0.256" } == .invalidAddress(field: "IPv4 address", value: "100.64.0.256"))
        #expect(problem { $0.tailnetIPv6 = "fd7a::g" } == .invalidAddress(field: "IPv6 address", value: "fd7a::g"))
        #expect(problem { $0.gatewayPort = 0 } == .invalidPort(field: "gateway port", value: 0))
        #expect(problem { $0.sshPort = 70000 } == .invalidPort(field: "SSH port", value: 70000))
        #expect(problem { $0.displayName = "a\nb" } == .controlCharacter(field: "display name"))
        #expect(problem { $0.cliPath = "/" + String(repeating: "x", count: 260) } == .txtTooLong(key: "cliPath", bytes: 269))
    }

    @Test func txtQuoting() {
        #expect(WideAreaZone.txtQuote(#"C:\a "b""#) == #""C:\\a \"b\"""#)
        #expect(WideAreaZone.txtQuote("Peter\u{2019}s Mac") == #""Peter\226\128\153s Mac""#, "non-ASCII as \\DDD")
        #expect(WideAreaZone.txtQuote("a\nb\tc\u{7F}") == #""a\nb\009c\127""#, "upstream's \\n, other controls as \\DDD")
        // What a zone parser reads back is the original bytes (newline aside, upstream's quirk).
        var random = SeededGenerator(seed: 7)
        let alphabet: [Character] = ["a", " ", "\\", "\"", "\u{E9}", "\u{2019}", "\u{1F99E}", "\t", "(", ";", "=", "\u{0}"]
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...10, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(QuotedStrings.parse(WideAreaZone.txtQuote(text)) == [Array(text.utf8)], "\(text.debugDescription)")
        }
    }

    @Test func recordsMatchTheText() throws {
        let options = Self.options(try Vectors.zone().fullExample.inputs)
        let records = try WideAreaZone.records(options, serial: 7)
        #expect(records.map(\.type) == [.soa, .ns, .a, .a, .aaaa, .ptr, .srv, .txt])
        #expect(records[5].description == "_openclaw-gw._tcp.openclaw.internal. 60 IN PTR studio-london._openclaw-gw._tcp.openclaw.internal.")
        #expect(records[6].description == "studio-london._openclaw-gw._tcp.openclaw.internal. 60 IN SRV 0 0 18789 studio-london.openclaw.internal.")
        #expect(records[7].data.description == #""displayName=Mac Studio (OpenClaw)" "role=gateway" "transport=gateway" "gatewayPort=18789" "sshPort=22" "cliPath=/opt/homebrew/bin/openclaw""#)
    }
}
