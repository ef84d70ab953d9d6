// Probe candidates: what `clawpair probe` was given, turned into routes to dial.
//
// Checklist, adding a candidate source (e.g. discovered beacons):
// 1. add a case to `ProbeRoute.Source` and a constructor here that fills `pin`
//    only from a pin the user or a setup code supplied (never from an advertised TXT value);
// 2. make sure `ProbeRoute.plaintextRefused` is right for it (the plaintext policy);
// 3. add unit cases to `ProbeRouteTests` and a row to the man page's CANDIDATES section.

import ClawpairCore
import ClawpairSetupCode

/// One route to probe: where to dial, whether TLS, which path, and the pin that must match.
public struct ProbeRoute: Sendable, Equatable {
    /// Where the route came from.
    public enum Source: Sendable, Equatable {
        /// A `ws://`/`wss://`/`http(s)://` URL given as a candidate.
        case url
        /// A bare `host[:port]` candidate.
        case hostPort
        /// Route `route` (0-based; 0 is the primary) of setup code `code` (0-based, in candidate order).
        case setupCode(code: Int, route: Int)
        /// A route the setup code's decoder dropped because it is plaintext to a host that needs TLS.
        case setupCodeDropped(code: Int)
        /// A gateway local discovery found: its resolved SRV host and port (`discovery.md` §6).
        case discovered(instance: String)
    }

    /// Where a pin came from.
    public enum PinSource: Sendable, Equatable, CaseIterable {
        /// The setup code's `tlsFingerprint` (primary route only).
        case setupCode
        /// A pin the caller supplied.
        case caller
        /// A fingerprint the user confirmed after seeing it.
        case trust
        /// The pin stored for a paired gateway with this URL (the registry).
        case registry

        /// A stable name for reports: `setup-code`, `caller`, `confirmed`, `registry`.
        public var name: String {
            switch self {
            case .setupCode: return "setup-code"
            case .caller: return "caller"
            case .trust: return "confirmed"
            case .registry: return "registry"
            }
        }
    }

    /// The host: a name, an IPv4 literal or an IPv6 literal without brackets.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// Whether the route is `wss://`.
    public var tls: Bool
    /// The request path (`/` or the gateway's context path).
    public var path: String
    /// The candidate as the user wrote it (for a setup code, a redacted label).
    public var input: String
    /// Where the route came from.
    public var source: Source
    /// The SHA-256 leaf fingerprint that must match (64 lowercase hex), or nil.
    public var pin: String?
    /// Where `pin` came from.
    public var pinSource: PinSource?
    /// Addresses already known for `host` (from an mDNS answer), dialed instead of resolving it;
    /// empty to resolve `host` with the system resolver.
    public var knownAddresses: [String]

    /// A route with these members.
    public init(host: String, port: Int, tls: Bool, path: String = "/", input: String, source: Source,
                pin: String? = nil, pinSource: PinSource? = nil, knownAddresses: [String] = []) {
        self.host = host
        self.port = port
        self.tls = tls
        self.path = path
        self.input = input
        self.source = source
        self.pin = pin
        self.pinSource = pinSource
        self.knownAddresses = knownAddresses
    }

    /// The route as a URL: `wss://host:port/path`, the port always shown.
    public var url: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "wss" : "ws")://\(bracketed):\(port)\(path == "/" ? "" : path)"
    }

    /// Whether the plaintext policy (`setup-codes.md` §5) refuses this route: `ws://` to a host
    /// that is not loopback, private LAN, link-local or `.local`.
    public var plaintextRefused: Bool {
        !tls && !PlaintextPolicy.allowsPlaintext(host: host)
    }

    init(endpoint: SetupEndpoint, input: String, source: Source) {
        self.init(host: endpoint.host, port: endpoint.port, tls: endpoint.tls, path: endpoint.contextPath ?? "/",
                  input: input, source: source)
    }
}

/// Why a candidate could not be turned into routes (the gateway-address parser's error).
public typealias ProbeCandidateError = GatewayAddress.ParseError

/// Turns candidate arguments into routes.
public enum ProbeCandidates {
    /// The default gateway port for `host` candidates without one.
    public static let defaultPort = SetupEndpoint.defaultPlaintextPort

    /// What one argument is.
    public enum Kind: Sendable, Equatable {
        /// A gateway URL.
        case url
        /// A bare host with an optional port.
        case hostPort
        /// A setup code in any form ``SetupCode/parse(_:)`` accepts (and whether it carries credentials).
        case setupCode(hasCredentials: Bool)
    }

