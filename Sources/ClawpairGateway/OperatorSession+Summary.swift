// One-line renderings of what an operator session resolved and what the gateway said, for a
// program's log (the CLI prints them under -v), and the wrong-scheme diagnosis of a failed
// connect.

import ClawpairCore
import ClawpairProbe

extension OperatorTarget {
    /// `wss://gw.example:18789/ (paired gateway 'lab')`: the URL, and the registry record's name
    /// when the gateway is a paired one.
    public var summary: String {
        endpoint.url + (record.map { " (paired gateway '\($0.name)')" } ?? "")
    }
}

extension HelloOK {
    /// `protocol 4, gateway 2026.7.1, role operator, scopes operator.admin,operator.pairing`
    /// (`?` for what the gateway left out; its version is sanitized).
    public var summary: String {
        "protocol \(protocolVersion), gateway \(TerminalText.sanitize(serverVersion ?? "?", maxScalars: 40)), "
            + "role \(role ?? "?"), scopes \(scopes.joined(separator: ","))"
    }
}

/// A connect that failed because the URL's scheme is the wrong one for the port.
public struct WrongScheme: Sendable, Equatable {
    /// The URL with the scheme that works there.
    public var url: String
    /// What the port speaks instead: "this port speaks TLS", or "this port speaks plaintext
    /// WebSocket, not TLS".
    public var explanation: String

    /// A diagnosis: `url` works where the connect failed, for the reason `explanation` gives.
    public init(url: String, explanation: String) {
        self.url = url
        self.explanation = explanation
    }

    /// The diagnosis of `error`, from connecting to `endpoint`, when the wrong scheme explains
    /// it and the other scheme works there: `ws://` to a TLS port (the connection closes without
    /// an HTTP answer: ``GatewayError/notGateway(url:reason:)``) or `wss://` to a plaintext one
    /// (the TLS handshake fails: ``GatewayError/unreachable(url:phase:reason:)`` in phase `tls`).
    /// `otherScheme` tries the other scheme and returns its URL when it works; by default
    /// ``SchemeCheck/otherScheme(host:port:tls:path:timeout:resolver:)``, which probes it. It is
    /// called only for those two failures.
    public static func diagnose(_ error: any Error, endpoint: GatewayEndpoint,
                                otherScheme: (GatewayEndpoint) -> String? = WrongScheme.probeOtherScheme) -> WrongScheme? {
        switch error {
        case GatewayError.notGateway where !endpoint.tls: break
        case GatewayError.unreachable(_, let phase, _) where endpoint.tls && phase == "tls": break
        default: return nil
        }
        guard let url = otherScheme(endpoint) else { return nil }
        return WrongScheme(url: url, explanation: endpoint.tls ? "this port speaks plaintext WebSocket, not TLS" : "this port speaks TLS")
    }

    /// ``SchemeCheck/otherScheme(host:port:tls:path:timeout:resolver:)`` for `endpoint`.
    public static func probeOtherScheme(_ endpoint: GatewayEndpoint) -> String? {
        SchemeCheck.otherScheme(host: endpoint.host, port: endpoint.port, tls: endpoint.tls, path: endpoint.path)
    }
}

extension OperatorTargetChoice {
    /// `url` when given, else the registry gateway `registryGateway`, else ``automatic``; nil
    /// when both are given (the caller must choose one).
    public init?(url: String?, registryGateway: String?) {
        switch (url, registryGateway) {
        case (.some, .some): return nil
        case (.some(let url), nil): self = .url(url)
        case (nil, .some(let name)): self = .registryGateway(name)
        case (nil, nil): self = .automatic
        }
    }
}
