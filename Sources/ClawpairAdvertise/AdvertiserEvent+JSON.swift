import ClawpairCore
import ClawpairDiscovery

extension AdvertiserEvent {
    /// The event as one JSON object (an event log holds one per line).
    public var json: JSONValue {
        func event(_ name: String, _ members: [(String, JSONValue)]) -> JSONValue { .object([("event", .string(name))] + members) }
        switch self {
        case .waiting(let url):
            return event("waiting", [("url", .string(url))])
        case let .registered(name, plan, host):
            return event("registered", [("name", .string(name)), ("requestedName", .string(plan.name)),
                                        ("type", .string(BeaconIdentity.serviceType)), ("port", .int(Int64(plan.port))),
                                        ("host", host.map(JSONValue.string) ?? .null),
                                        ("interfaces", .array(plan.interfaces.map { .string($0.name) })),
                                        ("txt", .object(plan.txt.map { ($0.key, .string($0.value)) }))])
        case let .renamed(from, to, count, limit):
            return event("renamed", [("name", .string(from)), ("newName", .string(to)), ("renames", .int(Int64(count))),
                                     ("maxRenames", .int(Int64(limit)))])
        case let .gatewayDown(name, detail):
            return event("withdrawn", [("name", .string(name)), ("reason", .string("gateway-down")), ("detail", .string(detail))])
        case .configChanged(let name):
            return event("withdrawn", [("name", .string(name)), ("reason", .string("config-changed"))])
        case .configUnreadable(let message):
            return event("config-unreadable", [("message", .string(message))])
        case .withdrawn(let name):
            return event("withdrawn", [("name", .string(name)), ("reason", .string("stopped"))])
        }
    }
}

/// The event as one line of text for people.
public enum AdvertiserLine: Sendable, Equatable {
    /// A result, for stdout.
    case output(String)
    /// Progress, for stderr.
    case note(String)
    /// A warning, for stderr (`warning: ` is the caller's prefix).
    case warning(String)
}

extension AdvertiserEvent {
    /// The event as text lines (names and details sanitized for a terminal).
    public var lines: [AdvertiserLine] {
        func quoted(_ name: String) -> String { "\"\(TerminalText.sanitize(name))\"" }
        switch self {
        case .waiting(let url):
            return [.note("Waiting for the gateway at \(url) to answer before advertising.")]
        case let .registered(name, plan, host):
            let on = plan.interfaces.isEmpty ? "every interface"
                : (plan.interfaces.count == 1 ? "interface " : "interfaces ")
                    + plan.interfaces.map { TerminalText.sanitize($0.name) }.joined(separator: ", ")
            let at = host.map { ", host \(TerminalText.sanitize($0))" } ?? ""
            return [.output("Advertising \(quoted(name)) (\(BeaconIdentity.serviceType), port \(plan.port)\(at), \(on)) "
                + "until interrupted.")]
        case let .renamed(from, to, count, limit):
            return [.warning("the name \(quoted(from)) is taken on this network; renamed to \(quoted(to)) "
                + "(rename \(count) of at most \(limit))")]
        case let .gatewayDown(name, detail):
            return [.warning("the gateway stopped answering (\(TerminalText.sanitize(detail))); withdrew \(quoted(name)) until it answers")]
        case .configChanged(let name):
            return [.note("The gateway's config changed; withdrew \(quoted(name)) to announce it anew.")]
        case .configUnreadable(let message):
            return [.warning("\(TerminalText.sanitize(message)); keeping the last good config")]
        case .withdrawn(let name):
            return [.note("Withdrawn \(quoted(name)).")]
        }
    }
}
