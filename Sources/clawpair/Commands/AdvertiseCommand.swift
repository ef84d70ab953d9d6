#if canImport(Glibc)
import Glibc
#endif
import ClawpairAvahi
import ClawpairCLIKit
import ClawpairCore
import ClawpairDiscovery
import ClawpairSetupCode

/// `clawpair advertise`: publishes a gateway beacon through the system's avahi-daemon.
struct AdvertiseCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "advertise",
        abstract: "Advertise an OpenClaw gateway beacon on the local network through avahi-daemon",
        discussion: [
            "Registers _openclaw-gw._tcp with the instance name and TXT keys OpenClaw gateways use (role, "
                + "transport, displayName, lanHost, gatewayPort, gatewayTls, gatewayTlsSha256, and in full mode "
                + "sshPort, tailnetDns, cliPath), and keeps it up until interrupted (SIGINT or SIGTERM), then "
                + "withdraws it so browsers see it leave at once.",
            "If another host already uses the name, avahi-daemon picks a new one; the name actually registered "
                + "is printed. Needs a running avahi-daemon (systemctl start avahi-daemon).",
        ],
        options: [
            .value("port", "PORT", help: "The gateway's WebSocket port (required)."),
            .value("name", "NAME", help: "The instance name (default: this machine's hostname). As gateways do, \" (OpenClaw)\" is "
                   + "appended unless the name mentions OpenClaw, and it is cut to 63 bytes."),
            .value("display-name", "TEXT", help: "The TXT displayName (default: the instance name without its suffix)."),
            .flag("tls", help: "Advertise that the gateway serves TLS (gatewayTls=1)."),
            .value("tls-fingerprint", "SHA256", help: "The gateway certificate's SHA-256 (implies --tls); clients treat it "
                   + "as an unauthenticated hint."),
            .value("mode", "MODE", help: "minimal (default) or full (adds sshPort, tailnetDns, cliPath).",
                   completion: .values(BeaconMode.allCases.map(\.rawValue))),
            .value("ssh-port", "PORT", help: "The SSH port advertised in full mode (default 22)."),
            .value("tailnet-dns", "NAME", help: "The tailnet DNS name advertised in full mode."),
            .repeated("txt", "KEY=VALUE", help: "An extra TXT entry, or one that replaces a standard key."),
        ],
        examples: [
            Example("clawpair advertise --port 18789", "Advertise a plaintext gateway on this machine"),
            Example("clawpair advertise --port 18789 --tls-fingerprint \"$(cat fingerprint.txt)\" --mode full",
                    "Advertise a TLS gateway with its certificate fingerprint and SSH hints"),
        ],
        sections: [
            DocSection("JSON OUTPUT", [
                "With --json, one object per line: {\"event\": \"registered\", \"name\", \"requestedName\", \"port\", "
                    + "\"txt\": {...}} once the daemon confirms, and {\"event\": \"withdrawn\", \"name\"} on exit.",
            ]),
        ],
        runner: AdvertiseCommand.runner
    )

    let port: UInt16
    let advertisement: BeaconAdvertisement
    let txt: [(key: String, value: String)]

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        func portValue(_ option: String) throws -> Int? {
            guard let text = arguments.value(option) else { return nil }
            guard let value = Int(text), (1...65_535).contains(value) else {
                throw UsageError("--\(option) '\(TerminalText.sanitize(text, maxScalars: 32))' is not a port (1-65535)")
            }
            return value
        }
        guard let port = try portValue("port") else { throw UsageError("--port is required", hint: "e.g. --port 18789") }
        self.port = UInt16(port)
        var fingerprint: String?
        if let text = arguments.value("tls-fingerprint") {
            guard let normalized = TLSFingerprint.normalize(text) else {
                throw UsageError("--tls-fingerprint is not a SHA-256 fingerprint", hint: "give 64 hex digits, optionally as colon-separated pairs")
            }
            fingerprint = normalized
        }
        let modeName = arguments.value("mode") ?? "minimal"
        guard let mode = BeaconMode(rawValue: modeName) else {
            throw UsageError("unknown mode '\(TerminalText.sanitize(modeName, maxScalars: 32))'", hint: "use minimal or full")
        }
        let host = HostName.current(fallback: "openclaw")
        let machine = host.lowercased().hasSuffix(".local") ? String(host.dropLast(6)) : host
        advertisement = BeaconAdvertisement(BeaconOptions(
            instanceName: arguments.value("name"), machineName: machine, osHostname: host, gatewayPort: port,
            gatewayTls: arguments.flag("tls") || fingerprint != nil, gatewayTlsFingerprintSha256: fingerprint, mode: mode,
            tailnetDns: arguments.value("tailnet-dns"), sshPort: try portValue("ssh-port")))
        var extra: [(key: String, value: String)] = []
        if let display = arguments.value("display-name") { extra.append(("displayName", display)) }
        for entry in arguments.values("txt") {
            guard let eq = entry.firstIndex(of: "="), eq != entry.startIndex else {
                throw UsageError("--txt '\(TerminalText.sanitize(entry, maxScalars: 64))' is not KEY=VALUE")
            }
            extra.append((String(entry[..<eq]), String(entry[entry.index(after: eq)...])))
        }
        do {
            txt = try advertisement.txtPairs(merging: extra)
        } catch {
            throw UsageError("a TXT entry is longer than 255 bytes", hint: "shorten the value")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let signals = TerminationSignals()
        let strings = txt.map { Array("\($0.0)=\($0.1)".utf8) }
        let registration = try AvahiRegistration(name: advertisement.instanceName, type: BeaconIdentity.serviceType,
                                                 port: port, txt: strings)
        var announced: String?
        while true {
            if signals.pending() != nil {
                registration.withdraw()
                if let name = announced {
                    if context.globals.json {
                        context.printJSONLine(JSONValue.object([("event", .string("withdrawn")), ("name", .string(name))]))
                    } else {
                        context.note("Withdrawn \"\(TerminalText.sanitize(name))\".")
                    }
                }
                return .success
            }
            var descriptors = [PollDescriptor(registration.descriptor, .readable)]
            if (try? Poll.wait(&descriptors, until: Monotonic.now + .milliseconds(100))) ?? 0 > 0 { try registration.process() }
            switch registration.state {
            case .pending:
                continue
            case .failed(let status):
                throw GeneralError("avahi-daemon refused the registration (dns_sd error \(status))",
                                   hint: "check the daemon's log (journalctl -u avahi-daemon)")
            case .registered(let name) where name != announced:
                announced = name
                report(name, context)
            case .registered:
                continue
            }
        }
    }

    private func report(_ name: String, _ context: CommandContext) {
        if context.globals.json {
            context.printJSONLine(JSONValue.object([
                ("event", .string("registered")), ("name", .string(name)),
                ("requestedName", .string(advertisement.instanceName)), ("port", .int(Int64(port))),
                ("txt", .object(txt.map { ($0.0, .string($0.1)) })),
            ]))
            return
        }
        if name != advertisement.instanceName {
            context.warn("the name \"\(advertisement.instanceName)\" is taken on this network; advertising as \"\(name)\"")
        }
        context.print("Advertising \"\(TerminalText.sanitize(name))\" (_openclaw-gw._tcp, port \(port)) until interrupted.")
        context.note(context.errorStyle.dim("Check it from another machine: clawpair discover"))
    }

}
