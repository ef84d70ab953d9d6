// The wide-area DNS-SD zone file, byte-for-byte as the gateway writes it (discovery.md §4.1):
// a content-hash header, then fixed record lines; a new serial only when the content changes.
// One deliberate difference: non-ASCII bytes in TXT strings are written as `\DDD` (see
// `txtQuote`), because upstream's raw UTF-8 does not load in every DNS server.
//
// The content hash is 32-bit FNV-1a over the UTF-16 code units of the record lines (joined with
// LF, one trailing LF) with the SOA serial replaced by `SERIAL`. The serial follows RFC 1982
// sequence-space arithmetic so it always advances from the previous file's serial.

import ClawpairDNS

/// The inputs of a zone (TS `WideAreaGatewayZoneOpts`).
public struct WideAreaZoneOptions: Sendable, Hashable {
    /// The zone origin; a trailing dot is added when missing.
    public var domain: String
    /// The gateway's port (the SRV port, and TXT `gatewayPort`).
    public var gatewayPort: Int
    /// The TXT `displayName` (trimmed; blank means the OS hostname's first label).
    public var displayName: String
    /// Written as given: pass canonical text.
    public var tailnetIPv4: String
    /// Written as given; nil leaves out the AAAA line.
    public var tailnetIPv6: String?
    /// Whether the gateway serves TLS (`gatewayTls=1` in the TXT).
    public var gatewayTlsEnabled: Bool
    /// Written only with TLS.
    public var gatewayTlsFingerprintSha256: String?
    /// Default: `<hostname>-gateway`; always passed through ``WideAreaZone/dnsLabel(_:fallback:)``.
    public var instanceLabel: String?
    /// Default: the hostname's first label; always passed through ``WideAreaZone/dnsLabel(_:fallback:)``.
    public var hostLabel: String?
    /// TXT `tailnetDns`: the tailnet DNS name to advertise, if any.
    public var tailnetDns: String?
    /// Written when > 0.
    public var sshPort: Int?
    /// TXT `cliPath`: where the `openclaw` CLI lives, if advertised.
    public var cliPath: String?
    /// The OS hostname; its first label is the default for the labels and a blank display name.
    public var osHostname: String

    /// Options for a zone; unset TXT hints are left out.
    public init(domain: String, gatewayPort: Int = BeaconIdentity.defaultPort, displayName: String, tailnetIPv4: String,
                tailnetIPv6: String? = nil, gatewayTlsEnabled: Bool = false, gatewayTlsFingerprintSha256: String? = nil,
                instanceLabel: String? = nil, hostLabel: String? = nil, tailnetDns: String? = nil, sshPort: Int? = nil,
                cliPath: String? = nil, osHostname: String) {
        self.domain = domain
        self.gatewayPort = gatewayPort
        self.displayName = displayName
        self.tailnetIPv4 = tailnetIPv4
        self.tailnetIPv6 = tailnetIPv6
        self.gatewayTlsEnabled = gatewayTlsEnabled
        self.gatewayTlsFingerprintSha256 = gatewayTlsFingerprintSha256
        self.instanceLabel = instanceLabel
        self.hostLabel = hostLabel
        self.tailnetDns = tailnetDns
        self.sshPort = sshPort
        self.cliPath = cliPath
        self.osHostname = osHostname
    }
}

/// Why zone options cannot make a well-formed zone.
public enum ZoneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The domain cannot be a zone origin (the reason says why).
    case invalidDomain(domain: String, reason: String)
    /// Not an IPv4 (or IPv6) address in strict text form.
    case invalidAddress(field: String, value: String)
    /// A port outside 1…65535.
    case invalidPort(field: String, value: Int)
    /// A value holds a control character, which has no place in a zone-file line.
    case controlCharacter(field: String)
    /// A TXT string is longer than a DNS character-string can be (255 bytes).
    case txtTooLong(key: String, bytes: Int)

    /// A readable form, for messages and logs.
    public var description: String {
        switch self {
        case let .invalidDomain(domain, reason): return "cannot use '\(domain)' as the zone domain: \(reason)"
        case let .invalidAddress(field, value): return "\(field) '\(value)' is not a valid address"
        case let .invalidPort(field, value): return "\(field) \(value) is not a port (1-65535)"
        case let .controlCharacter(field): return "\(field) contains a control character"
        case let .txtTooLong(key, bytes):
            return "the TXT string for \(key) is \(bytes) bytes; DNS allows at most 255"
        }
    }
}

