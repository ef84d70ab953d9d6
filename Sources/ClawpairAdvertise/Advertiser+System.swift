// The advertiser's real collaborators: avahi-daemon through Avahi's dns_sd compat API
// (ClawpairAvahi's AvahiRegistration) and the gateway probe (ClawpairProbe).

import ClawpairAvahi
import ClawpairCore
import ClawpairProbe

/// avahi-daemon is missing, for an advertiser (browsing has the built-in querier; advertising
/// needs the daemon).
public enum AdvertiseDaemonError: ClawpairError, Equatable {
    /// The daemon (or the system D-Bus it listens on) is not running.
    case notRunning
    /// Avahi's dns_sd compat library could not be loaded.
    case libraryUnavailable(String)

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .notRunning: return "avahi-daemon is not running (or the system D-Bus is not reachable), and advertising needs it"
        case .libraryUnavailable(let reason): return "Avahi's dns_sd library could not be loaded: \(reason)"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .notRunning:
            return "install and start it: sudo apt-get install avahi-daemon && sudo systemctl enable --now avahi-daemon"
        case .libraryUnavailable:
            return "install it: sudo apt-get install libavahi-compat-libdnssd1 avahi-daemon"
        }
    }
}

/// Registers with avahi-daemon (DNSServiceRegister of Avahi's compat library).
public struct AvahiServiceRegistrar: ServiceRegistrar {
    /// kDNSServiceErr_NameConflict: the name is already registered on this daemon.
    static let nameConflict: Int32 = -65548

    /// A registrar on the system's avahi-daemon.
    public init() {}

    /// Registers the service with avahi-daemon (Avahi's dns_sd API); a name already taken comes back as a registration that reports the conflict, other failures are thrown.
    public func register(name: String, type: String, port: UInt16, txt: [[UInt8]]) throws(ClawpairErrorBox) -> any ServiceRegistration {
        do {
            return AvahiServiceRegistration(try AvahiRegistration(name: name, type: type, port: port, txt: txt))
        } catch .call(_, Self.nameConflict) {
            return AvahiServiceRegistration(nil)
        } catch .daemonNotRunning {
            throw ClawpairErrorBox(AdvertiseDaemonError.notRunning)
        } catch .libraryUnavailable(let reason) {
            throw ClawpairErrorBox(AdvertiseDaemonError.libraryUnavailable(reason))
        } catch {
            throw ClawpairErrorBox(error)
        }
    }
}

/// An ``AvahiRegistration`` (nil: refused at once for a name conflict).
final class AvahiServiceRegistration: ServiceRegistration {
    let registration: AvahiRegistration?

    init(_ registration: AvahiRegistration?) { self.registration = registration }

    var descriptor: Int32 { registration?.descriptor ?? -1 }

    var state: RegistrationState {
        guard let registration else { return .conflict }
        switch registration.state {
        case .pending: return .pending
        case .registered(let name): return .registered(name)
        case .failed(AvahiServiceRegistrar.nameConflict): return .conflict
        case .failed(let code): return .failed("avahi-daemon refused the registration (dns_sd error \(code))")
        }
    }

    func process() throws(ClawpairErrorBox) {
        do { try registration?.process() } catch .daemonNotRunning {
            throw ClawpairErrorBox(AdvertiseDaemonError.notRunning)
        } catch {
            throw ClawpairErrorBox(error)
        }
    }

    func withdraw() { registration?.withdraw() }
}

/// Checks the gateway with the probe (TCP, TLS, WebSocket upgrade, connect.challenge). A TLS
/// gateway's certificate is not known beforehand: the first probe observes its fingerprint and a
/// second one, pinned to it, completes the check. The fingerprint is what gets advertised.
public struct ProbeHealthCheck: GatewayHealthCheck {
    /// The limit of each probe.
    public var timeout: Duration

    /// A health check that gives the gateway `timeout` to answer.
    public init(timeout: Duration = .seconds(3)) { self.timeout = timeout }

    /// Probes the gateway the settings describe (then again pinned to the certificate it served) and says whether it answers.
    public func check(_ settings: AdvertiseSettings) -> GatewayHealth {
        let url = GatewayAdvertiser.url(settings)
        func probe(pin: String?) -> ProbeResult? {
            let route = ProbeRoute(host: settings.probeHost, port: settings.port, tls: settings.tls, input: url, source: .url,
                                   pin: pin, pinSource: pin == nil ? nil : .trust)
            let configuration = ProbeConfiguration(timeout: timeout, allowInsecure: true)
            return (try? Prober.run(routes: [route], configuration: configuration))?.results.first
        }
        guard let first = probe(pin: nil) else { return GatewayHealth(answering: false, detail: "the probe could not start") }
        if first.reachable { return GatewayHealth(answering: true, fingerprint: first.certificate?.fingerprint) }
        if settings.tls, let observed = first.certificate?.fingerprint, first.failure?.isTrustFailure == true {
            guard let second = probe(pin: observed) else { return GatewayHealth(answering: false, detail: "the probe could not start") }
            if second.reachable { return GatewayHealth(answering: true, fingerprint: observed) }
            return GatewayHealth(answering: false, detail: second.failure?.message ?? "no answer")
        }
        return GatewayHealth(answering: false, detail: first.failure?.message ?? "no answer")
    }
}
