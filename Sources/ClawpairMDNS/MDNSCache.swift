import ClawpairCore
import ClawpairDNS

/// The record cache: the single source of truth for what the querier knows (after
/// python-zeroconf). Bounded; when full, the record nearest to expiry is evicted.
public struct MDNSCache: Sendable {
    /// One cached record and when it expires.
    public struct Entry: Sendable, Hashable {
        /// The record.
        public let record: DNSResourceRecord
        /// When it was received.
        public let received: Monotonic.Instant
        /// When it expires (its TTL after receipt).
        public var expires: Monotonic.Instant
    }

    /// Most records kept.
    public let capacity: Int
    private var entries: [Key: Entry] = [:]
    /// The keys of `entries` by lowercased wire name: a lookup reads one name's records, not the
    /// whole cache (a browse looks up every instance's records after each packet).
    private var byName: [[UInt8]: Set<Key>] = [:]

    struct Key: Hashable {
        let name: [UInt8]  // lowercased wire form
        let type: UInt16
        let data: DNSRecordData
    }

    /// An empty cache holding at most `capacity` records.
    public init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// Number of records held.
    public var count: Int { entries.count }

    /// Adds or refreshes `record` received at `now` (RFC 6762 §10: TTL 0 is a goodbye that
    /// expires after one second; a cache-flush record makes older records of the same name and
    /// type expire after one second too).
    public mutating func insert(_ record: DNSResourceRecord, at now: Monotonic.Instant) {
        let key = Key(name: record.name.lowercased().wire, type: record.type.rawValue, data: record.data)
        if record.cacheFlush {
            for otherKey in byName[key.name] ?? [] where otherKey.type == key.type && otherKey != key {
                guard let entry = entries[otherKey], now - entry.received > MDNSTiming.goodbyeGrace else { continue }
                entries[otherKey]?.expires = min(entry.expires, now + MDNSTiming.goodbyeGrace)
            }
        }
        let expires = record.ttl == 0 ? now + MDNSTiming.goodbyeGrace : now + .seconds(Int64(record.ttl))
        if entries[key] == nil && entries.count >= capacity {
            if let victim = entries.min(by: { $0.value.expires < $1.value.expires })?.key { remove(victim) }
        }
        entries[key] = Entry(record: record, received: now, expires: expires)
        byName[key.name, default: []].insert(key)
    }

    private mutating func remove(_ key: Key) {
        entries[key] = nil
        byName[key.name]?.remove(key)
        if byName[key.name]?.isEmpty == true { byName[key.name] = nil }
    }

    /// Drops what has expired by `now`; returns the records dropped.
    public mutating func expire(at now: Monotonic.Instant) -> [DNSResourceRecord] {
        let gone = entries.filter { $0.value.expires <= now }
        for key in gone.keys { remove(key) }
        return gone.values.map(\.record)
    }

    /// Live records named `name` (case-insensitively) of `type`.
    public func records(named name: DNSName, type: DNSType) -> [Entry] {
        (byName[name.lowercased().wire] ?? []).compactMap { key in
            key.type == type.rawValue ? entries[key] : nil
        }
    }

    /// The soonest expiry, for scheduling.
    public var nextExpiry: Monotonic.Instant? { entries.values.map(\.expires).min() }
}
