import ClawpairTransport

/// Whether a gateway URL that failed in a way a wrong scheme explains (`ws://` answered with
/// silence or a closed connection, `wss://` with a failed TLS handshake) works with the other
/// scheme: one short probe of the same host, port and path.
public enum SchemeCheck {
    /// The URL with the other scheme when it gets further: for `wss://`, the TLS handshake
    /// completes (whatever the certificate: trusting it is a separate decision); for `ws://`,
    /// an OpenClaw gateway answers in plaintext (only where the plaintext policy allows `ws://`:
    /// a public host is never suggested without TLS). Nil when it does not, or cannot be probed.
    public static func otherScheme(host: String, port: Int, tls: Bool, path: String = "/",
                                   timeout: Duration = .seconds(2),
                                   resolver: any HostResolver = SystemResolver()) -> String? {
        let route = ProbeRoute(host: host, port: port, tls: !tls, path: path, input: "", source: .url)
        let configuration = ProbeConfiguration(timeout: timeout, allowInsecure: false)
        guard let report = try? Prober.run(routes: [route], configuration: configuration, resolver: resolver),
              let result = report.results.first else { return nil }
        let works = result.reachable || (!tls && result.failure?.isTrustFailure == true)
        return works ? route.url : nil
    }
}
