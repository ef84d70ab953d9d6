// What probing one route found: the phase it reached, per-phase timings, the TLS certificate it
// saw, and either success or one failure with its reason code.

import ClawpairTransport

/// The steps of a probe, in order.
public enum ProbePhase: String, Sendable, Equatable, CaseIterable, Comparable {
    /// Waiting for its turn in the race.
    case queued
    /// Resolving the host name (AAAA and A).
    case dns
    /// Connecting (Happy Eyeballs over the resolved addresses).
    case tcp
    /// The TLS handshake and the certificate check.
    case tls
    /// The WebSocket upgrade (request sent, waiting for 101).
    case ws
    /// Upgraded; waiting for the first message, which must be `connect.challenge`.
    case challenge
    /// Finished.
    case done

    /// Ordered as the steps happen.
    public static func < (lhs: ProbePhase, rhs: ProbePhase) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Why a route did not pass. `code` is its stable identifier (carried by JSON reports).
public enum ProbeFailure: Sendable, Equatable {
    /// `ws://` to a host the plaintext policy refuses; not dialed (`needs-wss`).
    case needsTLS
    /// The host name did not resolve (`dns-failed`).
    case resolutionFailed(String)
    /// The connection was refused: a TCP reset (`refused`).
    case refused(String)
    /// No route to the host, or another connect error (`unreachable`).
    case unreachable(String)
    /// The run's deadline passed in this phase (`timeout`).
    case timeout(ProbePhase)
    /// No pin, and the certificate failed system trust or the name check (`tls-untrusted`).
    case tlsUntrusted(observed: String?, reason: String?)
    /// The certificate does not match the expected pin (`pin-mismatch`).
    case pinMismatch(expected: String, observed: String)
    /// The server presented no certificate although a pin is expected (`tls-untrusted`).
    case certificateUnavailable
    /// The TLS handshake failed: not TLS, an alert, or a reset (`tls-failed`).
    case tlsFailed(String)
    /// The server did not accept a WebSocket upgrade (`not-websocket`): a plain HTTP answer,
    /// not HTTP at all, or a connection closed before answering.
    case notWebSocket(String)
    /// Upgraded, but the first message was not `connect.challenge`, or the connection closed
    /// before it (`not-gateway`).
    case notGateway(String)
    /// Another route won first, or the run stopped, while this one was in `phase` (`cancelled`).
    case cancelled(ProbePhase)

    /// The stable reason code.
    public var code: String {
        switch self {
        case .needsTLS: return "needs-wss"
        case .resolutionFailed: return "dns-failed"
        case .refused: return "refused"
        case .unreachable: return "unreachable"
        case .timeout: return "timeout"
        case .tlsUntrusted, .certificateUnavailable: return "tls-untrusted"
        case .pinMismatch: return "pin-mismatch"
        case .tlsFailed: return "tls-failed"
        case .notWebSocket: return "not-websocket"
        case .notGateway: return "not-gateway"
        case .cancelled: return "cancelled"
        }
    }

    /// Whether this is a TLS trust failure (a refusal, rather than nothing answering).
    public var isTrustFailure: Bool {
        switch self {
        case .tlsUntrusted, .pinMismatch, .certificateUnavailable: return true
        default: return false
        }
    }

    /// One line for humans.
    public var message: String {
        switch self {
        case .needsTLS: return "plaintext ws:// to this host is refused; it needs wss://"
        case .resolutionFailed(let detail): return detail
        case .refused(let detail): return "connection refused (\(detail))"
        case .unreachable(let detail): return detail
        case .timeout(let phase): return "no answer within the time limit (\(phase.rawValue))"
        case .tlsUntrusted(let observed, let reason):
            return "TLS certificate not trusted" + (reason.map { ": \($0)" } ?? "")
                + (observed.map { " (sha256 \($0))" } ?? "")
        case .pinMismatch(let expected, let observed): return "TLS certificate sha256 \(observed) does not match the pin \(expected)"
        case .certificateUnavailable: return "the server presented no TLS certificate, but a pin is expected"
        case .tlsFailed(let detail): return "TLS handshake failed: \(detail)"
        case .notWebSocket(let detail): return "not a WebSocket endpoint: \(detail)"
        case .notGateway(let detail): return "not an OpenClaw gateway: \(detail)"
        case .cancelled(let phase): return phase == .queued ? "not started: another route won first" : "cancelled: another route won first"
        }
    }
}

/// When each phase of a probe ended, relative to the run's start.
public struct ProbeTimings: Sendable, Equatable {
    /// When the route was started (its stagger offset).
    public var started: Duration?
    /// Name resolution (zero for IP literals).
    public var dns: Duration?
    /// TCP connect.
    public var tcp: Duration?
    /// TLS handshake (nil for `ws://`).
    public var tls: Duration?
    /// WebSocket upgrade: request to 101.
    public var ws: Duration?
    /// From the 101 to the `connect.challenge` message.
    public var challenge: Duration?
    /// From the route's start to the end (success or failure).
    public var total: Duration?

    /// No timings yet.
    public init() {}
}

/// Everything learned about one route.
public struct ProbeResult: Sendable, Equatable {
    /// The route.
    public var route: ProbeRoute
    /// Its position among the routes (0-based).
    public var index: Int
    /// The last phase it entered.
    public var phase: ProbePhase
    /// Nil when the route passed.
    public var failure: ProbeFailure?
    /// Phase timings.
    public var timings: ProbeTimings
    /// The address that answered (after Happy Eyeballs).
    public var address: SocketAddress?
    /// The certificate seen on a TLS route (the fingerprint is always reported).
    public var certificate: TLSPeerCertificate?
    /// How the certificate was accepted, when it was.
    public var trust: TLSTrustBasis?
    /// The negotiated TLS version.
    public var tlsVersion: String?
    /// The challenge's `ts` (the gateway's clock, epoch ms), when present.
    public var challengeTimestamp: Int64?

    /// Whether the route passed every phase.
    public var reachable: Bool { failure == nil && phase == .done }

    /// A result for route number `index`, queued (nothing tried yet).
    public init(route: ProbeRoute, index: Int) {
        self.route = route
        self.index = index
        self.phase = .queued
        self.timings = ProbeTimings()
    }
}