/// What writing a zone would do.
public struct ZoneUpdate: Sendable, Hashable {
    /// The zone text to write (when `changed`) or the text already there.
    public let text: String
    /// The serial in `text` (nil only when an unchanged file's SOA line cannot be read).
    public let serial: UInt32?
    /// Whether the file needs writing: it is missing, or its content hash differs.
    public let changed: Bool
    /// The content hash of the new records.
    public let contentHash: String
}

/// Rendering, hashing and serials of the zone file.
public enum WideAreaZone {
    /// The header before the hash.
    public static let hashPrefix = "; openclaw-content-hash: "
    /// The service labels under the domain.
    public static let serviceLabels = "_openclaw-gw._tcp"
    /// TTL and SOA timers: `$TTL 60`, refresh 7200, retry 3600, expire 1209600, minimum 60.
    static let soaTimers = "7200 3600 1209600 60"

    /// TS `dnsLabel`: trimmed, lowercased, each run of characters outside `[a-z0-9-]` → `-`,
    /// leading and trailing `-` removed, empty → `fallback`, cut to 63 characters.
    public static func dnsLabel(_ raw: String, fallback: String) -> String {
        var out = ""
        var inRun = false
        for scalar in Text.trim(raw).lowercased().unicodeScalars {
            let v = scalar.value
            if (v >= 97 && v <= 122) || (v >= 48 && v <= 57) || v == 45 {
                out.unicodeScalars.append(scalar)
                inRun = false
            } else if !inRun {
                out.append("-")
                inRun = true
            }
        }
        let stripped = String(out.drop(while: { $0 == "-" }).reversed().drop(while: { $0 == "-" }).reversed())
        let label = stripped.isEmpty ? fallback : stripped
        return label.utf16.count <= 63 ? label : String(label.unicodeScalars.prefix(63))
    }

    /// A TXT string in double quotes: `\` → `\\`, `"` → `\"`, newline → `\n` (upstream's rule),
    /// and every other byte outside printable ASCII (other controls, DEL, each byte of a non-ASCII
    /// character) → `\DDD` (RFC 1035 §5.1).
    ///
    /// **Toolkit:** upstream writes non-ASCII raw, which some servers refuse (Knot DNS: "invalid
    /// text character"); `\DDD` is read by every server and decodes to the same bytes. For ASCII
    /// values, which all vectors use, the output is byte-identical to upstream. (Upstream's `\n`
    /// is a quirk — a zone-file parser reads it as the letter n — and ``validate(_:)`` refuses
    /// control characters, so our zones never contain it.)
    public static func txtQuote(_ value: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x20...0x7E: out.append(byte)
            default: out += [UInt8(ascii: "\\"), 48 + byte / 100, 48 + (byte / 10) % 10, 48 + byte % 10]
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// The OS hostname's first label (what the TS code calls `hostname`).
    static func shortHostname(_ osHostname: String) -> String {
        BeaconIdentity.firstLabel(osHostname)
    }

    /// The TXT strings in zone order (unquoted).
    public static func txtStrings(_ options: WideAreaZoneOptions) -> [String] {
        let hostname = shortHostname(options.osHostname)
        let display = Text.trim(options.displayName)
        var txt = [
            "displayName=\(display.isEmpty ? hostname : display)",
            "role=gateway",
            "transport=gateway",
            "gatewayPort=\(options.gatewayPort)",
        ]
        if options.gatewayTlsEnabled {
            txt.append("gatewayTls=1")
            if let fingerprint = options.gatewayTlsFingerprintSha256, !fingerprint.isEmpty {
                txt.append("gatewayTlsSha256=\(fingerprint)")
            }
        }
        if let dns = options.tailnetDns.map(Text.trim), !dns.isEmpty { txt.append("tailnetDns=\(dns)") }
        if let ssh = options.sshPort, ssh > 0 { txt.append("sshPort=\(ssh)") }
        if let cli = options.cliPath.map(Text.trim), !cli.isEmpty { txt.append("cliPath=\(cli)") }
        return txt
    }

    /// The host label the zone uses.
    public static func hostLabel(_ options: WideAreaZoneOptions) -> String {
        dnsLabel(options.hostLabel ?? shortHostname(options.osHostname), fallback: "openclaw")
    }

    /// The instance label the zone uses.
    public static func instanceLabel(_ options: WideAreaZoneOptions) -> String {
        dnsLabel(options.instanceLabel ?? "\(shortHostname(options.osHostname))-gateway", fallback: "openclaw-gw")
    }

    /// The zone origin (`openclaw.internal.`; `local.` when the domain is blank, as upstream).
    public static func origin(_ options: WideAreaZoneOptions) -> String {
        WideAreaDomain.normalize(options.domain) ?? "local."
    }

    /// The record lines, in order, with `serial` written into the SOA line.
    public static func recordLines(_ options: WideAreaZoneOptions, serial: String) -> [String] {
        let host = hostLabel(options)
        let instance = instanceLabel(options)
        var lines = [
            "$ORIGIN \(origin(options))",
            "$TTL 60",
            "@ IN SOA ns1 hostmaster \(serial) \(soaTimers)",
            "@ IN NS ns1",
            "ns1 IN A \(options.tailnetIPv4)",
            "\(host) IN A \(options.tailnetIPv4)",
        ]
        if let v6 = options.tailnetIPv6, !v6.isEmpty { lines.append("\(host) IN AAAA \(v6)") }
        lines.append("\(serviceLabels) IN PTR \(instance).\(serviceLabels)")
        lines.append("\(instance).\(serviceLabels) IN SRV 0 0 \(options.gatewayPort) \(host)")
        lines.append("\(instance).\(serviceLabels) IN TXT " + txtStrings(options).map(txtQuote).joined(separator: " "))
        return lines
    }

    /// 32-bit FNV-1a over the UTF-16 code units of `text` (offset basis 2166136261, prime 16777619).
    public static func fnv1a32UTF16(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for unit in text.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 16_777_619
        }
        return hash
    }

