// Browsing and resolving DNS-SD services through avahi-daemon. By default on our own D-Bus
// connection to the daemon (AvahiBusSession.swift): the browse, and Avahi's own service resolver
// for each instance (SRV, TXT and an address in one answer), as `avahi-browse -r` asks for them,
// without libavahi-client or libdbus. When the system bus is not a Unix socket or refuses our
// authentication (or with `.compat`), Avahi's Bonjour-compat `dns_sd` API
// (libavahi-compat-libdnssd, AvahiBrowser+DNSSD.swift) browses, and instances are resolved by
// DNSServiceResolve and DNSServiceQueryRecord (A and AAAA) on the SRV target.
//
// Avahi never says "all for now" through the compat layer, so every run is time-boxed by the
// caller's deadline.

import ClawpairCore

/// A service instance a browse reported.
public struct BrowsedInstance: Sendable, Hashable {
    /// The instance name, unescaped (e.g. `Studio (OpenClaw)`).
    public let name: String
    /// The service type as reported, e.g. `_openclaw-gw._tcp.`.
    public let type: String
    /// The domain, e.g. `local.`.
    public let domain: String
    /// The interface it was seen on (if_nametoindex numbering).
    public let interfaceIndex: UInt32

    public init(name: String, type: String, domain: String, interfaceIndex: UInt32) {
        self.name = name
        self.type = type
        self.domain = domain
        self.interfaceIndex = interfaceIndex
    }
}

/// A resolved instance: where it lives and its TXT record.
public struct ResolvedInstance: Sendable, Equatable {
    public let instance: BrowsedInstance
    /// The SRV target host, e.g. `studio.local.`.
    public let hostTarget: String
    /// The SRV port.
    public let port: UInt16
    /// The TXT record's raw RDATA: length-prefixed strings, exactly as received.
    public let txtRecord: [UInt8]
    /// Addresses of the SRV target in textual form (IPv4 dotted, IPv6 compressed), in the
    /// order they arrived, without duplicates.
    public let addresses: [String]
}

/// What a browse run reports, in the order it learns it.
public enum AvahiEvent: Sendable, Equatable {
    /// An instance appeared.
    case added(BrowsedInstance)
    /// An instance was withdrawn (goodbye or expiry).
    case removed(BrowsedInstance)
    /// An instance was resolved, or its record or addresses changed.
    case resolved(ResolvedInstance)
}

/// Errors from the Avahi backend.
public enum AvahiError: Error, Sendable, Equatable {
    /// avahi-daemon (or the system D-Bus it listens on) is not running.
    case daemonNotRunning
    /// Avahi's compat library (libdns_sd.so.1, Debian's libavahi-compat-libdnssd1) could not be loaded.
    case libraryUnavailable(String)
    /// A dns_sd call failed with the given DNSServiceErrorType.
    case call(String, Int32)
    /// poll() failed.
    case poll(Int32)
    /// avahi-daemon answered a call with an error (the call, then the D-Bus error name and text).
    case refused(String, String)
    /// The system bus sent something the D-Bus protocol does not allow, or refused us.
    case protocolViolation(String)
}

/// How a browse resolves the instances it finds.
public enum AvahiResolution: Sendable, Hashable, CustomStringConvertible {
    /// Avahi's own service resolver over our own D-Bus connection: SRV, TXT and an address in
    /// one answer (whichever address family answers first, as `avahi-browse -r` resolves, then
    /// the other family too), with the browse on the same connection. Falls back to `.compat`
    /// when the system bus is not a Unix socket or refuses the authentication.
    case serviceResolver
    /// The compat layer only: DNSServiceResolve, then DNSServiceQueryRecord for A and AAAA. Each
    /// of those is its own D-Bus client, and avahi-daemon starts every record browser after a
    /// delay (about 10 ms), so the first address comes later.
    case compat

    public var description: String { self == .compat ? "compat" : "service resolver" }
}

/// Limits that keep a hostile network from growing a browse without bound.
public struct AvahiLimits: Sendable {
    /// Most instances tracked at once; later ones are ignored until others go away.
    public var maxInstances: Int
    /// Most addresses kept per instance.
    public var maxAddressesPerInstance: Int
    /// Most bytes read from the system bus and not yet processed (bounds one message too).
    public var maxBusInput: Int

    public init(maxInstances: Int = 512, maxAddressesPerInstance: Int = 16, maxBusInput: Int = 1 << 20) {
        self.maxInstances = maxInstances
        self.maxAddressesPerInstance = maxAddressesPerInstance
        self.maxBusInput = maxBusInput
    }
}

extension AvahiError: ClawpairError {
    public var exitStatus: ExitStatus { .failure }
    public var message: String {
        switch self {
        case .daemonNotRunning: return "avahi-daemon is not running (or the system D-Bus is not reachable)"
        case .libraryUnavailable(let reason): return "Avahi's dns_sd library could not be loaded: \(reason)"
        case .call(let call, let status): return "\(call) failed with dns_sd error \(status)"
        case .poll(let code): return "poll failed with errno \(code)"
        case .refused(let call, let error): return "avahi-daemon refused \(call): \(error)"
        case .protocolViolation(let what): return "talking to avahi-daemon over the system bus failed: \(what)"
        }
    }
    public var hint: String? {
        switch self {
        case .daemonNotRunning: return "start it (systemctl start avahi-daemon) or use --backend native"
        case .libraryUnavailable: return "install libavahi-compat-libdnssd1, or use --backend native"
        default: return nil
        }
    }
}
