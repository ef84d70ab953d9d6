// Finding a paired gateway that moved, by its identity (issue #24.6; `node run` and
// `gateways check` share it). Discovery (mDNS and the wide-area domain, ClawpairBrowse) lists
// beacons; a beacon's TXT is never trusted alone. A route at a new address is adopted only when
// the gateway there proves it is the record's gateway without being handed a secret first:
//
//   wss:// and a pinned record   the TLS handshake presents the pinned certificate (nothing is sent);
//   ws://                        a connect signed by this device with the record's stored token
//                                gets hello-ok (issue #22.2: "the beacon that the stored device
//                                token is then accepted by"); only for a beacon whose address the
//                                plaintext policy admits (loopback, private LAN, link-local,
//                                `.local`), where every plaintext connect sends it anyway. A
//                                refusal there only means "not this gateway": the token is kept.
//
// The route then goes first in the record's routes, in one transaction under the registry lock
// (``GatewayRegistry/adoptRoute(_:forRecord:proof:nowMs:replacingRoutes:)``). A beacon at one of the record's own routes needs no proof:
// it only triggers an immediate reconnect.

import ClawpairBrowse
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairSetupCode
import Synchronization

/// Looks for a paired gateway through discovery and proves each candidate's identity.
public struct GatewayRelocator: Sendable {
    /// What a search found.
    public enum Found: Sendable, Equatable {
        /// A beacon at one of the record's own routes (the gateway is back there).
        case knownRoute(String)
        /// The gateway proved itself at `url`; the registry now lists `routes` (url first).
        case moved(url: String, proof: GatewayIdentityProof, routes: [String])
    }

    /// The registry whose record is updated.
    public let registry: GatewayRegistry
    private let identityBox: IdentityReference
    /// This device.
    public var identity: DeviceIdentity { identityBox.value }
    /// The discovery options (`nil`: nothing is searched).
    public let discovery: GatewayBrowser.Options?
    /// How long proving one candidate may take.
    public let proofTimeout: Duration
    private let clock: any MonotonicClock
    /// Where ``watch(for:stop:found:)`` hears beacons: until `stop` is raised, hands over the
    /// candidate URLs of each beacon as it appears or changes (internal seam; tests script it).
    let beacons: @Sendable (_ stop: StopSignal, _ seen: ([String]) -> Void) -> Void
    /// What discovery's watch handed over (shared by the copies of this relocator).
    let reported: ReportedBeacons

    /// A relocator for records of `registry`, proving candidates as `identity`.
    public init(registry: GatewayRegistry, identity: DeviceIdentity, discovery: GatewayBrowser.Options?,
                proofTimeout: Duration = .seconds(3), clock: any MonotonicClock = SystemMonotonicClock()) {
        let reported = ReportedBeacons()
        self.init(registry: registry, identity: identity, discovery: discovery, proofTimeout: proofTimeout, clock: clock,
                  reported: reported, beacons: Self.browserBeacons(discovery, clock: clock, reported: reported))
    }

    /// The designated initializer; `beacons` replaces discovery's watch.
    init(registry: GatewayRegistry, identity: DeviceIdentity, discovery: GatewayBrowser.Options?, proofTimeout: Duration,
         clock: any MonotonicClock, reported: ReportedBeacons = ReportedBeacons(),
         beacons: @escaping @Sendable (StopSignal, ([String]) -> Void) -> Void) {
        self.registry = registry
        identityBox = IdentityReference(identity)
        self.discovery = discovery
        self.proofTimeout = proofTimeout
        self.clock = clock
        self.beacons = beacons
        self.reported = reported
    }

    /// Discovery's watch as a beacon source: each gateway added or updated is handed over as it
    /// is heard, until `stop`. The watch runs for ``GatewayBrowser/Options/timeout`` at a time
    /// and is started again at once (a failed one after 2 s). One long watch would report every
    /// change (``GatewayBrowser/watch(note:onTruncated:onEvent:)``), but a run lists the cache afresh:
    /// after ``forgetReportedBeacons()`` (an attempt failed), a beacon still listed is handed over
    /// again at the next run, which a long watch never does for records that did not change.
    /// `reported` decides what is handed over: a sighting already handed over (and not removed
    /// or forgotten since) is not handed over again.
    static func browserBeacons(_ discovery: GatewayBrowser.Options?, clock: any MonotonicClock,
                               reported: ReportedBeacons) -> @Sendable (StopSignal, ([String]) -> Void) -> Void {
        { stop, seen in
            guard let options = discovery else { return }
            let browser = GatewayBrowser(options: options).stopping(on: stop)
            while !stop.isStopped {
                let started = clock.now
                reported.runStarted()
                do {
                    try browser.watch { event in
                        switch event {
                        case .added(let sighting), .updated(let sighting):
                            let candidates = candidateURLs(sighting)
                            if reported.isNew(candidates) { seen(candidates) }
                        case .removed(let sighting):
                            reported.removed(candidateURLs(sighting))
                        }
                        return !stop.isStopped
                    }
                } catch {
                    clock.sleep(until: started + .seconds(2), unless: { stop.isStopped })
                }
                reported.runEnded()
            }
        }
    }

