// A probe run as JSON and as short texts (the shapes clawpair-probe(1) documents), for any
// program that reports probes the way `clawpair probe` does. Layout and colour stay the caller's.
import ClawpairCore

extension ProbeRoute.Source {
    /// The stable name in JSON: `url`, `host`, `setup-code`, `setup-code-dropped`, `discovered`.
    public var name: String {
        switch self {
        case .url: return "url"
        case .hostPort: return "host"
        case .setupCode: return "setup-code"
        case .setupCodeDropped: return "setup-code-dropped"
        case .discovered: return "discovered"
        }
    }
}

extension ProbeResult {
    /// `reachable`, `cancelled` (a route that never finished) or the failure's reason code.
    public var outcome: String { failure?.code ?? (reachable ? "reachable" : "cancelled") }

    /// The observed fingerprint of a certificate that failed system trust, when it was seen
    /// (what a caller offers to accept after the user checked it).
    public var untrustedFingerprint: String? {
        guard case .tlsUntrusted(let observed?, _) = failure else { return nil }
        return observed
    }
}

extension ProbeTimings {
    /// `dns 0.4 ms  tcp 1.1 ms  tls 6.0 ms  ws 0.9 ms  challenge 0.2 ms  total 8.6 ms`: the
    /// phases that ran, then the total.
    public var summary: String {
        var parts: [String] = []
        for (name, value) in [("dns", dns), ("tcp", tcp), ("tls", tls), ("ws", ws), ("challenge", challenge)] {
            if let value { parts.append("\(name) \(ProbeReport.text(value))") }
        }
        parts.append("total \(ProbeReport.text(total))")
        return parts.joined(separator: "  ")
    }
}

extension ProbeReport {
    /// A duration for people: `8.6 ms` (a tenth of a millisecond) below 100 ms, `250 ms` above;
    /// `-` for none.
    public static func text(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        let value = duration.milliseconds
        return value >= 100 ? "\(Int(value.rounded())) ms" : "\((value * 10).rounded() / 10) ms"
    }

    /// A duration in JSON: milliseconds with one decimal; null for none.
    public static func json(_ duration: Duration?) -> JSONValue {
        guard let duration else { return .null }
        return .double((duration.milliseconds * 10).rounded() / 10)
    }

    /// Why nothing passed: `no route is reachable`, or with a trusted TLS certificate when a
    /// route failed trust.
    public var failureSummary: String {
        hasTrustFailure ? "no route is reachable with a trusted TLS certificate" : "no route is reachable"
    }

    /// The documented JSON object of the run (clawpair-probe(1), JSON OUTPUT), with the settings
    /// of `configuration`; `trustCommand` words each route's `trustCommand` (the command that
    /// accepts its untrusted certificate; nil: null); `pinSourceName` names where a route's pin
    /// came from (``ProbeRoute/PinSource/name`` unless the caller has its own words).
    public func json(configuration: ProbeConfiguration, trustCommand: (ProbeResult) -> String? = { _ in nil },
                     pinSourceName: (ProbeRoute.PinSource) -> String = { $0.name }) -> JSONValue {
        let routes: [JSONValue] = results.map { result in
            var tls: JSONValue = .null
            if result.route.tls {
                tls = .object([
                    ("version", result.tlsVersion.map(JSONValue.string) ?? .null),
                    ("fingerprint", result.certificate?.fingerprint.map(JSONValue.string) ?? .null),
                    ("expected", result.route.pin.map(JSONValue.string) ?? .null),
                    ("pinSource", result.route.pinSource.map { .string(pinSourceName($0)) } ?? .null),
                    ("trust", result.trust.map { .string($0.rawValue) } ?? .null),
                    // Pinned routes are decided by the pin alone; system trust is not checked for them.
                    ("systemTrusted", result.route.pin == nil ? result.certificate.map { .bool($0.systemTrusted) } ?? .null : .null),
                    ("verificationError", result.certificate?.verificationError.map(JSONValue.string) ?? .null),
                ])
            }
            let t = result.timings
            return .object([
                ("index", .int(Int64(result.index))),
                ("url", .string(result.route.url)),
                ("input", .string(result.route.input)),
                ("source", .string(result.route.source.name)),
                ("outcome", .string(result.outcome)),
                ("phase", .string(result.phase.rawValue)),
                ("message", result.failure.map { .string($0.message) } ?? .null),
                ("address", result.address.map { .string($0.description) } ?? .null),
                ("timings", .object([
                    ("startedMs", Self.json(t.started)), ("dnsMs", Self.json(t.dns)), ("tcpMs", Self.json(t.tcp)),
                    ("tlsMs", Self.json(t.tls)), ("wsMs", Self.json(t.ws)), ("challengeMs", Self.json(t.challenge)),
                    ("totalMs", Self.json(t.total)),
                ])),
                ("tls", tls),
                ("trustCommand", trustCommand(result).map(JSONValue.string) ?? .null),
            ])
        }
        var error: JSONValue = .null
        if winner == nil {
            error = .object([
                ("code", .string(hasTrustFailure ? "tls-trust" : "unreachable")),
                ("message", .string(failureSummary)),
            ])
        }
        return .object([
            ("ok", .bool(winner != nil)),
            ("url", winningResult.map { .string($0.route.url) } ?? .null),
            ("winner", winner.map { .int(Int64($0)) } ?? .null),
            ("mode", .string(configuration.mode.rawValue)),
            ("timeoutMs", .int(configuration.timeout.nanoseconds / 1_000_000)),
            ("staggerMs", .int(configuration.stagger.nanoseconds / 1_000_000)),
            ("elapsedMs", Self.json(elapsed)),
            ("timedOut", .bool(timedOut)),
            ("routes", .array(routes)),
            ("error", error),
        ])
    }
}
