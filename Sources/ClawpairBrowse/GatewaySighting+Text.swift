import ClawpairCore
import ClawpairDiscovery

/// What a part of a sighting's text block is (``TextRole/bold`` the title, ``TextRole/warning``
/// no usable URL or plaintext to a host that needs TLS, ``TextRole/dim`` a qualifier).
public typealias SightingTextRole = TextRole

extension GatewaySighting {
    /// The width of the labels in ``textBlock(paint:)``.
    static let labelWidth = 11

    /// The block of text that shows this gateway to people: its title, then labelled lines (an
    /// instance name that differs from the title, the URL to use, TLS and the advertised
    /// fingerprint, whether it says it is directly reachable, addresses, the LAN, tailnet and SSH hints, the domain, the backend), each
    /// ending in a newline. Every value from the network is sanitized; `paint` styles each role.
    public func textBlock(paint: (SightingTextRole, String) -> String = { $1 }) -> String {
        func clean(_ text: String) -> String { TerminalText.sanitize(text, maxScalars: 256) }
        var out = paint(.bold, clean(beacon.title)) + "\n"
        func line(_ label: String, _ value: String) {
            out += "  " + label + String(repeating: " ", count: max(1, Self.labelWidth - label.count)) + value + "\n"
        }
        if beacon.instanceName != beacon.title { line("instance", clean(beacon.instanceName)) }
        if let endpoint = beacon.endpoint {
            var url = clean(endpoint.url)
            if !endpoint.mayConnect { url += paint(.warning, "  (plaintext to a non-local host: needs wss://)") }
            line("url", url)
        } else {
            line("url", paint(.warning, "none: the beacon did not resolve to a usable host and port"))
        }
        if beacon.gatewayTls {
            if let pin = beacon.gatewayTlsFingerprintSha256 {
                line("tls", "yes, advertises sha256 \(clean(pin)) " + paint(.dim, "(unauthenticated hint)"))
            } else {
                line("tls", "yes")
            }
        }
        if beacon.gatewayDirectReachable {
            line("direct", "yes, binds a non-loopback address " + paint(.dim, "(unauthenticated hint)"))
        }
        if !addresses.isEmpty { line("addresses", addresses.map(clean).joined(separator: ", ")) }
        if let lan = beacon.lanHost { line("lan host", clean(lan)) }
        if let tailnet = beacon.tailnetDns { line("tailnet", clean(tailnet)) }
        if let host = beacon.endpoint?.host, beacon.sshPort != nil || beacon.txt.value("sshPort") != nil {
            let port = beacon.sshPort.flatMap { $0 == 22 ? nil : $0 }
            line("ssh", "ssh " + (port.map { "-p \($0) " } ?? "") + clean(host))
        }
        line("domain", clean(beacon.domain))
        line("seen via", backend.rawValue)
        return out
    }
}
