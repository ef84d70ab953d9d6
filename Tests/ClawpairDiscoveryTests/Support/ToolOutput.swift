// Parsers for the text the peer tools print (discovery.md §5, §7): `dns-sd -B/-L` (macOS),
// `avahi-browse -rt` (Linux) and `dig +short`. The toolkit's own backends read the wire
// instead; these give parity with upstream's scans and feed the `discoverParse` vectors.
// Every function is total: lines it does not understand are skipped.
//
// Test support: only DiscoverParseTests reads tool output, so these stay out of the library.

import ClawpairCore
import ClawpairDNS
@testable import ClawpairDiscovery

/// `dns-sd` output.
enum DNSSDOutput {
    /// The instance from a `dns-sd -B` line: lines holding `Add` and the service type; the
    /// instance is the text after `_openclaw-gw._tcp.`, trimmed and `\DDD`-decoded.
    static func browseInstance(_ line: String, serviceType: String = BeaconIdentity.serviceType) -> String? {
        let marker = serviceType + "."
        guard line.contains("Add"), let range = line.firstRange(of: marker) else { return nil }
        let instance = Text.trim(line[range.upperBound...])
        return instance.isEmpty ? nil : BonjourEscapes.decode(instance)
    }

    /// What `dns-sd -L` printed about one instance.
    struct Resolution: Sendable, Hashable {
        var host: String?
        var port: Int?
        var txt: TXTRecord
    }

    /// Reads `… can be reached at <host>:<port>` (trailing dot removed from the host; the port
    /// must be 1–65535, else nil) and the TXT line (one starting with `txt` or containing
    /// `txtvers=`), split on whitespace into `k=v` tokens whose values are `\DDD`-decoded.
    static func resolve(_ lines: [String]) -> Resolution {
        var result = Resolution(host: nil, port: nil, txt: TXTRecord())
        for line in lines {
            if result.host == nil, let range = line.firstRange(of: "can be reached at ") {
                let target = Text.trim(line[range.upperBound...]).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? ""
                if let colon = target.lastIndex(of: ":") {
                    var host = String(target[..<colon])
                    if host.hasSuffix(".") { host.removeLast() }
                    result.host = host.isEmpty ? nil : host
                    result.port = TXTRecord.parsePort(String(target[target.index(after: colon)...]))
                }
            } else if Text.trim(line).hasPrefix("txt") || line.contains("txtvers=") {
                result.txt = txtTokens(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init))
            }
        }
        return result
    }

    /// `k=v` tokens to a TXT record: tokens without `=` are skipped, values `\DDD`-decoded.
    static func txtTokens(_ tokens: [String]) -> TXTRecord {
        var record = TXTRecord()
        for token in tokens {
            guard let equals = token.firstIndex(of: "="), equals != token.startIndex else { continue }
            let value = BonjourEscapes.decode(String(token[token.index(after: equals)...]))
            let string = Array(token[..<equals].utf8) + [UInt8(ascii: "=")] + Array(value.utf8)
            if string.count <= 255 { record.add(string) }
        }
        return record
    }
}

/// `avahi-browse -rt` output (human form).
enum AvahiBrowseOutput {
    /// One resolved service.
    struct Service: Sendable, Hashable {
        var instanceName: String
        var host: String?
        var port: Int?
        var txt: TXTRecord
    }

    /// Reads `=` lines (instance = the tokens from the 4th on, before the service type,
    /// `\DDD`-decoded) and the `hostname = [h]`, `port = [p]`, `txt = ["k=v" …]` lines after them.
    static func parse(_ lines: [String], serviceType: String = BeaconIdentity.serviceType) -> [Service] {
        var services: [Service] = []
        for line in lines {
            let trimmed = Text.trim(line)
            if trimmed.hasPrefix("="), trimmed.contains(serviceType) {
                let tokens = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                guard let typeIndex = tokens.firstIndex(where: { $0.hasPrefix(serviceType) }), typeIndex > 3 else { continue }
                let instance = BonjourEscapes.decode(tokens[3..<typeIndex].joined(separator: " "))
                services.append(Service(instanceName: instance, host: nil, port: nil, txt: TXTRecord()))
                continue
            }
            guard !services.isEmpty, let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = Text.trim(trimmed[..<equals])
            var value = Text.trim(trimmed[trimmed.index(after: equals)...])
            guard value.hasPrefix("["), value.hasSuffix("]"), value.count >= 2 else { continue }
            value = String(value.dropFirst().dropLast())
            switch key {
            case "hostname":
                services[services.count - 1].host = value.hasSuffix(".") ? String(value.dropLast()) : value
            case "port":
                services[services.count - 1].port = TXTRecord.parsePort(value)
            case "txt":
                services[services.count - 1].txt = TXTRecord(strings: QuotedStrings.parse(value))
            default:
                break
            }
        }
        return services
    }
}

