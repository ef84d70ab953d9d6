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
        /// What the entry shows, and the keys a list orders and dedupes it by: worked out as
        /// reports arrive (a scan spends most of its time waiting for the network), so that
        /// listing at the end of a scan does no string work.
        private(set) var sighting: GatewaySighting
        private(set) var dedupeKey: String
        private(set) var sortKey: GatewayBeacon.SortKey

        init(_ report: SourceReport) {
            reports = [report]
            shown = report.origin
            sighting = GatewaySighting(key: report.key, beacon: report.beacon, addresses: report.addresses,
                                       origin: report.origin, origins: [report.origin])
            dedupeKey = report.beacon.dedupeKey
            sortKey = report.beacon.sortKey
        }

        /// Works out ``sighting`` and the keys again after `reports` or `shown` changed.
        mutating func refresh() {
            let report = reports.first { $0.origin == shown } ?? reports[reports.count - 1]
            sighting = GatewaySighting(key: report.key, beacon: report.beacon, addresses: report.addresses,
                                       origin: report.origin, origins: reports.map(\.origin))
            dedupeKey = report.beacon.dedupeKey
            sortKey = report.beacon.sortKey
        }
    }

    private var entries_: [String: Entry] = [:]
    /// Keys in the order they first appeared (a key that went and came back is at the end).
    private var order: [String] = []

    /// The gateways known now as a list shows them: the first of each
    /// ``GatewayBeacon/dedupeKey`` (in the order they appeared), sorted by
    /// ``GatewayBeacon/sorted(_:)``'s rule (discovery.md §6, the TS rules). At most `limit`.
    func listed(limit: Int = .max) -> [GatewaySighting] {
        var seen = Set<String>()
        var unique: [Entry] = []
        for key in order {
            guard unique.count < limit else { break }
            if let entry = entries_[key], seen.insert(entry.dedupeKey).inserted { unique.append(entry) }
        }
        return GatewayBeacon.sorted(unique, by: \.sortKey).map(\.sighting)
    }

    /// Takes a report; the change it makes, if any.
    mutating func seen(_ report: SourceReport) -> GatewayBrowser.Event? {
        guard var entry = entries_[report.key] else {
            let entry = Entry(report)
            entries_[report.key] = entry
            order.append(report.key)
            return .added(entry.sighting)
        }
        let before = entry.sighting
        if let index = entry.reports.firstIndex(where: { $0.origin == report.origin }) {
            entry.reports[index] = report
        } else {
            entry.reports.append(report)
        }
        entry.shown = report.origin
        entry.refresh()
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
        entry.refresh()
        entries_[key] = entry
        return Self.change(from: before, to: entry.sighting)
    }

    /// `.updated` when what a user sees of the gateway changed (beacon, addresses, backend).
    private static func change(from before: GatewaySighting, to after: GatewaySighting) -> GatewayBrowser.Event? {
        before.beacon == after.beacon && before.addresses == after.addresses && before.backend == after.backend
            ? nil : .updated(after)
    }
}
