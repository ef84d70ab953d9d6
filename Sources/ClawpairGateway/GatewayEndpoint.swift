import ClawpairProbe
import ClawpairSetupCode

/// Where a gateway listens, and the certificate pin that must match there.
public struct GatewayEndpoint: Sendable, Equatable {
    /// The default gateway URL: the local gateway on its default port.
    public static let defaultURL = "ws://127.0.0.1:18789"

    /// The host: a name, or an IP literal without brackets.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// Whether to use TLS (`wss://`).
    public var tls: Bool
    /// The request path (`/`, or the gateway's context path).
    public var path: String
    /// The SHA-256 of the leaf certificate that must match (64 lowercase hex), or nil to use the
    /// system roots.
    public var pin: String?
    /// Addresses to dial instead of resolving `host` (empty: resolve it).
    public var knownAddresses: [String]

    /// An endpoint with these members.
    public init(host: String, port: Int, tls: Bool, path: String = "/", pin: String? = nil, knownAddresses: [String] = []) {
        self.host = host
        self.port = port
        self.tls = tls
        self.path = path
        self.pin = pin
        self.knownAddresses = knownAddresses
    }

    /// Parses `ws://`/`wss://` (or `http(s)://`) URLs and `host[:port]` (``GatewayAddress``).
    public init(parsing text: String) throws(GatewayError) {
        let address: GatewayAddress
        do {
            address = try GatewayAddress.parse(text)
        } catch {
            switch error {
            case .unrecognized(let shortened): throw .invalidURL(shortened, reason: "not a ws://, wss:// URL or host[:port]")
            case .setupCode: throw .invalidURL(GatewayAddress.redacted(text), reason: "not a ws://, wss:// URL or host[:port]")
            }
        }
        switch address {
        case .url(let endpoint), .hostPort(let endpoint):
            self.init(host: endpoint.host, port: endpoint.port, tls: endpoint.tls, path: endpoint.contextPath ?? "/")
        case .setupCode, .plaintextSetupCode:
            throw .invalidURL(GatewayAddress.redacted(text), reason: "it is a setup code, not a gateway URL")
        }
    }

    /// The endpoint of a probed route (keeping its pin and known addresses).
    public init(route: ProbeRoute) {
        self.init(host: route.host, port: route.port, tls: route.tls, path: route.path, pin: route.pin,
                  knownAddresses: route.knownAddresses)
    }

    /// `ws[s]://host:port[/path]`.
    public var url: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "wss" : "ws")://\(bracketed):\(port)\(path == "/" ? "" : path)"
    }

    /// Whether the host is a loopback address or `localhost`.
    public var isLoopback: Bool { PlaintextPolicy.isLoopback(host: host) }

    /// Whether a refused shared token may be retried here with the stored device token
    /// (upstream's trusted endpoint, `docs/gateway/protocol/auth.md`): loopback, or `wss://`
    /// with a certificate pin (`pin`, the one this connection checks). A public `wss://` trusted
    /// through the system's CAs alone never qualifies.
    func admitsDeviceTokenRetry(pin: String?) -> Bool {
        isLoopback || (tls && pin != nil)
    }

    /// Whether the plaintext policy allows `ws://` to this host (loopback, private LAN,
    /// link-local, `.local`).
    public var allowsPlaintext: Bool { PlaintextPolicy.allowsPlaintext(host: host) }
}
