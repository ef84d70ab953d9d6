import ClawpairAdvertise
import ClawpairTestSupport
import Testing

/// advertise's health check on loopback against the probe fixture server: the WebSocket
/// upgrade of the configured port is enough (the check does not wait for connect.challenge),
/// and something that is not a WebSocket server still fails.
@Suite("advertise health check", .serialized)
struct ProbeHealthCheckTests {
    @Test("a port that upgrades answers, without waiting for connect.challenge (a server that never sends one)")
    func upgradeIsEnough() async throws {
        try await withFixtureServer(mode: "silent") { port in
            let health = ProbeHealthCheck(timeout: .seconds(20)).check(AdvertiseSettings(port: port))
            #expect(health.answering, "\(health)")
        }
        try await withFixtureServer(mode: "gateway") { port in
            #expect(ProbeHealthCheck().check(AdvertiseSettings(port: port)).answering)
        }
    }

    @Test("a plain HTTP server on the port does not answer as a gateway")
    func plainHTTPFails() async throws {
        try await withFixtureServer(mode: "http") { port in
            let health = ProbeHealthCheck().check(AdvertiseSettings(port: port))
            #expect(!health.answering, "\(health)")
        }
    }
}