    /// Makes a running ``watch(for:stop:found:)`` hand over again, at its next run, the beacons
    /// it already reported: call it when an attempt at a reported route failed. A beacon heard
    /// while its gateway was down may have been a stale cache entry (a gateway that vanished
    /// without a goodbye stays listed until its records expire, RFC 6762 §10), and one that
    /// comes back with the same records is not reported as a change; forgetting makes the next
    /// run's listing count again. The runs are ``GatewayBrowser/Options/timeout`` long, so a beacon
    /// still listed triggers at most one reconnect per run.
    public func forgetReportedBeacons() {
        reported.forget()
    }

    /// Whether every route of `record` is on loopback: such a gateway cannot have moved on the
    /// network, and nothing is searched for it.
    public static func isLoopbackOnly(_ record: PairedGateway) -> Bool {
        record.urls.allSatisfy { url in
            guard let endpoint = try? ClawpairGateway.GatewayEndpoint(parsing: url) else { return false }
            return PlaintextPolicy.isLoopback(host: endpoint.host)
        }
    }

    /// The URLs a sighting may be dialled at: one per resolved address, then its SRV host.
    public static func candidateURLs(_ sighting: GatewaySighting) -> [String] {
        guard let endpoint = sighting.beacon.endpoint else { return [] }
        var urls: [String] = sighting.addresses.prefix(8).map { address in
            let host = address.contains(":") ? "[\(address)]" : address
            return "\(endpoint.scheme)://\(host):\(endpoint.port)"
        }
        if !urls.contains(endpoint.url) { urls.append(endpoint.url) }
        return urls
    }

    /// One round: scans, then checks the candidates (known routes first). Returns what it found,
    /// or nil.
    public func findOnce(_ record: PairedGateway) -> Found? {
        guard let discovery, let scan = try? GatewayBrowser(options: discovery).scan() else { return nil }
        return check(record, candidates: scan.gateways.flatMap(Self.candidateURLs))
    }

    /// Checks candidate URLs against `record`: a known route is reported as such; a new one is
    /// proved and adopted.
    public func check(_ record: PairedGateway, candidates: [String]) -> Found? {
        var seen = Set<String>()
        let unique = candidates.filter { seen.insert($0).inserted }
        if let known = unique.first(where: { record.matches(url: $0) }) { return .knownRoute(known) }
        for url in unique.prefix(16) {
            guard let proof = prove(record, url: url) else { continue }
            guard let updated = adopt(url, record: record, proof: proof) else { continue }
            return .moved(url: url, proof: proof, routes: updated.urls)
        }
        return nil
    }

    /// Repeats rounds until `stopped()`, reporting each find to `found`; ends after a move. Each
    /// round checks the registry's current record (its routes and pin as stored now, `record` when
    /// it was forgotten): a search that outlives a move, or a reconnect and the next loss, hears
    /// the gateway's beacon at its new route as a known route, not as a stranger to prove.
    /// Nothing in clawpair uses it any more: ``watch(for:stop:found:)`` hears a beacon as it
    /// (re)appears instead of a round up to 2 s later.
    @available(*, deprecated, message: "use watch(for:stop:found:), which hears each beacon as it appears")
    public func search(for record: PairedGateway, until stopped: @Sendable () -> Bool,
                       found: (Found) -> Void) {
        while !stopped() {
            let started = clock.now
            let current = registry.snapshot().gateway(id: record.id) ?? record
            if let result = findOnce(current) {
                if stopped() { return }
                found(result)
                if case .moved = result { return }
            }
            // Rounds at least 2 s apart: a reappearing beacon is heard within one round.
            clock.sleep(until: started + .seconds(2), unless: stopped)
        }
    }

