internal import CClawpairHeadStart
import ClawpairAvahi
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairMDNS

/// Which mDNS implementation `discover` uses.
enum DiscoveryBackendChoice: String, CaseIterable {
    /// Avahi when its daemon answers, else the built-in querier.
    case auto
    /// avahi-daemon, through its D-Bus API (or its dns_sd compatibility API).
    case avahi
    /// The built-in one-shot mDNS querier (needs no daemon).
    case native
}

/// A gateway seen on the local link, with what the backend knows beyond the beacon.
struct Sighting: Sendable, Equatable {
    /// Identifies the instance across updates: `domain|instance name`.
    let key: String
    let beacon: GatewayBeacon
    let addresses: [String]
    let backend: String
}

/// What local discovery reports.
enum SightingEvent {
    case seen(Sighting)
    case gone(key: String, beacon: GatewayBeacon?)
}

/// Work put off until the results are out: closing Avahi's operations costs a D-Bus round trip
/// and a thread join per operation, which `discover` would otherwise pay before printing.
/// Confined to the thread that made it.
final class Teardown {
    private var actions: [() -> Void] = []
    func add(_ action: @escaping () -> Void) { actions.append(action) }
    /// Runs the actions, newest first, once.
    func run() {
        let pending = actions
        actions = []
        pending.reversed().forEach { $0() }
    }
    deinit { run() }
}

/// Runs one mDNS backend until `deadline` and translates its events into beacons.
enum LocalDiscovery {
    static let serviceType = BeaconIdentity.serviceType

    /// Runs the chosen backend and returns its name (`avahi` or `native`). With `teardown`, the
    /// Avahi backend's clean-up is added to it instead of done before returning.
    static func run(_ choice: DiscoveryBackendChoice, until deadline: Monotonic.Instant, teardown: Teardown? = nil,
                    note: (String) -> Void, onEvent: (SightingEvent) -> Bool) throws -> String {
        switch choice {
        case .avahi:
            try runAvahi(until: deadline, teardown: teardown, onEvent: onEvent)
            return "avahi"
        case .native:
            try runNative(until: deadline, onEvent: onEvent)
            return "native"
        case .auto:
            do {
                try runAvahi(until: deadline, teardown: teardown, onEvent: onEvent)
                note(CClawpairHeadStart_started() == 1
                     ? "backend: avahi (avahi-daemon answered; browse started before main)"
                     : "backend: avahi (avahi-daemon answered)")
                return "avahi"
            } catch AvahiError.daemonNotRunning {
                note("backend: native (no avahi-daemon on the system bus)")
                try runNative(until: deadline, onEvent: onEvent)
                return "native"
            } catch AvahiError.libraryUnavailable {
                note("backend: native (Avahi's dns_sd library is not installed)")
                try runNative(until: deadline, onEvent: onEvent)
                return "native"
            }
        }
    }

    static func runAvahi(until deadline: Monotonic.Instant, teardown: Teardown? = nil,
                         onEvent: (SightingEvent) -> Bool) throws {
        // Takes over the browse CClawpairHeadStart sent before main, if any (same messages).
        assert(serviceType == CCLAWPAIR_HEAD_START_TYPE, "CClawpairHeadStart browses another type")
        let browser = try AvahiBrowser(type: serviceType)
        if let teardown { teardown.add(browser.stop) }
        defer { if teardown == nil { browser.stop() } }
        // avahi-daemon holds a new browse back for about 10 ms, even with the answer in its cache:
        // time enough to pay the answer path's first-use costs now rather than after the answer.
        warmUp()
        // Avahi reports an instance once per interface and protocol; it is gone when the last goes.
        var seenOn: [String: Set<BrowsedInstance>] = [:]
        var last: [String: GatewayBeacon] = [:]
        try browser.run(until: deadline) { event in
            switch event {
            case .added(let instance):
                seenOn[key(instance), default: []].insert(instance)
                return true
            case .removed(let instance):
                let k = key(instance)
                seenOn[k]?.remove(instance)
                guard seenOn[k]?.isEmpty ?? true else { return true }
                seenOn[k] = nil
                return onEvent(.gone(key: k, beacon: last.removeValue(forKey: k)))
            case .resolved(let resolved):
                let k = key(resolved.instance)
                let beacon = GatewayBeacon(instanceName: resolved.instance.name, domain: domain(resolved.instance.domain),
                                           host: resolved.hostTarget, port: Int(resolved.port),
                                           txt: TXTRecord(strings: splitTXT(resolved.txtRecord)))
                last[k] = beacon
                return onEvent(.seen(Sighting(key: k, beacon: beacon, addresses: resolved.addresses, backend: "avahi")))
            }
        }
    }