    /// The content hash of the zone: 8 lowercase hex digits.
    public static func contentHash(_ options: WideAreaZoneOptions) -> String {
        let body = recordLines(options, serial: "SERIAL").joined(separator: "\n") + "\n"
        let hex = String(fnv1a32UTF16(body), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// The whole file for `serial`.
    public static func render(_ options: WideAreaZoneOptions, serial: UInt32) -> String {
        hashPrefix + contentHash(options) + "\n" + recordLines(options, serial: String(serial)).joined(separator: "\n") + "\n"
    }

    /// The file name upstream uses: the domain without its trailing dot, plus `.db`.
    public static func fileName(domain: String) -> String {
        var name = WideAreaDomain.normalize(domain) ?? "local."
        name.removeLast()
        return name + ".db"
    }

    // MARK: Serials (RFC 1982)

    /// `YYYYMMDD01` for the UTC date of `nowMs` (truncated to 32 bits past year 4294).
    public static func serialBase(nowMs: Int64) -> UInt32 {
        let days = nowMs >= 0 ? nowMs / 86_400_000 : (nowMs - 86_399_999) / 86_400_000
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let value = (year * 10_000 + month * 100 + day) * 100 + 1
        return UInt32(truncatingIfNeeded: value)
    }

    /// The next serial: today's base when it is ahead of `previous` in RFC 1982 sequence space
    /// (`0 < (base − previous) mod 2^32 < 2^31`), otherwise `previous + 1` (mod 2^32). Without
    /// a previous serial, the base. A previous serial of 0 is a real serial.
    public static func nextSerial(previous: UInt32?, nowMs: Int64) -> UInt32 {
        let base = serialBase(nowMs: nowMs)
        guard let previous else { return base }
        let distance = base &- previous
        return distance > 0 && distance < 0x8000_0000 ? base : previous &+ 1
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
    static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    // MARK: Reading a previous file

    /// Lines split on the JavaScript line terminators (what a multiline `^` sees).
    private static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { "\n\r\u{2028}\u{2029}".contains($0) })
    }

    private static func tokens(_ line: Substring) -> [Substring] {
        line.split(whereSeparator: { $0.unicodeScalars.allSatisfy(Text.isJSWhitespace) })
    }

    /// The serial of the first `@ IN SOA <mname> <rname> <serial> …` line; nil when there is
    /// none or it does not fit 32 bits.
    public static func previousSerial(in text: String) -> UInt32? {
        for line in lines(text) {
            let t = tokens(line)
            guard t.count >= 6, t[0] == "@", t[1] == "IN", t[2] == "SOA" else { continue }
            let digits = t[5]
            guard !digits.isEmpty, digits.utf8.allSatisfy(Text.isASCIIDigit) else { continue }
            return UInt32(digits.drop(while: { $0 == "0" }).isEmpty ? "0" : String(digits.drop(while: { $0 == "0" })))
        }
        return nil
    }

    /// The hash of the first `; openclaw-content-hash: <hash>` line.
    public static func previousContentHash(in text: String) -> String? {
        for line in lines(text) {
            let trimmed = Text.trim(line)
            guard trimmed.hasPrefix(";") else { continue }
            let rest = Text.trim(trimmed.dropFirst())
            let key = "openclaw-content-hash:"
            guard rest.hasPrefix(key) else { continue }
            let value = Text.trim(rest.dropFirst(key.count))
            guard !value.isEmpty, tokens(Substring(value)).count == 1 else { continue }
            return value
        }
        return nil
    }

    /// Whether `text` looks like a zone this writer made (it has the content-hash header).
    public static func isOurZone(_ text: String) -> Bool { previousContentHash(in: text) != nil }

    /// What to write, given the previous file's text (nil when there is none): nothing when its
    /// content hash matches, else a new zone with the next serial after the previous file's.
    public static func update(_ options: WideAreaZoneOptions, existing: String?, nowMs: Int64) -> ZoneUpdate {
        let hash = contentHash(options)
        if let existing, previousContentHash(in: existing) == hash {
            return ZoneUpdate(text: existing, serial: previousSerial(in: existing), changed: false, contentHash: hash)
        }
        let serial = nextSerial(previous: existing.flatMap(previousSerial(in:)), nowMs: nowMs)
        return ZoneUpdate(text: render(options, serial: serial), serial: serial, changed: true, contentHash: hash)
    }

    /// Checks that the options make a well-formed zone: a usable origin, strict IP addresses,
    /// ports in range, no control characters, every TXT string within 255 bytes.
    public static func validate(_ options: WideAreaZoneOptions) throws(ZoneError) {
        let domain = WideAreaDomain.normalize(options.domain) ?? ""
        if let problem = WideAreaDomain.problemAsZoneOrigin(domain) {
            throw .invalidDomain(domain: options.domain, reason: problem)
        }
        guard IPv4Address(options.tailnetIPv4) != nil else {
            throw .invalidAddress(field: "IPv4 address", value: options.tailnetIPv4)
        }
        if let v6 = options.tailnetIPv6, IPv6Address(v6) == nil {
            throw .invalidAddress(field: "IPv6 address", value: v6)
        }
        guard (1...65_535).contains(options.gatewayPort) else { throw .invalidPort(field: "gateway port", value: options.gatewayPort) }
        if let ssh = options.sshPort, !(1...65_535).contains(ssh) { throw .invalidPort(field: "SSH port", value: ssh) }
        let texts: [(String, String?)] = [("display name", options.displayName), ("TLS fingerprint", options.gatewayTlsFingerprintSha256),
                                          ("tailnet DNS name", options.tailnetDns), ("CLI path", options.cliPath),
                                          ("host label", options.hostLabel), ("instance label", options.instanceLabel)]
        for (field, value) in texts {
            if let value, Text.hasControlCharacter(value) { throw .controlCharacter(field: field) }
        }
        for string in txtStrings(options) where string.utf8.count > 255 {
            let key = String(string.prefix(while: { $0 != "=" }))
            throw .txtTooLong(key: key, bytes: string.utf8.count)
        }
    }

    /// The records the zone serves, as DNS records (for checking a server's answers against the
    /// file). Names are absolute under the origin; TTLs are the zone's 60 s.
    public static func records(_ options: WideAreaZoneOptions, serial: UInt32) throws -> [DNSResourceRecord] {
        let origin = try DNSName(origin(options))
        let host = try origin.prepending([Array(hostLabel(options).utf8)])
        let service = try DNSName("\(serviceLabels).\(origin)")
        let instance = try service.prepending([Array(instanceLabel(options).utf8)])
        let ns1 = try origin.prepending([Array("ns1".utf8)])
        guard let v4 = IPv4Address(options.tailnetIPv4) else { throw ZoneError.invalidAddress(field: "IPv4 address", value: options.tailnetIPv4) }
        var records = [
            DNSResourceRecord(name: origin, ttl: 60, data: .soa(SOAData(
                primaryServer: ns1, responsible: try origin.prepending([Array("hostmaster".utf8)]), serial: serial,
                refresh: 7200, retry: 3600, expire: 1_209_600, minimum: 60))),
            DNSResourceRecord(name: origin, ttl: 60, data: .ns(ns1)),
            DNSResourceRecord(name: ns1, ttl: 60, data: .a(v4)),
            DNSResourceRecord(name: host, ttl: 60, data: .a(v4)),
        ]
        if let text = options.tailnetIPv6, let v6 = IPv6Address(text) {
            records.append(DNSResourceRecord(name: host, ttl: 60, data: .aaaa(v6)))
        }
        records.append(DNSResourceRecord(name: service, ttl: 60, data: .ptr(instance)))
        records.append(DNSResourceRecord(name: instance, ttl: 60, data: .srv(SRVData(port: UInt16(clamping: options.gatewayPort), target: host))))
        records.append(DNSResourceRecord(name: instance, ttl: 60, data: .txt(txtStrings(options).map { Array($0.utf8) })))
        return records
    }
}
