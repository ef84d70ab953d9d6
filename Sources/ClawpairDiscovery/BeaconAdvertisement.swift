// What a gateway advertises on the LAN (discovery.md §1, §1.1): instance, host, port and the
// TXT keys, in minimal or full mode. The toolkit's test beacon uses this; a responder turns it
// into PTR/SRV/TXT/A/AAAA records.

import ClawpairDNS

/// How much a beacon tells (`discovery.mdns.mode`).
public enum BeaconMode: String, Sendable, CaseIterable {
    /// Core keys only: no `sshPort`, `cliPath` or `tailnetDns` (the default).
    case minimal
    /// Adds `sshPort`, `cliPath` and `tailnetDns`.
    case full
}

/// The inputs of a beacon.
public struct BeaconOptions: Sendable, Hashable {
    /// The `instanceName` plugin option; nil to derive it from the machine name.
    public var instanceName: String?
    /// The machine display name (Linux: the hostname minus `.local`).
    public var machineName: String
    /// The host label override (`OPENCLAW_MDNS_HOSTNAME`); nil to derive it from `osHostname`.
    public var hostname: String?
    /// The OS hostname.
    public var osHostname: String
    /// The gateway's port (the SRV port, and TXT `gatewayPort`).
    public var gatewayPort: Int
    /// Whether the gateway serves TLS (TXT `gatewayTls=1`).
    public var gatewayTls: Bool
    /// 64 lowercase hex, when TLS is on and the certificate is known.
    public var gatewayTlsFingerprintSha256: String?
    /// The gateway binds a non-loopback address (current builds say so in the TXT).
    public var directlyReachable: Bool
    /// The canvas host port. Retired upstream: kept for source compatibility, never advertised.
    public var canvasPort: Int?
    /// Minimal or full TXT (`discovery.mdns.mode`).
    public var mode: BeaconMode
    /// TXT `tailnetDns`: the tailnet DNS name to advertise, if any.
    public var tailnetDns: String?
    /// TXT `sshPort`: the SSH port to advertise, if any.
    public var sshPort: Int?
    /// TXT `cliPath`: where the `openclaw` CLI lives, if advertised.
    public var cliPath: String?

    /// Options with these values; unset ones take OpenClaw's defaults.
    public init(instanceName: String? = nil, machineName: String, hostname: String? = nil, osHostname: String,
                gatewayPort: Int = BeaconIdentity.defaultPort, gatewayTls: Bool = false,
                gatewayTlsFingerprintSha256: String? = nil, directlyReachable: Bool = true, canvasPort: Int? = nil,
                mode: BeaconMode = .minimal, tailnetDns: String? = nil, sshPort: Int? = nil, cliPath: String? = nil) {
        self.instanceName = instanceName
        self.machineName = machineName
        self.hostname = hostname
        self.osHostname = osHostname
        self.gatewayPort = gatewayPort
        self.gatewayTls = gatewayTls
        self.gatewayTlsFingerprintSha256 = gatewayTlsFingerprintSha256
        self.directlyReachable = directlyReachable
        self.canvasPort = canvasPort
        self.mode = mode
        self.tailnetDns = tailnetDns
        self.sshPort = sshPort
        self.cliPath = cliPath
    }
}

/// A beacon ready to advertise: `<instanceName>._openclaw-gw._tcp.local.` on `<hostLabel>.local:port`.
public struct BeaconAdvertisement: Sendable, Hashable {
    /// The service instance name.
    public let instanceName: String
    /// The host label the service is registered on.
    public let hostLabel: String
    /// The port the SRV record names.
    public let port: Int
    /// TXT pairs in the order they are sent.
    public let txt: [TXTRecord.Entry]

    /// Applies the current advertiser rules to `options`.
    public init(_ options: BeaconOptions) {
        let instance = BeaconIdentity.instanceName(options.instanceName ?? options.machineName)
        var environment: [String: String] = [:]
        if let hostname = options.hostname { environment[BeaconIdentity.hostnameVariable] = hostname }
        let host = BeaconIdentity.hostLabel(osHostname: options.osHostname, environment: environment)
        var pairs: [(String, String)] = [
            ("role", "gateway"),
            ("transport", "gateway"),
            ("displayName", BeaconIdentity.txtDisplayName(instanceName: instance)),
            ("lanHost", "\(host).local"),
            ("gatewayPort", String(options.gatewayPort)),
        ]
        if options.gatewayTls {
            pairs.append(("gatewayTls", "1"))
            if let fingerprint = options.gatewayTlsFingerprintSha256, !fingerprint.isEmpty {
                pairs.append(("gatewayTlsSha256", fingerprint))
            }
        }
        if options.directlyReachable { pairs.append(("gatewayDirectReachable", "1")) }
        // `canvasPort` is retired upstream (no longer in the documented TXT keys): read, never written.
        if options.mode == .full {
            if let dns = options.tailnetDns.map(Text.trim), !dns.isEmpty { pairs.append(("tailnetDns", dns)) }
            let ssh = options.sshPort.flatMap { (1...65_535).contains($0) ? $0 : nil } ?? 22
            pairs.append(("sshPort", String(ssh)))
            if let cli = options.cliPath.map(Text.trim), !cli.isEmpty { pairs.append(("cliPath", cli)) }
        }
        instanceName = instance
        hostLabel = host
        port = options.gatewayPort
        txt = TXTRecord(pairs: pairs).entries
    }

    /// The TXT value of `key`, if sent.
    public func txtValue(_ key: String) -> String? {
        txt.first { Text.lowerASCII($0.key) == Text.lowerASCII(key) }?.stringValue
    }

    /// The records a responder announces for this beacon in `domain` (normally `local.`):
    /// PTR (shared), then SRV, TXT and the host's addresses (unique, cache-flush set).
    public func records(domain: DNSName = try! DNSName("local."), ipv4: [IPv4Address] = [], ipv6: [IPv6Address] = [],
                        ttl: UInt32 = 120, ptrTTL: UInt32 = 4500) throws(DNSError) -> [DNSResourceRecord] {
        let service = try domain.prepending([Array("_openclaw-gw".utf8), Array("_tcp".utf8)])
        let instance = try service.prepending([Array(instanceName.utf8)])
        let host = try domain.prepending([Array(hostLabel.utf8)])
        var records = [
            DNSResourceRecord(name: service, ttl: ptrTTL, data: .ptr(instance)),
            DNSResourceRecord(name: instance, cacheFlush: true, ttl: ttl,
                              data: .srv(SRVData(port: UInt16(clamping: port), target: host))),
            DNSResourceRecord(name: instance, cacheFlush: true, ttl: ptrTTL,
                              data: .txt(txtStrings)),
        ]
        records += ipv4.map { DNSResourceRecord(name: host, cacheFlush: true, ttl: ttl, data: .a($0)) }
        records += ipv6.map { DNSResourceRecord(name: host, cacheFlush: true, ttl: ttl, data: .aaaa($0)) }
        return records
    }

    /// The TXT character-strings.
    public var txtStrings: [[UInt8]] {
        txt.map { Array($0.key.utf8) + ($0.value.map { [UInt8(ascii: "=")] + $0 } ?? []) }
    }
}