    /// Watches discovery without pause until `stop` is raised: each beacon that appears or
    /// changes is checked at once against the registry's current record (`record` when it was
    /// forgotten) and each find is reported to `found`; ends after a move. A beacon at a known
    /// route is reported each time it (re)appears.
    public func watch(for record: PairedGateway, stop: StopSignal, found: (Found) -> Void) {
        let done = StopSignal()
        let chained = stop.onStop { done.stop() }
        defer { stop.removeHandler(chained) }
        beacons(done) { candidates in
            guard !done.isStopped else { return }
            let current = registry.snapshot().gateway(id: record.id) ?? record
            guard let result = check(current, candidates: candidates), !stop.isStopped else { return }
            found(result)
            if case .moved = result { done.stop() }
        }
    }

    /// The proof that the gateway at `url` is `record`'s gateway, or nil (see the file's comment).
    public func prove(_ record: PairedGateway, url: String) -> GatewayIdentityProof? {
        guard var endpoint = try? ClawpairGateway.GatewayEndpoint(parsing: url) else { return nil }
        if endpoint.tls {
            guard let pin = record.tlsFingerprint else { return nil }
            endpoint.pin = pin
            guard let client = try? GatewayClient(endpoint: endpoint, configuration: .clawpair(timeout: proofTimeout)) else { return nil }
            defer { client.close() }
            guard (try? client.open(timeout: proofTimeout)) != nil else { return nil }
            guard let seen = client.certificate?.fingerprint?.lowercased(), seen == pin.lowercased() else { return nil }
            return .pinMatched(fingerprint: pin)
        }
        guard let stored = record.tokens.first(where: { $0.role == GatewayRole.node.rawValue }) ?? record.tokens.first,
              let role = GatewayRole(rawValue: stored.role),
              let client = try? GatewayClient(endpoint: endpoint, configuration: .clawpair(timeout: proofTimeout)) else { return nil }
        defer { client.close() }
        let info: GatewayClientInfo = role == .node
            ? NodeClient.info(displayName: record.deviceName ?? HostName.current(fallback: "linux"))
            : .operatorCLI(version: ClawpairVersion.current, displayName: record.deviceName ?? HostName.current(fallback: "linux"))
        let request = ConnectRequest(client: info, role: role, scopes: role == .node ? [] : stored.scopes,
                                     auth: ConnectAuth(token: stored.token))
        guard PlaintextPolicy.allowsPlaintext(host: endpoint.host), (try? client.open(timeout: proofTimeout)) != nil,
              let hello = try? client.connect(request, identity: identity, timeout: proofTimeout) else { return nil }
        let issued = (hello.deviceToken.map { [$0] } ?? []) + hello.handoffTokens
        if issued.contains(where: { $0.role == stored.role && $0.token == stored.token }) { return .storedTokenIssued(role: stored.role) }
        return .storedTokenAccepted(role: stored.role)
    }
}

extension GatewayRelocator {
    /// Puts `url` first in the record's routes under the registry lock, unless the record's pin
    /// changed meanwhile (a pin proof then no longer holds). The record as written, or nil.
    func adopt(_ url: String, record: PairedGateway, proof: GatewayIdentityProof) -> PairedGateway? {
        try? registry.adoptRoute(url, forRecord: record.id, proof: proof, nowMs: WallClock.nowMs())
    }
}

/// The sightings a discovery watch handed over, by their candidate URLs, across its runs: one is
/// handed over when it is new to the run before and to this one (a run lists the whole cache
/// again), again after it was removed, and again after ``forget()``. Thread-safe: the watch's
/// thread asks, the node's session thread forgets.
final class ReportedBeacons: Sendable {
    private struct State {
        var previous = Set<[String]>()
        var current = Set<[String]>()
    }
    private let state = Mutex(State())

    init() {}

    /// A run of the watch starts.
    func runStarted() {
        state.withLock { $0.current = [] }
    }

    /// Whether `candidates` is to be handed over now; from now on it counts as handed over.
    func isNew(_ candidates: [String]) -> Bool {
        state.withLock { state in
            let known = state.previous.contains(candidates) || state.current.contains(candidates)
            state.current.insert(candidates)
            return !known
        }
    }

    /// The beacon of `candidates` went away: its return is new.
    func removed(_ candidates: [String]) {
        state.withLock { state in
            state.previous.remove(candidates)
            state.current.remove(candidates)
        }
    }

    /// A run ended: what it listed is what the next run's listing is compared with.
    func runEnded() {
        state.withLock { $0.previous = $0.current }
    }

    /// Everything handed over so far counts as new again.
    func forget() {
        state.withLock { $0 = State() }
    }
}

/// A device identity shared with the threads of one node or relocation: only read after
/// creation (its key signs; libsodium's signing does not change the key), never freed before
/// its users end.
final class IdentityReference: @unchecked Sendable {
    let value: DeviceIdentity
    init(_ value: DeviceIdentity) { self.value = value }
}
