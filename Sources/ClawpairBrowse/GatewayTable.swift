import ClawpairDiscovery

/// What one source saw of one gateway: the beacon with the key every source uses for it
/// (`domain|instance name`) and where it came from.
struct SourceReport: Sendable, Equatable {
    var key: String
    var beacon: GatewayBeacon
    var addresses: [String]
    var origin: GatewaySighting.Origin
}

/// The merge: one entry per gateway key, whichever backends and interfaces report it. An entry
/// shows its latest report; it changes when a report differs from what it showed, and goes
/// away when the last backend that reported it withdraws it. Pure: no threads, no clock.
struct GatewayTable: Sendable {
    private struct Entry: Sendable {
        /// The latest report from each origin, oldest first.
        var reports: [SourceReport]
        /// The origin whose report the entry shows (the latest to arrive).
        var shown: GatewaySighting.Origin

        var sighting: GatewaySighting {
            let report = reports.first { $0.origin == shown } ?? reports[reports.count - 1]
            return GatewaySighting(key: report.key, beacon: report.beacon, addresses: report.addresses,
                                   origin: report.origin, origins: reports.map(\.origin))
        }
    }

    private var entries_: [String: Entry] = [:]
    /// Keys in the order they first appeared (a key that went and came back is at the end).
    private var order: [String] = []

    /// The gateways known now, in the order they first appeared.
    var entries: [GatewaySighting] { order.compactMap { entries_[$0]?.sighting } }

    /// Takes a report; the change it makes, if any.
    mutating func seen(_ report: SourceReport) -> GatewayBrowser.Event? {
        guard var entry = entries_[report.key] else {
            entries_[report.key] = Entry(reports: [report], shown: report.origin)
            order.append(report.key)
            return .added(entries_[report.key]!.sighting)
        }
        let before = entry.sighting
        if let index = entry.reports.firstIndex(where: { $0.origin == report.origin }) {
            entry.reports[index] = report
        } else {
            entry.reports.append(report)
        }
        entry.shown = report.origin
        entries_[report.key] = entry
        return Self.change(from: before, to: entry.sighting)
    }

    /// Every report `backend` made for `key` is withdrawn; the change that makes, if any.
    mutating func gone(key: String, backend: GatewayBrowser.Backend) -> GatewayBrowser.Event? {
        guard var entry = entries_[key] else { return nil }
        let before = entry.sighting
        entry.reports.removeAll { $0.origin.backend == backend }
        guard let latest = entry.reports.last else {
            entries_[key] = nil
            order.removeAll { $0 == key }
            return .removed(before)
        }
        if !entry.reports.contains(where: { $0.origin == entry.shown }) { entry.shown = latest.origin }
        entries_[key] = entry
        return Self.change(from: before, to: entry.sighting)
    }

    /// `.updated` when what a user sees of the gateway changed (beacon, addresses, backend).
    private static func change(from before: GatewaySighting, to after: GatewaySighting) -> GatewayBrowser.Event? {
        before.beacon == after.beacon && before.addresses == after.addresses && before.backend == after.backend
            ? nil : .updated(after)
    }

    /// `sightings` as a list shows them: the first of each ``GatewayBeacon/dedupeKey``, sorted
    /// (discovery.md §6, the TS rules).
    static func listed(_ sightings: [GatewaySighting]) -> [GatewaySighting] {
        var seen = Set<String>()
        let unique = sightings.filter { seen.insert($0.beacon.dedupeKey).inserted }
        let byKey = Dictionary(unique.map { ($0.beacon.dedupeKey, $0) }, uniquingKeysWith: { first, _ in first })
        return GatewayBeacon.sorted(unique.map(\.beacon)).compactMap { byKey[$0.dedupeKey] }
    }
}
