// The advertiser's real collaborators: avahi-daemon through Avahi's client library, one entry
// group per registration (ClawpairAvahi's AvahiPublisher), and the gateway probe (ClawpairProbe).
// Avahi's Bonjour-compat layer, used before, renamed silently on a conflict with another host,
// so renames went unreported and no limit applied; with entry groups every collision comes back
// here and the advertiser chooses (and reports) the next name.

import ClawpairAvahi
import ClawpairCore
import ClawpairProbe

/// avahi-daemon is missing, for an advertiser (browsing has the built-in querier; advertising
/// needs the daemon).
public enum AdvertiseDaemonError: ClawpairError, Equatable {
    /// The daemon (or the system D-Bus it listens on) is not running.
    case notRunning
    /// Avahi's client library could not be loaded.
    case libraryUnavailable(String)

    /// `avahi-unavailable` (``ClawpairError/code``).
    public var code: String { "avahi-unavailable" }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .notRunning: return "avahi-daemon is not running (or the system D-Bus is not reachable), and advertising needs it"
        case .libraryUnavailable(let reason): return "Avahi's client library could not be loaded: \(reason)"
        }
    }

    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .notRunning:
            return "install and start it: sudo apt-get install avahi-daemon && sudo systemctl enable --now avahi-daemon"
        case .libraryUnavailable:
            return "install it: sudo apt-get install libavahi-client3 avahi-daemon"
        }
    }
}

/// Registers with the system's avahi-daemon: one connection, made at the first registration and
/// kept for the next ones, and an entry group per registration. A custom host label gets its
/// address records (the addresses of the plan's interfaces) published too.
public final class AvahiServiceRegistrar: ServiceRegistrar {
    private let clock: any MonotonicClock
    private var publisher: AvahiPublisher?

    /// A registrar on the system's avahi-daemon, waiting on `clock`.
    public init(clock: any MonotonicClock = SystemMonotonicClock()) { self.clock = clock }

    /// Registers `plan` as `name` of `type` with avahi-daemon; a name already taken on this
    /// daemon comes back as a registration in state ``RegistrationState/conflict``, other
    /// failures are thrown.
    public func register(name: String, type: String, plan: ServicePlan) throws(ClawpairErrorBox) -> any ServiceRegistration {
        let publisher: AvahiPublisher
        if let existing = self.publisher {
            publisher = existing
        } else {
            do { publisher = try AvahiPublisher(clock: clock) } catch { throw Self.mapped(error) }
            self.publisher = publisher
        }
        let host = plan.hostLabel.map { "\($0).local" }
        let addresses = host == nil ? [] : AdvertiseInterface.addresses(of: plan.interfaces).map {
            AvahiHostAddress(interface: $0.interface, address: $0.address)
        }
        if let host, addresses.isEmpty, publisher.hostName?.lowercased() != host.lowercased() {
            throw ClawpairErrorBox(AdvertiserError.noHostAddress(host))
        }
        let service = AvahiService(name: name, type: type, port: UInt16(clamping: plan.port), txt: plan.txtStrings,
                                   interfaces: plan.interfaces.map(\.index), host: host, hostAddresses: addresses)
        do {
            return AvahiServiceRegistration(try publisher.publish(service), publisher: publisher)
        } catch {
            throw Self.mapped(error)
        }
    }

    static func mapped(_ error: AvahiError) -> ClawpairErrorBox {
        switch error {
        case .daemonNotRunning: return ClawpairErrorBox(AdvertiseDaemonError.notRunning)
        case .libraryUnavailable(let reason): return ClawpairErrorBox(AdvertiseDaemonError.libraryUnavailable(reason))
        default: return ClawpairErrorBox(error)
        }
    }
}

/// An ``AvahiPublication`` as the advertiser sees it.
final class AvahiServiceRegistration: ServiceRegistration {
    let publication: AvahiPublication
    let publisher: AvahiPublisher

    init(_ publication: AvahiPublication, publisher: AvahiPublisher) {
        self.publication = publication
        self.publisher = publisher
    }

    var state: RegistrationState {
        switch publication.state {
        case .registering: return .pending
        case .established: return .registered(publication.service.name)
        case .collision: return .conflict
        case .hostCollision: return .hostConflict
        case .failed(.daemonNotRunning): return .failed(AdvertiseDaemonError.notRunning.message)
        case .failed(let error): return .failed("avahi-daemon refused the registration: \(error.message)")
        }
    }

    var host: String? { publication.service.host ?? publisher.hostName }

    func wait(until deadline: Monotonic.Instant, wake: Int32?) throws(ClawpairErrorBox) -> Bool {
        do { try publisher.run(until: deadline, wake: wake) } catch { throw AvahiServiceRegistrar.mapped(error) }
        return true
    }

    func withdraw() { publication.withdraw() }
}

/// Checks the gateway with the probe (TCP, TLS, WebSocket upgrade): the port comes from the
/// gateway's own config, so the upgrade's 101 is enough and the check leaves with a close frame
/// instead of waiting for `connect.challenge` (``ProbeConfiguration/passesAtUpgrade``). A TLS
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
            var configuration = ProbeConfiguration(timeout: timeout, allowInsecure: true)
            configuration.passesAtUpgrade = true
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
