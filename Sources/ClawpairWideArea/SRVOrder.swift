// RFC 2782 target selection: when a name has several SRV records, a client tries them lowest
// priority first and, among records of equal priority, in a weighted random order. The random
// choice is injected so tests can script it.
import ClawpairDNS

/// Orders SRV records the way RFC 2782 ("Usage rules") says a client should try them.
public enum SRVOrder {
    /// Picks a uniformly random integer in `0...upperBound` (RFC 2782: "between 0 and the sum of
    /// the weights, inclusive"). The default uses the system generator.
    public typealias Pick = @Sendable (_ upperBound: Int) -> Int

    /// The system generator.
    public static let systemRandom: Pick = { Int.random(in: 0...$0) }

    /// `records` in the order to try them: ascending priority; within one priority, repeatedly
    /// the first record whose running weight sum reaches `pick(total)`, with the weight-0 records
    /// placed first so that they are chosen only when the pick is 0 (or only they are left).
    /// Duplicates are kept; the order within one priority is otherwise the order given. A pick
    /// outside `0...total` is clamped into it, so a scripted `pick` can never trap.
    public static func sorted(_ records: [SRVData], pick: Pick = systemRandom) -> [SRVData] {
        guard records.count > 1 else { return records }
        var ordered: [SRVData] = []
        ordered.reserveCapacity(records.count)
        let priorities = Set(records.map(\.priority)).sorted()
        for priority in priorities {
            let group = records.filter { $0.priority == priority }
            // Weight-0 records first (RFC 2782), otherwise keep the given order.
            var remaining = group.filter { $0.weight == 0 } + group.filter { $0.weight != 0 }
            while remaining.count > 1 {
                let total = remaining.reduce(0) { $0 + Int($1.weight) }
                let target = min(max(pick(total), 0), total)
                var sum = 0
                var chosen = remaining.count - 1
                for (index, record) in remaining.enumerated() {
                    sum += Int(record.weight)
                    if sum >= target {
                        chosen = index
                        break
                    }
                }
                ordered.append(remaining.remove(at: chosen))
            }
            ordered += remaining
        }
        return ordered
    }
}
