import ClawpairCLIKit
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairSetupCode

/// `clawpair zone`: writes the wide-area DNS-SD zone file of a gateway beacon, in the exact
/// format OpenClaw gateways write (`discovery.md` §4.1).
struct ZoneCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "zone",
        abstract: "Write a wide-area DNS-SD zone file for a gateway beacon",
        discussion: [
            "Writes the zone a gateway publishes for wide-area (unicast) discovery, byte-for-byte in OpenClaw's "
                + "format: a content-hash header, SOA and NS records, A (and AAAA) records for the host, and the "
                + "_openclaw-gw._tcp PTR, SRV and TXT records. Apps and 'openclaw gateway discover' find the gateway "
                + "by browsing the domain, typically over Tailscale with split DNS.",
            "The file is replaced atomically (temporary file, fsync, rename; mode 0644: a zone is public). When the "
                + "records are unchanged (same content hash) the file is left alone and the command says 'unchanged'. "
                + "Otherwise the SOA serial is today's YYYYMMDD01 (UTC) when that is ahead of the previous file's serial "
                + "in RFC 1982 arithmetic, else the previous serial plus one, so secondaries always see it advance.",
            "Labels default to this machine's hostname, as the gateway's (LABELS in 'man clawpair-zone'). TXT values "
                + "are hints only: clients route to the SRV target and port.",
            "One deliberate difference from OpenClaw: bytes outside printable ASCII in TXT values (a display name "
                + "with accents or emoji) are written as \\DDD escapes, which every DNS server reads; OpenClaw writes "
                + "them raw, and Knot DNS refuses to load such a zone.",
        ],
        options: [
            .value("domain", "DOMAIN", help: "The wide-area discovery domain, e.g. openclaw.internal (required)."),
            .value("ipv4", "ADDRESS", help: "The gateway's tailnet IPv4 address, served for the host and ns1 (required)."),
            .value("ipv6", "ADDRESS", help: "The gateway's tailnet IPv6 address, served as the host's AAAA record."),
            .value("port", "PORT", help: "The gateway port, in the SRV and TXT records (default 18789)."),
            .value("display-name", "NAME", help: "The TXT displayName (default: '<hostname> (OpenClaw)')."),
            .value("host-label", "LABEL", help: "The host's label in the zone (default: this machine's hostname)."),
            .value("instance-label", "LABEL", help: "The service instance label (default: <hostname>-gateway)."),
            .flag("tls", help: "Advertise that the gateway serves TLS (gatewayTls=1): clients connect with wss://."),
            .value("tls-fingerprint", "SHA256", help: "Advertise the SHA-256 of the gateway's certificate (implies --tls; "
                   + "64 hex digits or colon-separated pairs). A hint only: clients pin what they verify."),
            .value("tailnet-dns", "NAME", help: "The gateway's MagicDNS name for the TXT tailnetDns (default: "
                   + "OPENCLAW_TAILNET_DNS)."),
            .value("mode", "MODE", help: "minimal (default) or full; full adds sshPort and cliPath.",
                   completion: .values(["minimal", "full"])),
            .value("ssh-port", "PORT", help: "The SSH port for the TXT sshPort with --mode full (default: "
                   + "OPENCLAW_SSH_PORT, else 22)."),
            .value("cli-path", "PATH", help: "The openclaw CLI path for the TXT cliPath with --mode full (default: "
                   + "openclaw found on PATH).", completion: .file),
            .value("output", short: "o", "FILE", help: "Where to write the zone (default: <domain>.db in the current "
                   + "directory; - prints it to standard output).", completion: .file),
            .flag("force", help: "Replace FILE even when it is not a zone written by clawpair or OpenClaw."),
        ],
        examples: [
            Example("clawpair zone --domain openclaw.internal --ipv4 100.123.224.76 --ipv6 fd7a:115c:a1e0::8801:e04c",
                    "Write openclaw.internal.db for this machine's gateway"),
            Example("clawpair zone --domain openclaw.internal --ipv4 100.123.224.76 --tls-fingerprint \"$FP\" "
                        + "-o /var/lib/knot/openclaw.internal.db",
                    "A TLS gateway, written where the DNS server reads it"),
        ],
        sections: [
            .inManSource("LABELS"),
            .inManSource("JSON OUTPUT"),
            .inManSource("SERVING THE ZONE"),
            .inManSource("ENVIRONMENT"),
        ],
        runner: ZoneCommand.runner
    )

    let options: WideAreaZoneOptions
    let output: String
    let force: Bool

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        let rawDomain = try arguments.required("domain", example: "openclaw.internal")
        guard let domain = WideAreaDomain.normalize(rawDomain) else { throw UsageError("--domain is empty") }
        if let problem = WideAreaDomain.problemAsZoneOrigin(domain) {
            throw UsageError("cannot use '\(rawDomain)' as the zone domain: \(problem)")
        }
        guard let ipv4 = try arguments.parsed("ipv4", isNot: "an IPv4 address", hint: "give dotted decimal, e.g. 100.123.224.76",
                                              IPv4Address.init) else {
            throw UsageError("--ipv4 is required", hint: "e.g. --ipv4 100.123.224.76")
        }
        let ipv6 = try arguments.parsed("ipv6", isNot: "an IPv6 address",
                                        hint: "e.g. fd7a:115c:a1e0::8801:e04c (no brackets or zone)", IPv6Address.init)
        let port = try arguments.port("port") ?? BeaconIdentity.defaultPort
        let fingerprint = try arguments.parsed("tls-fingerprint", TLSFingerprint.normalize) { _ in
            UsageError("--tls-fingerprint is not a SHA-256 fingerprint",
                       hint: "give 64 hex digits or 32 colon-separated pairs, optionally prefixed sha256:")
        }
        let mode = try arguments.parsed("mode", isNot: "minimal or full") { BeaconMode(rawValue: $0) } ?? .minimal
        if mode != .full {
            for name in ["ssh-port", "cli-path"] where arguments.value(name) != nil {
                throw UsageError("--\(name) is only written with --mode full", hint: "add --mode full, or leave --\(name) out")
            }
        }
        options = .gateway(
            domain: domain, tailnetIPv4: ipv4.description, tailnetIPv6: ipv6?.description,
            gatewayPort: port, displayName: arguments.value("display-name"),
            tls: arguments.flag("tls"), tlsFingerprint: fingerprint, instanceLabel: arguments.value("instance-label"),
            hostLabel: arguments.value("host-label"), tailnetDns: arguments.value("tailnet-dns"), mode: mode,
            sshPort: try arguments.port("ssh-port"), cliPath: arguments.value("cli-path"),
            osHostname: HostName.current(fallback: "openclaw"), environment: context.environment)
        do { try WideAreaZone.validate(options) } catch { throw UsageError(error.description) }
        output = arguments.value("output") ?? WideAreaZone.fileName(domain: domain)
        force = arguments.flag("force")
        if output == "-" && context.globals.json {
            throw UsageError("--json describes a written file; with -o - the zone itself is the output",
                             hint: "leave out --json, or give a file with -o")
        }
        if output.isEmpty { throw UsageError("-o needs a file name, or - for standard output") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        for advisory in WideAreaZone.advisories(options) { context.note("note: " + advisory) }
        if output == "-" {
            context.stdout.write(WideAreaZone.update(options, existing: nil, nowMs: context.nowMs).text)
            return .success
        }
        let update: ZoneUpdate
        do {
            update = try WideAreaZone.write(options, to: output, replacingForeign: force, nowMs: context.nowMs)
        } catch let error as ZoneFileError {
            throw GeneralError(error.description, hint: "pass --force to replace it, or choose another file with -o")
        }
        if context.globals.json {
            context.printJSON(update.json(path: output, options: options))
            return .success
        }
        guard !context.globals.quiet else { return .success }
        context.print(update.summary(path: output))
        if context.stderrIsTTY {
            context.note(context.errorStyle.dim("Next: serve it for \(WideAreaZone.origin(options)) on \(options.tailnetIPv4) "
                + "and add split DNS in Tailscale (see SERVING THE ZONE in 'man clawpair-zone')."))
        }
        return .success
    }
}
