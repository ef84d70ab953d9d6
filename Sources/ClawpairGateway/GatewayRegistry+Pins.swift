import ClawpairProbe

extension RegistrySnapshot {
    /// Pins each `wss://` route without a pin to the certificate fingerprint stored for the
    /// paired gateway with that URL (pin source ``ProbeRoute/PinSource/registry``), as a probe of
    /// a paired gateway should: its certificate was accepted when it was paired.
    public func pinPaired(_ routes: inout [ProbeRoute]) {
        for index in routes.indices where routes[index].tls && routes[index].pin == nil {
            if let gateway = gateways.first(where: { $0.tlsFingerprint != nil && $0.matches(url: routes[index].url) }) {
                routes[index].pin = gateway.tlsFingerprint
                routes[index].pinSource = .registry
            }
        }
    }
}
