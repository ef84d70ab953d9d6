import ClawpairCore

/// Why extra TXT pairs cannot be advertised.
public enum BeaconTXTError: ClawpairError, Equatable {
    /// `key=value` is longer than a DNS character-string can be (255 bytes).
    case entryTooLong(key: String, bytes: Int)

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case let .entryTooLong(key, bytes): return "the TXT entry \(key) is \(bytes) bytes; DNS allows at most 255"
        }
    }
}

extension BeaconAdvertisement {
    /// The advertisement's TXT pairs, in order, with `extra` merged in: a pair whose key matches
    /// one already there (ignoring case) replaces its value and key spelling in place, any other
    /// is appended. Every `key=value` must fit a DNS character-string (255 bytes).
    public func txtPairs(merging extra: [(key: String, value: String)]) throws(BeaconTXTError) -> [(key: String, value: String)] {
        var merged = txt.map { (key: $0.key, value: $0.stringValue ?? "") }
        for (key, value) in extra {
            if let index = merged.firstIndex(where: { $0.key.lowercased() == key.lowercased() }) {
                merged[index] = (key, value)
            } else {
                merged.append((key, value))
            }
        }
        for (key, value) in merged where key.utf8.count + 1 + value.utf8.count > 255 {
            throw .entryTooLong(key: key, bytes: key.utf8.count + 1 + value.utf8.count)
        }
        return merged
    }
}