    /// Runs what an Avahi answer goes through once, on a made-up gateway, and drops the result:
    /// the first use of each generic type makes the Swift runtime instantiate its metadata and
    /// look up its conformances (a scan of every conformance record in the binary), and the
    /// code's pages fault in. Measured: about 0.5 ms that otherwise comes after the answer.
    static func warmUp() {
        let instance = BrowsedInstance(name: "warm-up", type: serviceType + ".", domain: "local.", interfaceIndex: 1)
        var seenOn: [String: Set<BrowsedInstance>] = [:]
        seenOn[key(instance), default: []].insert(instance)
        let txt: [UInt8] = Array("\u{0C}role=gateway\u{0C}gatewayTls=1\u{11}gatewayPort=18789\u{0A}sshPort=22".utf8)
        let beacon = GatewayBeacon(instanceName: instance.name, domain: domain(instance.domain), host: "warm-up.local.",
                                   port: 18789, txt: TXTRecord(strings: splitTXT(txt)))
        var last: [String: GatewayBeacon] = [:]
        last[key(instance)] = beacon
        let sighting = Sighting(key: key(instance), beacon: beacon, addresses: ["192.0.2.1"], backend: "avahi")
        var found: [String: Sighting] = [:]
        found[sighting.key] = sighting
        let beacons = GatewayBeacon.sorted(GatewayBeacon.deduplicated([beacon]))
        let byBeacon = Dictionary(beacons.map { ($0.dedupeKey, sighting) }, uniquingKeysWith: { first, _ in first })
        keep(beacons.map(\.json).map { $0.pretty() }.count + byBeacon.count + seenOn.count + last.count + found.count)
    }

    @inline(never) private static func keep(_ value: Int) { _ = value }

    static func runNative(until deadline: Monotonic.Instant, onEvent: (SightingEvent) -> Bool) throws {
        let querier = try MDNSQuerier(serviceType: serviceType + ".local.")
        var last: [String: GatewayBeacon] = [:]
        try querier.run(until: deadline) { event in
            switch event {
            case .added:
                return true
            case .removed(let name):
                let k = "local.|" + (name.firstLabel.map { String(decoding: $0, as: UTF8.self) } ?? "")
                return onEvent(.gone(key: k, beacon: last.removeValue(forKey: k)))
            case .resolved(let service):
                let beacon = GatewayBeacon(instance: service.instance, domain: "local.",
                                           srv: SRVData(port: service.port, target: service.hostTarget), txt: service.txt)
                let k = "local.|" + beacon.instanceName
                last[k] = beacon
                return onEvent(.seen(Sighting(key: k, beacon: beacon, addresses: service.addresses, backend: "native")))
            }
        }
    }

    static func key(_ instance: BrowsedInstance) -> String { domain(instance.domain) + "|" + instance.name }

    static func domain(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }

    /// The character-strings of raw TXT RDATA (a length byte, then that many bytes; a string
    /// running past the end is cut there).
    static func splitTXT(_ bytes: [UInt8]) -> [[UInt8]] {
        var strings: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + 1 + Int(bytes[index]))
            strings.append(Array(bytes[(index + 1)..<end]))
            index = end
        }
        return strings
    }
}
