// A discovered gateway (discovery.md §5, §6): what the browse/resolve steps found, the one
// endpoint it may be reached at, dedupe and sort, and the `discover --json` shape.
//
// TXT values are unauthenticated hints and are kept exactly as received (after `\DDD` decoding
// for text sources); printing them on a terminal needs `TerminalText.sanitize`. Only the
// resolved SRV host and port ever route.

import ClawpairCore
import ClawpairDNS
import ClawpairSetupCode

/// One gateway beacon, as `openclaw gateway discover` reports it.
public struct GatewayBeacon: Sendable, Hashable {
    /// The service instance name, decoded (`Peter’s Mac Studio Gateway`).
    public var instanceName: String
    /// The browse domain with its trailing dot: `local.` or the wide-area domain.
    public var domain: String
    /// The TXT `displayName` (as received), else the instance name (the TS CLI rule).
    public var displayName: String
    /// The resolved SRV target, trailing dot removed.
    public var host: String?
    /// The resolved SRV port, when in 1…65535.
    public var port: Int?
    /// TXT `lanHost`: a LAN host name hint (never routes).
    public var lanHost: String?
    /// TXT `tailnetDns`: the gateway's tailnet DNS name hint (never routes).
    public var tailnetDns: String?
    /// TXT `gatewayPort`: the gateway's port as advertised (never routes).
    public var gatewayPort: Int?
    /// TXT `sshPort`: the SSH port of the gateway host.
    public var sshPort: Int?
    /// TXT `gatewayTls`: whether the gateway serves TLS (`wss://`).
    public var gatewayTls: Bool
    /// TXT `gatewayTlsSha256`: the certificate fingerprint the beacon advertises (unauthenticated: never a pin).
    public var gatewayTlsFingerprintSha256: String?
    /// TXT `gatewayDirectReachable` (1/true/yes): the gateway binds a non-loopback address, so
    /// its LAN address may be dialled directly. Upstream publishes it in mDNS beacons too since
    /// 2026 (`docs/gateway/bonjour.md`; gateway start passes `!isLoopbackHost(bindHost)`), not only in
    /// wide-area zones. An unauthenticated hint, like every TXT value.
    public var gatewayDirectReachable: Bool
    /// TXT `cliPath`: where the `openclaw` CLI lives on the gateway host.
    public var cliPath: String?
    /// The role (`operator` or `node`).
    public var role: String?
    /// TXT `transport`: the gateway's transport (`gateway`).
    public var transport: String?
    /// Every TXT entry.
    public var txt: TXTRecord

    /// Builds a beacon from a resolved service. `host` loses one trailing dot; a port outside
    /// 1…65535 is dropped; TXT fields are read with the rules of ``TXTRecord`` (an empty value
    /// counts as missing, ports must be valid, `gatewayTls` is 1/true/yes).
    public init(instanceName: String, domain: String = "local.", host: String?, port: Int?, txt: TXTRecord) {
        func field(_ key: String) -> String? {
            guard let value = txt.value(key), !value.isEmpty else { return nil }
            return value
        }
        self.instanceName = instanceName
        self.domain = domain
        self.displayName = field("displayName") ?? instanceName
        var resolved = host
        if let h = resolved, h.hasSuffix(".") { resolved = String(h.dropLast()) }
        self.host = resolved?.isEmpty == false ? resolved : nil
        self.port = port.flatMap { (1...65_535).contains($0) ? $0 : nil }
        self.lanHost = field("lanHost")
        self.tailnetDns = field("tailnetDns")
        self.gatewayPort = txt.portValue("gatewayPort")
        self.sshPort = txt.portValue("sshPort")
        self.gatewayTls = txt.boolValue("gatewayTls")
        self.gatewayTlsFingerprintSha256 = field("gatewayTlsSha256")
        self.gatewayDirectReachable = txt.boolValue("gatewayDirectReachable")
        self.cliPath = field("cliPath")
        self.role = field("role")
        self.transport = field("transport")
        self.txt = txt
    }

