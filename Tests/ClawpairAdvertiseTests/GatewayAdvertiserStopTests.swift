import ClawpairAdvertise
import ClawpairCore
import Testing

/// The advertiser stopped through a StopSignal raised on another thread: its wait is woken, the
/// beacon withdrawn and the run returns (no deadline would end it otherwise).
@Suite struct GatewayAdvertiserStopTests {
    @Test("run(stopping:) returns once another thread raises the signal, having withdrawn the beacon")
    func stopSignalEndsRun() throws {
        let helpers = GatewayAdvertiserTests()
        let script = GatewayAdvertiserTests.Script()
        let daemon = GatewayAdvertiserTests.FakeDaemon(script)
        let stop = StopSignal()
        var events: [AdvertiserEvent] = []
        let subject = try helpers.advertiser(script, daemon: daemon, gateway: nil, load: { AdvertiseSettings(port: 18789) },
                                             events: { event in
                                                 events.append(event)
                                                 if case .registered = event { BackgroundThread.detached { stop.stop() } }
                                             })
        try subject.run(stopping: stop)
        #expect(helpers.names(events) == ["registered lab (OpenClaw)", "withdrawn lab (OpenClaw)"])
        #expect(daemon.log.last?.hasPrefix("withdraw@") == true)
    }
}
