import ClawpairAvahi
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairMDNS

/// Which mDNS implementation `discover` uses.
enum DiscoveryBackendChoice: String, CaseIterable {
    /// Avahi when its daemon answers, else the built-in querier.
    case auto
    /// avahi-daemon, through its client library (libavahi-client).
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
                note("backend: avahi (avahi-daemon answered)")
                return "avahi"
            } catch AvahiError.daemonNotRunning {
                note("backend: native (no avahi-daemon on the system bus)")
                try runNative(until: deadline, onEvent: onEvent)
                return "native"
            } catch AvahiError.libraryUnavailable {
                note("backend: native (Avahi's client library is not installed)")
                try runNative(until: deadline, onEvent: onEvent)
                return "native"
            }
        }
    }

    static func runAvahi(until deadline: Monotonic.Instant, teardown: Teardown? = nil,
                         onEvent: (SightingEvent) -> Bool) throws {
        let browser = try AvahiBrowser(type: serviceType)
        if let teardown { teardown.add(browser.stop) }
        defer { if teardown == nil { browser.stop() } }
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
            case .resolveFailed, .allForNow, .cacheExhausted, .limited:
                return true
            }
        }
    }

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
