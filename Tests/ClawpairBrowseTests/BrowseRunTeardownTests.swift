import ClawpairAvahi
@testable import ClawpairBrowse
import ClawpairCore
import ClawpairDNS
import ClawpairMDNS
import ClawpairWideArea
import Synchronization
import Testing

/// A browse that returned has released everything it opened: its Avahi client is freed and no
/// thread of its backends goes on (an Avahi teardown, a wide-area query in flight). Each fake's
/// clean-up waits for a gate the test opens only after the call returned, so a run that returned
/// first is caught every time instead of racing its threads.
@Suite(.timeLimit(.minutes(1))) struct BrowseRunTeardownTests {
    /// A wide-area browse whose query never gets an answer: it raises `sent`, waits until its
    /// stop is raised, then for the gate, then logs that it ended.
    final class InFlightUnicast: WideAreaBrowsing {
        let servers = [Fixture.serverA]
        let serviceType = "_openclaw-gw._tcp"
        let stop: StopSignal
        let sent: StopSignal
        let gate: StopSignal
        let log: Log

        init(stop: StopSignal, sent: StopSignal, gate: StopSignal, log: Log) {
            self.stop = stop
            self.sent = sent
            self.gate = gate
            self.log = log
        }

        func browse(domain: String, deadline: Monotonic.Instant,
                    onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> WideAreaBrowseResult {
            log.add("wide-area query sent")
            sent.stop()
            FakeWait.hold(stop)
            FakeWait.hold(gate, bound: FakeWait.gateBound)
            log.add("wide-area ended")
            throw .timedOut(name: "_openclaw-gw._tcp." + domain)
        }
    }

    /// Avahi reports a gateway once the wide-area query is in flight, then waits for more.
    static func backends(gate: StopSignal, log: Log) -> BrowseBackends {
        let sent = StopSignal()
        var backends = Fixture.backends(
            avahi: {
                let fake = FakeAvahi([.added(Fixture.instance("Studio", interface: 2)),
                                      Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"])], log: log)
                fake.holdOpen = true
                fake.closeGate = gate
                fake.startGate = sent
                return fake
            }, log: log)
        backends.unicast = { _, _, stop, _ in InFlightUnicast(stop: stop, sent: sent, gate: gate, log: log) }
        return backends
    }

    static func browser(_ backends: BrowseBackends) -> GatewayBrowser {
        GatewayBrowser(options: .init(backend: .avahi, domains: ["openclaw.internal"], environment: [:],
                                      tailnetFallback: false, timeout: .seconds(3600)),
                       backends: backends)
    }

    @Test("a first answer returns with the Avahi client freed and the wide-area query in flight ended")
    func firstAnswer() throws {
        let log = Log(), gate = StopSignal()
        let found = try Self.browser(Self.backends(gate: gate, log: log)).first()
        let afterReturn = log.all
        gate.stop()
        #expect(found?.key == "local.|Studio")
        #expect(afterReturn.contains("avahi closed"), "\(afterReturn)")
        #expect(afterReturn.contains("wide-area query sent") && afterReturn.contains("wide-area ended"), "\(afterReturn)")
        log.waitUntil { $0.contains("avahi closed") && $0.contains("wide-area ended") }
    }

    @Test("a watch ended by its caller, and one stopped from outside, return with every backend closed",
          arguments: [false, true])
    func watchEnded(fromOutside: Bool) throws {
        let log = Log(), gate = StopSignal(), stop = StopSignal()
        let browser = Self.browser(Self.backends(gate: gate, log: log)).stopping(on: stop)
        do {
            try browser.watch { _ in
                // The wide-area query is in flight (Avahi reports only then).
                if fromOutside {
                    stop.stop()
                    return true
                }
                return false
            }
            #expect(!fromOutside, "a stopped watch throws")
        } catch {
            #expect(fromOutside && BrowseError(error).code == "cancelled", "\(error)")
        }
        let afterReturn = log.all
        gate.stop()
        #expect(afterReturn.contains("avahi closed"), "\(afterReturn)")
        #expect(afterReturn.contains("wide-area query sent") && afterReturn.contains("wide-area ended"), "\(afterReturn)")
        log.waitUntil { $0.contains("avahi closed") && $0.contains("wide-area ended") }
    }
}