    /// Builds a beacon from DNS records: the PTR target names the instance (its first label,
    /// raw bytes as UTF-8), the SRV gives host and port, the TXT the hints. Names off the wire
    /// are raw already, so nothing is `\DDD`-decoded. The host is the SRV target in
    /// presentation form, so a label holding a dot or other odd bytes shows escaped (and then
    /// does not route). The SRV target `.` means "no service here".
    public init(instance: DNSName, domain: String, srv: SRVData?, txt: [[UInt8]]?) {
        let label = instance.firstLabel.map { String(decoding: $0, as: UTF8.self) } ?? ""
        var host: String?
        if let target = srv?.target, !target.isRoot { host = target.description }
        self.init(instanceName: label, domain: domain, host: host, port: srv.map { Int($0.port) },
                  txt: TXTRecord(strings: txt ?? []))
    }

    /// `displayName`, else the instance name, else `Gateway`.
    public var title: String {
        if !displayName.isEmpty { return displayName }
        return instanceName.isEmpty ? "Gateway" : instanceName
    }

    /// The endpoint to dial, or nil when the beacon did not resolve to a usable host and port.
    public var endpoint: BeaconEndpoint? { BeaconEndpoint(beacon: self) }

    /// `[user@]host`, with `:port` only when the SSH port is not 22; nil without a resolved host.
    public func sshTarget(user: String? = nil) -> String? {
        guard let host = endpoint?.host else { return nil }
        var target = (user.map { "\($0)@" } ?? "") + host
        if let ssh = sshPort, ssh != 22 { target += ":\(ssh)" }
        return target
    }

    /// `<title> (<host>:<port>)`, the label onboarding shows; nil without an endpoint.
    public var onboardingLabel: String? {
        endpoint.map { "\(title) (\($0.host):\($0.port))" }
    }

    /// The TS dedupe key: `domain|instanceName|displayName|host|port|gatewayPort`.
    public var dedupeKey: String {
        [domain, instanceName, displayName, host ?? "", port.map(String.init) ?? "", gatewayPort.map(String.init) ?? ""]
            .joined(separator: "|")
    }

    /// Drops later beacons with the same ``dedupeKey`` (the first wins; a gateway seen in two
    /// domains stays twice, as in the TS CLI).
    public static func deduplicated(_ beacons: [GatewayBeacon]) -> [GatewayBeacon] {
        var seen = Set<String>()
        return beacons.filter { seen.insert($0.dedupeKey).inserted }
    }

    /// What ``sorted(_:)`` orders beacons by: `displayName || instanceName`, lowercased
    /// (Unicode), compared by code points.
    public struct SortKey: Sendable, Hashable, Comparable {
        let scalars: [Unicode.Scalar]

        /// Code-point order of the lowercased names.
        public static func < (a: SortKey, b: SortKey) -> Bool {
            a.scalars.lexicographicallyPrecedes(b.scalars)
        }
    }

    /// This beacon's ``SortKey``.
    public var sortKey: SortKey {
        SortKey(scalars: Array((displayName.isEmpty ? instanceName : displayName).lowercased().unicodeScalars))
    }

    /// Sorted by `displayName || instanceName`, case-insensitively (Unicode lowercase, then
    /// code-point order), keeping the input order among equals.
    public static func sorted(_ beacons: [GatewayBeacon]) -> [GatewayBeacon] {
        sorted(beacons, by: \.sortKey)
    }

