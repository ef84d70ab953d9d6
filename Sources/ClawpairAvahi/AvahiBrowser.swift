// Browsing and resolving DNS-SD services through avahi-daemon with Avahi's own client library
// (libavahi-client, AvahiBrowser+AvahiClient.swift): a service browser for the type, and for
// each instance a service resolver (SRV, TXT and an address in one answer) for either address
// family first, as `avahi-browse -r` resolves, then one for the other family so both addresses
// are reported. The browser says when Avahi has reported everything it knows now
// (`allForNow`, `cacheExhausted`); ``AvahiBrowser/pendingResolves`` says how many instances
// still wait for their first answer. Every run is still bounded by the caller's deadline.
//
// A browse follows each instance for as long as it runs: when a resolver answers a second time
// (the daemon saw its SRV, TXT or address record replaced) a fresh resolver is asked in its
// place, because the daemon's resolver may then still hold the old host's address
// (avahi-core/resolve-service.c keeps its address record across a new SRV record); and a resolver
// that timed out is kept, since the daemon's goes on watching and answers when the instance
// comes back.
//
// Registration (`clawpair advertise`) goes through the same library's entry groups
// (AvahiPublisher+AvahiClient.swift).

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

    /// An instance as Avahi names it.
    public init(name: String, type: String, domain: String, interfaceIndex: UInt32) {
        self.name = name
        self.type = type
        self.domain = domain
        self.interfaceIndex = interfaceIndex
    }
}

/// A resolved instance: where it lives and its TXT record.
public struct ResolvedInstance: Sendable, Equatable {
    /// The instance that was resolved.
    public let instance: BrowsedInstance
    /// The SRV target host, e.g. `studio.local.`.
    public let hostTarget: String
    /// The SRV port.
    public let port: UInt16
    /// The TXT record's raw RDATA: length-prefixed strings, exactly as received.
    public let txtRecord: [UInt8]
    /// Addresses of the SRV target in textual form (IPv4 dotted, IPv6 compressed), without
    /// duplicates: the current one of each resolver of the instance (the first resolve's, then
    /// the other address family's). A replaced address is not listed any more.
    public let addresses: [String]
}

/// What a browse run reports, in the order it learns it.
public enum AvahiEvent: Sendable, Equatable {
    /// An instance appeared.
    case added(BrowsedInstance)
    /// An instance was withdrawn (goodbye or expiry).
    case removed(BrowsedInstance)
    /// An instance was resolved, or its SRV target, port, TXT or addresses changed (then what it
    /// holds now). A change is reported once avahi-daemon's cache has let the old record go:
    /// at a goodbye, a second after a record with the cache-flush bit replaced it (RFC 6762 §10.2:
    /// only records received more than a second before are flushed), or when its TTL ran out.
    case resolved(ResolvedInstance)
    /// The first resolve of an instance failed (Avahi gives up after about 5 s without an
    /// answer); the instance stays listed until it is removed. A resolve of the second address
    /// family failing is not reported: it only means the host has no address of that family.
    case resolveFailed(BrowsedInstance, AvahiError)
    /// avahi-daemon has reported every instance it expects to learn about soon: its cache, and
    /// the answers to its first queries (about a second after the browse started). More may
    /// still come as hosts announce themselves.
    case allForNow
    /// avahi-daemon has reported every instance in its cache; the rest comes from the network.
    case cacheExhausted
    /// A bound of ``AvahiLimits`` cut what the network sent (never silently).
    case limited(AvahiLimitCut)
}

/// What a bound of ``AvahiLimits`` left out.
public enum AvahiLimitCut: Sendable, Equatable {
    /// This instance is not tracked: ``AvahiLimits/maxInstances`` instances were tracked already.
    case instance(BrowsedInstance)
    /// This address of the instance was not kept: it had ``AvahiLimits/maxAddressesPerInstance`` already.
    case address(BrowsedInstance, String)
}

/// Errors from the Avahi backend.
public enum AvahiError: Error, Sendable, Equatable {
    /// avahi-daemon (or the system D-Bus it listens on) is not running, or it left.
    case daemonNotRunning
    /// Avahi's client library could not be loaded: libavahi-client.so.3 (Debian's
    /// libavahi-client3) or libavahi-common.so.3; the reason names it.
    case libraryUnavailable(String)
    /// poll() failed.
    case poll(Int32)
    /// avahi-daemon or its client library answered a call with an error (the call, then
    /// Avahi's text for the error).
    case refused(String, String)
}

/// Limits that keep a hostile network from growing a browse without bound. What a limit cuts
/// is reported (``AvahiEvent/limited(_:)``).
public struct AvahiLimits: Sendable {
    /// Most instances tracked at once; later ones are ignored until others go away. Each costs
    /// avahi-daemon two resolver objects, and the daemon allows a client 1,024 objects by default
    /// (`objects-per-client-max`).
    public var maxInstances: Int
    /// Most addresses kept per instance.
    public var maxAddressesPerInstance: Int

    /// The default of ``maxInstances``: 512, the daemon's object limit per client halved.
    public static let defaultMaxInstances = 512

    /// Limits with the defaults above: 512 instances, 16 addresses each.
    public init(maxInstances: Int = AvahiLimits.defaultMaxInstances, maxAddressesPerInstance: Int = 16) {
        self.maxInstances = maxInstances
        self.maxAddressesPerInstance = maxAddressesPerInstance
    }
}

extension AvahiError: ClawpairError {
    /// `avahi-unavailable`: the Avahi daemon or one of its libraries cannot be used.
    public var code: String { "avahi-unavailable" }
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .daemonNotRunning: return "avahi-daemon is not running (or the system D-Bus is not reachable)"
        case .libraryUnavailable(let reason): return "an Avahi library could not be loaded: \(reason)"
        case .poll(let code): return "poll failed with errno \(code)"
        case .refused(let call, let error): return "avahi-daemon refused \(call): \(error)"
        }
    }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .daemonNotRunning: return "start it (systemctl start avahi-daemon), or use the built-in mDNS querier"
        case .libraryUnavailable: return "install libavahi-client3, or use the built-in mDNS querier"
        default: return nil
        }
    }
}
