// What `discover --watch` needs to follow wide-area domains over time: when to browse again
// (from the TTLs a browse saw) and which instances were added, changed or withdrawn between two
// browses. Both are pure; the loop that browses and waits lives in the command.

/// When to browse the wide-area domains again: after the smallest TTL seen (PTR, SRV, TXT,
/// addresses, or an empty listing's negative TTL), kept within ``floor``…``ceiling`` so that a
/// zone with TTL 0 cannot turn the watch into a query storm and a long TTL still shows changes
/// within a minute.
public enum WideAreaRefresh {
    /// The shortest pause between two rounds.
    public static let floor: Duration = .seconds(5)
    /// The longest pause between two rounds.
    public static let ceiling: Duration = .seconds(60)
    /// The pause after a round in which no domain answered at all.
    public static let afterFailure: Duration = .seconds(10)

    /// The pause before the next round. `override` (a fixed interval, for tests) wins.
    public static func interval(ttl: UInt32?, allFailed: Bool, override: Duration? = nil) -> Duration {
        if let override { return override }
        if allFailed { return afterFailure }
        guard let ttl else { return ceiling }
        return min(max(.seconds(Int64(ttl)), floor), ceiling)
    }
}

/// The instances a watch has reported, per domain, turning each browse into changes: a sighting
/// is `added` the first time, `updated` only when it differs from the last one reported, and an
/// instance the domain's PTR answer no longer lists is `removed`. A domain whose PTR question
/// went unanswered is simply not passed to ``listed(_:in:)``, so it changes nothing; an
/// instance listed but not resolved in time is kept.
public struct WideAreaChangeTracker<Value: Equatable & Sendable>: Sendable {
    /// One change to report.
    public enum Change: Sendable, Equatable {
        case added(Value)
        case updated(Value)
        case removed(key: String, last: Value)
    }

    private var known: [String: [String: Value]] = [:]

    /// Nothing known yet.
    public init() {}

    /// Records `value` (instance `key` of `domain`); the change to report, if any.
    public mutating func seen(_ value: Value, key: String, in domain: String) -> Change? {
        guard let previous = known[domain]?[key] else {
            known[domain, default: [:]][key] = value
            return .added(value)
        }
        guard previous != value else { return nil }
        known[domain, default: [:]][key] = value
        return .updated(value)
    }

    /// The removals for the instances of `domain` that `listed` (the keys of a PTR answer) lacks,
    /// in key order.
    public mutating func listed(_ listed: Set<String>, in domain: String) -> [Change] {
        let gone = (known[domain] ?? [:]).filter { !listed.contains($0.key) }.sorted { $0.key < $1.key }
        for (key, _) in gone { known[domain]?[key] = nil }
        return gone.map { .removed(key: $0.key, last: $0.value) }
    }

    /// How many instances of `domain` are known.
    public func count(in domain: String) -> Int { known[domain]?.count ?? 0 }
}
