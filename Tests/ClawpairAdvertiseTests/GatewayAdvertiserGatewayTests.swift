import ClawpairAdvertise
import ClawpairCore
import Foundation
import Testing

/// `GatewayAdvertiser.gateway`: fixed settings advertise at once; a config source waits for the
/// gateway to answer and takes its port from the file. The fake daemon and scripted gateway of
/// GatewayAdvertiserTests, on a ManualClock.
@Suite struct GatewayAdvertiserGatewayTests {
    typealias Fakes = GatewayAdvertiserTests

    @Test func fixedSettingsAreAdvertisedWithoutAHealthCheck() throws {
        let script = Fakes.Script()
        let daemon = Fakes.FakeDaemon(script)
        var events: [AdvertiserEvent] = []
        // The health check would say the gateway is down: fixed settings never ask it.
        let subject = try GatewayAdvertiser.gateway(
            .settings(AdvertiseSettings(port: 18789)), overrides: BeaconOverrides(instanceName: "Box"), osHostname: "lab",
            healthCheck: Fakes.ScriptedGateway(script: script, down: [0...100]), registrar: daemon, clock: script.clock,
            events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 1 })
        #expect(daemon.log == ["register Box (OpenClaw):18789@0", "withdraw@1"])
        #expect(GatewayAdvertiserTests().names(events) == ["registered Box (OpenClaw)", "withdrawn Box (OpenClaw)"])
    }

    @Test func aConfigSourceWaitsForTheGatewayAndReadsItsPort() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-advertise-\(UUID().uuidString).json").path
        try "{ gateway: { port: 18790 } }".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = Fakes.Script()
        let daemon = Fakes.FakeDaemon(script)
        var events: [AdvertiserEvent] = []
        let subject = try GatewayAdvertiser.gateway(
            .config(path: path, environment: [:]), osHostname: "lab",
            healthCheck: Fakes.ScriptedGateway(script: script, down: [0...7]), registrar: daemon, clock: script.clock,
            events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 12 })
        #expect(daemon.log == ["register lab (OpenClaw):18790@10", "withdraw@12"])
        #expect(GatewayAdvertiserTests().names(events) == ["waiting", "registered lab (OpenClaw)", "withdrawn lab (OpenClaw)"])
    }

    @Test func aMissingConfigFailsAtOnce() {
        let error = #expect(throws: ClawpairErrorBox.self) {
            try GatewayAdvertiser.gateway(.config(path: "/nonexistent/openclaw.json", environment: [:]), osHostname: "lab",
                                          registrar: Fakes.FakeDaemon(Fakes.Script()), events: { _ in })
        }
        #expect(error?.message == "no OpenClaw config at /nonexistent/openclaw.json")
    }
}