    /// Classifies and expands one candidate. `setupCodeIndex` says which setup code of a run this
    /// is, when it is one (0 for the first or only one): route labels and ``ProbeRoute/Source``
    /// carry it.
    ///
    /// - `ws://`, `wss://`, `http://`, `https://` URLs: one route (`http` → `ws`, `https` → `wss`;
    ///   a `ws://` URL without a port dials 18789, a `wss://` one 443).
    /// - Anything the setup-code decoder accepts except a raw URL: every route in order, the
    ///   code's `tlsFingerprint` pinned on the primary route; routes the decoder dropped as
    ///   plaintext to a public host follow, to be reported as needing `wss://`.
    /// - Otherwise `host[:port]` (IPv6 in brackets): port 18789 by default; `ws://` when the
    ///   plaintext policy allows the host, `wss://` otherwise (the apps' rule for manual hosts).
    public static func expand(_ text: String, setupCodeIndex: Int = 0) throws(ProbeCandidateError) -> (kind: Kind, routes: [ProbeRoute]) {
        let trimmed = GatewayAddress.trimmed(text)
        switch try GatewayAddress.parse(text) {
        case .url(let endpoint):
            return (.url, [ProbeRoute(endpoint: endpoint, input: trimmed, source: .url)])
        case .hostPort(let endpoint):
            return (.hostPort, [ProbeRoute(endpoint: endpoint, input: trimmed, source: .hostPort)])
        case .setupCode(let decoded):
            let credentials = decoded.bootstrapToken != nil || decoded.token != nil || decoded.password != nil
            return (.setupCode(hasCredentials: credentials), routes(of: decoded, setupCodeIndex: setupCodeIndex))
        case .plaintextSetupCode(let host):
            // Every route is plaintext to a host that needs TLS: report it as such.
            let route = ProbeRoute(host: host, port: defaultPort, tls: false, input: "setup code #\(setupCodeIndex + 1)",
                                   source: .setupCodeDropped(code: setupCodeIndex))
            return (.setupCode(hasCredentials: true), [route])
        }
    }

    /// The routes of a decoded setup code: kept routes in order (pin on the primary), then the
    /// dropped plaintext ones. `setupCodeIndex` as in ``expand(_:setupCodeIndex:)``.
    public static func routes(of decoded: DecodedSetup, setupCodeIndex: Int = 0) -> [ProbeRoute] {
        var routes: [ProbeRoute] = []
        for (i, endpoint) in decoded.endpoints.enumerated() {
            var route = ProbeRoute(endpoint: endpoint, input: "setup code #\(setupCodeIndex + 1) route \(i + 1)",
                                   source: .setupCode(code: setupCodeIndex, route: i))
            if i == 0, endpoint.tls, let pin = decoded.tlsFingerprint {
                route.pin = pin
                route.pinSource = .setupCode
            }
            routes.append(route)
        }
        for dropped in decoded.dropped where dropped.reason == .insecurePlaintextHost {
            if let endpoint = SetupURL.parse(dropped.route, defaultScheme: .ws) {
                routes.append(ProbeRoute(endpoint: endpoint, input: "setup code #\(setupCodeIndex + 1) (dropped route)",
                                         source: .setupCodeDropped(code: setupCodeIndex)))
            }
        }
        return routes
    }

    /// The route of a discovered gateway: its resolved SRV `host` and `port`, `wss://` when the
    /// beacon says `gatewayTls`, dialed at the `addresses` the discovery answer carried. An
    /// advertised TXT fingerprint is deliberately not a parameter: it never becomes a pin.
    public static func discovered(instance: String, host: String, port: Int, tls: Bool, addresses: [String]) -> ProbeRoute {
        var name = host
        if name.hasSuffix(".") { name.removeLast() }
        return ProbeRoute(host: name.lowercased(), port: port, tls: tls, input: "discovered: \(instance)",
                          source: .discovered(instance: instance), knownAddresses: addresses)
    }

    /// Applies a pin the caller supplied or the user confirmed to every TLS route that has no pin of its own.
    public static func applyPin(_ pin: String, source: ProbeRoute.PinSource, to routes: inout [ProbeRoute]) {
        for index in routes.indices where routes[index].tls && routes[index].pin == nil {
            routes[index].pin = pin
            routes[index].pinSource = source
        }
    }

    /// A candidate for error messages: short ones as they are, long ones (setup codes, which are
    /// secrets) cut to their first 8 characters.
    public static func redacted(_ text: String) -> String { GatewayAddress.redacted(text) }
}