    /// `items` in the order of their ``SortKey``s (each read once), keeping the input order among
    /// equals: ``sorted(_:)`` for whatever carries a beacon's key.
    public static func sorted<Item>(_ items: [Item], by key: (Item) -> SortKey) -> [Item] {
        let keys = items.map(key)
        return items.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }.map { items[$0] }
    }

    /// The beacon as discover JSON carries it (upstream's `openclaw gateway discover --json`
    /// shape): the upstream fields in upstream order, absent values as `null`, `txt` as an
    /// object (a bare key without `=` is `true`), and `wsUrl` from ``endpoint`` (so `wss://`
    /// when `gatewayTls`, `null` when unresolved — upstream always prints `ws://`).
    public var json: JSONValue {
        func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
        return .object([
            ("instanceName", .string(instanceName)),
            ("domain", .string(domain)),
            ("displayName", .string(displayName)),
            ("host", string(host)),
            ("port", int(port)),
            ("lanHost", string(lanHost)),
            ("tailnetDns", string(tailnetDns)),
            ("gatewayPort", int(gatewayPort)),
            ("sshPort", int(sshPort)),
            ("gatewayTls", .bool(gatewayTls)),
            ("gatewayTlsFingerprintSha256", string(gatewayTlsFingerprintSha256)),
            ("gatewayDirectReachable", .bool(gatewayDirectReachable)),
            ("cliPath", string(cliPath)),
            ("role", string(role)),
            ("transport", string(transport)),
            ("txt", .object(txt.entries.map { ($0.key, $0.stringValue.map(JSONValue.string) ?? .bool(true)) })),
            ("wsUrl", string(endpoint?.url)),
        ])
    }

    /// The whole discover JSON document.
    public static func discoverJSON(timeoutMs: Int, domains: [String], beacons: [GatewayBeacon]) -> JSONValue {
        .object([
            ("timeoutMs", .int(Int64(timeoutMs))),
            ("domains", .array(domains.map(JSONValue.string))),
            ("count", .int(Int64(beacons.count))),
            ("beacons", .array(beacons.map(\.json))),
        ])
    }
}

/// Where a beacon may be dialed: only its resolved SRV host and port (discovery.md §6). TXT
/// `lanHost`, `tailnetDns` and `gatewayPort` never route.
public struct BeaconEndpoint: Sendable, Hashable {
    /// The resolved SRV host, trailing dot removed.
    public let host: String
    /// The resolved SRV port.
    public let port: Int
    /// Whether to use TLS (`wss://`).
    public let tls: Bool
    /// TXT `gatewayTlsSha256`: the certificate fingerprint the beacon advertises (unauthenticated: never a pin).
    public let gatewayTlsFingerprintSha256: String?

    /// Nil (fail closed) unless the beacon has a non-empty host and a port in 1…65535, and the
    /// host is something a URL can carry unambiguously: an IPv4 or IPv6 literal, or a name of
    /// ASCII letters, digits, `-`, `_` and dots. (An SRV target is raw label bytes; a `/`, `@`
    /// or space in one would make the URL point somewhere else.)
    public init?(beacon: GatewayBeacon) {
        guard let host = beacon.host, !host.isEmpty, let port = beacon.port, (1...65_535).contains(port),
              Self.isRoutableHost(host) else { return nil }
        self.host = host
        self.port = port
        self.tls = beacon.gatewayTls
        self.gatewayTlsFingerprintSha256 = beacon.gatewayTlsFingerprintSha256
    }

    static func isRoutableHost(_ host: String) -> Bool {
        let bytes = host.utf8
        if bytes.contains(UInt8(ascii: ":")) { return IPv6Address(host) != nil }
        guard bytes.count <= 253, bytes.first != UInt8(ascii: "."), bytes.first != UInt8(ascii: "-") else { return false }
        var previous: UInt8 = 0
        for b in bytes {
            guard Text.isASCIIDigit(b) || (b | 0x20 >= 97 && b | 0x20 <= 122) || b == UInt8(ascii: "-")
                || b == UInt8(ascii: "_") || b == UInt8(ascii: ".") else { return false }
            if b == UInt8(ascii: "."), previous == b { return false }  // an empty label
            previous = b
        }
        return true
    }

    /// `wss` with TLS, else `ws`.
    public var scheme: String { tls ? "wss" : "ws" }

    /// `scheme://host:port`, IPv6 hosts in brackets.
    public var url: String {
        let shown = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(scheme)://\(shown):\(port)"
    }

    /// Whether connecting is allowed without an explicit insecure override: TLS, or a
    /// plaintext host the pairing policy accepts (loopback, private LAN, link-local, `.local`).
    public var mayConnect: Bool { tls || PlaintextPolicy.allowsPlaintext(host: host) }
}