/// `dig +short` answers.
enum DigOutput {
    /// A PTR answer (`studio-gateway._openclaw-gw._tcp.openclaw.internal.`) to the instance name
    /// (`studio-gateway`): the name must end in `.<service type>.<domain>` (ASCII case ignored);
    /// the rest is read in presentation form (`\032`, `\.`) as one label.
    static func instanceName(fromPTR answer: String, domain: String,
                                    serviceType: String = BeaconIdentity.serviceType) -> String? {
        var text = Text.trim(answer)
        if text.hasSuffix(".") { text.removeLast() }
        var zone = domain
        if zone.hasSuffix(".") { zone.removeLast() }
        let suffix = "." + serviceType + "." + zone
        guard Text.hasSuffixIgnoringASCIICase(text, suffix) else { return nil }
        let escaped = Text.dropSuffixIgnoringASCIICase(text, suffix)
        guard let name = try? DNSName(escaped), name.labelCount == 1, let label = name.firstLabel else { return nil }
        return String(decoding: label, as: UTF8.self)
    }

    /// An SRV answer `priority weight port target`; the target loses its trailing dot.
    static func srv(_ answer: String) -> (priority: Int, weight: Int, port: Int?, target: String)? {
        let tokens = Text.trim(answer).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard tokens.count == 4, let priority = Int(tokens[0]), let weight = Int(tokens[1]) else { return nil }
        var target = tokens[3]
        if target.hasSuffix(".") { target.removeLast() }
        return (priority, weight, TXTRecord.parsePort(tokens[2]), target)
    }

    /// A TXT answer: its quoted strings, unquoted and unescaped.
    static func txt(_ answer: String) -> TXTRecord {
        TXTRecord(strings: QuotedStrings.parse(answer))
    }
}

/// Double-quoted character-strings as `dig` and `avahi-browse` print them: `\"`, `\\` and
/// `\X` stand for the character, `\DDD` for a byte; unquoted words count as strings too.
enum QuotedStrings {
    static func parse(_ text: String) -> [[UInt8]] {
        let bytes = Array(text.utf8)
        var strings: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") {
                i += 1
                continue
            }
            let quoted = bytes[i] == UInt8(ascii: "\"")
            if quoted { i += 1 }
            var current: [UInt8] = []
            while i < bytes.count {
                let c = bytes[i]
                if quoted && c == UInt8(ascii: "\"") { i += 1; break }
                if !quoted && (c == UInt8(ascii: " ") || c == UInt8(ascii: "\t")) { break }
                if c == UInt8(ascii: "\\"), i + 1 < bytes.count {
                    if i + 3 < bytes.count, Text.isASCIIDigit(bytes[i + 1]), Text.isASCIIDigit(bytes[i + 2]),
                       Text.isASCIIDigit(bytes[i + 3]) {
                        let value = Int(bytes[i + 1] - 48) * 100 + Int(bytes[i + 2] - 48) * 10 + Int(bytes[i + 3] - 48)
                        if value <= 255 {
                            current.append(UInt8(value))
                            i += 4
                            continue
                        }
                    }
                    current.append(bytes[i + 1])
                    i += 2
                    continue
                }
                current.append(c)
                i += 1
            }
            if current.count <= 255 { strings.append(current) }
        }
        return strings
    }
}

/// One peer-tool invocation of a scan and its time budget.
struct ToolCommand: Sendable, Hashable {
    let argv: [String]
    /// The budget for this one step: `--timeout` applies per browse/resolve step, not in total.
    let timeoutMs: Int
}

/// The commands upstream's tool-based scan runs (discovery.md §5), for parity checks and for a
/// tool-based backend: browse every domain, then resolve each instance one at a time.
enum ToolScan {
    /// Which peer tools exist.
    enum Platform: String, Sendable {
        /// `dns-sd` (macOS).
        case darwin
        /// `avahi-browse` (Linux).
        case linux
    }

    /// The browse commands, one per domain (`local.` first, then the wide-area domain).
    static func browseCommands(platform: Platform, domains: [String], timeoutMs: Int,
                                      serviceType: String = BeaconIdentity.serviceType) -> [ToolCommand] {
        domains.map { domain in
            switch platform {
            case .darwin:
                return ToolCommand(argv: ["dns-sd", "-B", serviceType, domain], timeoutMs: timeoutMs)
            case .linux:
                var argv = ["avahi-browse", "-rt", serviceType]
                if !WideAreaDomain.same(domain, "local.") {
                    argv += ["-d", domain.hasSuffix(".") ? String(domain.dropLast()) : domain]
                }
                return ToolCommand(argv: argv, timeoutMs: timeoutMs)
            }
        }
    }

    /// The `dns-sd -L` command for one instance (Linux resolves while browsing, with `-r`).
    static func resolveCommand(instance: String, domain: String, timeoutMs: Int,
                                      serviceType: String = BeaconIdentity.serviceType) -> ToolCommand {
        ToolCommand(argv: ["dns-sd", "-L", instance, serviceType, domain], timeoutMs: timeoutMs)
    }
}
