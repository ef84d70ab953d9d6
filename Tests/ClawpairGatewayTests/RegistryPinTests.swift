import ClawpairGateway
import ClawpairProbe
import Testing

/// A paired gateway's stored fingerprint pins the wss:// routes to its URLs that have no pin.
@Suite struct RegistryPinTests {
    @Test("only unpinned wss:// routes to a paired URL are pinned, with pin source registry")
    func pinsPairedRoutes() {
        let stored = String(repeating: "cd", count: 32), given = String(repeating: "ef", count: 32)
        let snapshot = RegistrySnapshot(gateways: [
            PairedGateway(name: "home", urls: ["wss://gw.example:443"], tlsFingerprint: stored, deviceId: "d1", pairedAtMs: 1),
            PairedGateway(name: "lan", urls: ["wss://10.0.0.9:443"], deviceId: "d1", pairedAtMs: 2),
        ])
        var routes = [
            ProbeRoute(host: "GW.example", port: 443, tls: true, input: "a", source: .url),
            ProbeRoute(host: "gw.example", port: 443, tls: true, input: "b", source: .url, pin: given, pinSource: .caller),
            ProbeRoute(host: "10.0.0.9", port: 443, tls: true, input: "c", source: .url),
            ProbeRoute(host: "gw.example", port: 443, tls: false, input: "d", source: .url),
        ]
        snapshot.pinPaired(&routes)
        #expect(routes.map(\.pin) == [stored, given, nil, nil])
        #expect(routes.map(\.pinSource) == [.registry, .caller, nil, nil])
    }
}
