import ClawpairCore
import ClawpairDiscovery

extension GatewaySighting {
    /// The beacon's ``GatewayBeacon/json`` followed by `"addresses"` (array) and `"backend"`
    /// (`avahi`, `native` or `unicast`): one element of the discover JSON's `beacons`.
    public var json: JSONValue { Self.json(beacon, addresses: addresses, backend: .string(backend.rawValue)) }

    static func json(_ beacon: GatewayBeacon, addresses: [String], backend: JSONValue) -> JSONValue {
        guard case .object(var members) = beacon.json else { return beacon.json }
        members.append(("addresses", .array(addresses.map(JSONValue.string))))
        members.append(("backend", backend))
        return .object(members)
    }
}

extension GatewayBrowser.Event {
    /// `added`, `updated` or `removed`.
    public var name: String {
        switch self {
        case .added: "added"
        case .updated: "updated"
        case .removed: "removed"
        }
    }

    /// The sighting the event carries (for `removed`, the gateway's last one).
    public var sighting: GatewaySighting {
        switch self {
        case .added(let sighting), .updated(let sighting), .removed(let sighting): sighting
        }
    }

    /// `{"event": name, "beacon": {...}}`, one line of a JSON watch log. A removed
    /// gateway's beacon has no addresses and a null backend: it is no longer seen anywhere.
    public var json: JSONValue {
        let beacon = if case .removed(let last) = self {
            GatewaySighting.json(last.beacon, addresses: [], backend: .null)
        } else {
            sighting.json
        }
        return .object([("event", .string(name)), ("beacon", beacon)])
    }

    /// `+ title  url` (`~` updated, `-` removed; `no usable address` without an endpoint), one
    /// line of a watch log; the title and URL are sanitized.
    public var textLine: String {
        let mark = switch self {
        case .added: "+"
        case .updated: "~"
        case .removed: "-"
        }
        let beacon = sighting.beacon
        let url = beacon.endpoint?.url ?? "no usable address"
        return "\(mark) \(TerminalText.sanitize(beacon.title, maxScalars: 128))  \(TerminalText.sanitize(url, maxScalars: 256))"
    }
}

extension GatewayBrowser.Scan {
    /// `{"timeoutMs", "domains", "count", "beacons": [...]}`, with `"truncated"` when a bound cut a
    /// domain's list and `"unfinished"` when the timeout ended the scan before a domain's answer was
    /// complete: the discover JSON document (a superset of `openclaw gateway discover --json`).
    public func json(timeoutMs: Int) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("timeoutMs", .int(Int64(timeoutMs))),
            ("domains", .array(searched.map(JSONValue.string))),
            ("count", .int(Int64(gateways.count))),
            ("beacons", .array(gateways.map(\.json))),
        ]
        if !truncated.isEmpty { members.append(("truncated", .array(truncated.map { $0.json() }))) }
        if !unfinished.isEmpty { members.append(("unfinished", .array(unfinished.map { $0.json() }))) }
        return .object(members)
    }

    /// `No gateways found within N ms.`, followed by `Searched local., example.internal.` when
    /// `namingDomains` (wide-area domains were asked). The domains are sanitized.
    public func notFoundText(timeoutMs: Int, namingDomains: Bool) -> String {
        guard namingDomains else { return "No gateways found within \(timeoutMs) ms." }
        // The domains end with a dot already: no second one after the last.
        let list = searched.map { TerminalText.sanitize($0, maxScalars: 256) }.joined(separator: ", ")
        return "No gateways found within \(timeoutMs) ms. Searched \(list)" + (list.hasSuffix(".") ? "" : ".")
    }
}
