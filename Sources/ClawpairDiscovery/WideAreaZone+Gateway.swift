// The zone of this machine's gateway with the defaults the gateway itself applies (discovery.md
// §4.1, `WideAreaGatewayZoneOpts` filled in by the gateway's start-up), and a written zone's
// record for printing: its JSON (clawpair-zone(1) JSON OUTPUT) and its one-line summary.

import ClawpairCore

extension WideAreaZoneOptions {
    /// The environment variable that gives `tailnetDns` when the caller gives none.
    public static let tailnetDnsVariable = "OPENCLAW_TAILNET_DNS"

    /// Options for the gateway on the machine named `osHostname`, filling in what is not given
    /// the way the gateway does: the display name `<hostname> (OpenClaw)`
    /// (``BeaconIdentity/instanceName(_:)`` of ``BeaconIdentity/machineDisplayName(osHostname:)``),
    /// `tailnetDns` from ``tailnetDnsVariable``, TLS whenever a fingerprint is given, and in
    /// ``BeaconMode/full`` mode `sshPort` from ``BeaconIdentity/defaultSSHPort(environment:)``
    /// and `cliPath` from ``BeaconIdentity/defaultCLIPath(environment:)``. In minimal mode
    /// `sshPort` and `cliPath` are left out whatever is given. Values are taken as given: check
    /// the result with ``WideAreaZone/validate(_:)``.
    public static func gateway(domain: String, tailnetIPv4: String, tailnetIPv6: String? = nil,
                               gatewayPort: Int = BeaconIdentity.defaultPort, displayName: String? = nil, tls: Bool = false,
                               tlsFingerprint: String? = nil, instanceLabel: String? = nil, hostLabel: String? = nil,
                               tailnetDns: String? = nil, mode: BeaconMode = .minimal, sshPort: Int? = nil,
                               cliPath: String? = nil, osHostname: String, environment: [String: String]) -> WideAreaZoneOptions {
        let full = mode == .full
        return WideAreaZoneOptions(
            domain: domain, gatewayPort: gatewayPort,
            displayName: displayName ?? BeaconIdentity.instanceName(BeaconIdentity.machineDisplayName(osHostname: osHostname)),
            tailnetIPv4: tailnetIPv4, tailnetIPv6: tailnetIPv6, gatewayTlsEnabled: tls || tlsFingerprint != nil,
            gatewayTlsFingerprintSha256: tlsFingerprint, instanceLabel: instanceLabel, hostLabel: hostLabel,
            tailnetDns: tailnetDns ?? environment[tailnetDnsVariable],
            sshPort: full ? sshPort ?? BeaconIdentity.defaultSSHPort(environment: environment) : nil,
            cliPath: full ? cliPath ?? BeaconIdentity.defaultCLIPath(environment: environment) : nil,
            osHostname: osHostname)
    }
}

extension ZoneUpdate {
    /// The update of the zone of `options` written to `path`, as clawpair-zone(1) prints it:
    /// `{"path", "domain" (the origin, with its trailing dot), "serial" (null when unreadable),
    /// "changed", "contentHash", "records": [{"name", "type", "data"}]}`, records in file order.
    public func json(path: String, options: WideAreaZoneOptions) -> JSONValue {
        .object([
            ("path", .string(path)),
            ("domain", .string(WideAreaZone.origin(options))),
            ("serial", serial.map { .int(Int64($0)) } ?? .null),
            ("changed", .bool(changed)),
            ("contentHash", .string(contentHash)),
            ("records", .array(WideAreaZone.recordFields(options, serial: serial).map { record in
                .object([("name", .string(record.name)), ("type", .string(record.type)), ("data", .string(record.data))])
            })),
        ])
    }

    /// One line saying what happened to the file at `path`: `Wrote PATH (serial S, content hash
    /// H)`, or `PATH unchanged (…)` when the content hash matched (serial `unreadable` when the
    /// unchanged file's SOA line could not be read).
    public func summary(path: String) -> String {
        let details = "(serial \(serial.map(String.init) ?? "unreadable"), content hash \(contentHash))"
        return changed ? "Wrote \(path) \(details)" : "\(path) unchanged \(details)"
    }
}
