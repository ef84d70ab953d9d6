import ClawpairAvahi
@testable import ClawpairBrowse
import ClawpairCore
import ClawpairMDNS
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Stopping a browse run from another thread: the run throws the stopped outcome at once, and
/// its sources are told to end (a backend waiting for its socket or the daemon wakes and returns).
@Suite(.timeLimit(.minutes(1))) struct BrowseStopTests {
    /// A source that reports once, then browses until the run no longer listens.
    struct EndlessSource: GatewaySource {
        let log: Log

        func run(_ context: SourceContext, teardown: Teardown) throws {
            context.note("browsing")
            // Waits as a backend does: on the run's ending, woken through its descriptor (no sleep).
            let wakeup = StopWakeup(context.ending)
            var descriptors = [wakeup.pollDescriptor].compactMap { $0 }
            while !context.stopped {
                _ = try? Poll.wait(&descriptors, until: nil)
            }
            log.add("source ended")
        }
    }

    @Test("a watch with an hour to go throws BrowseError.stopped when another thread raises its signal")
    func stopEndsWatch() throws {
        let log = Log()
        let stop = StopSignal()
        let run = BrowseRun(sources: [EndlessSource(log: log)], clock: SystemMonotonicClock(), timeout: .seconds(3600),
                            firstAnswer: false, stop: stop)
        var notes: [String] = []
        let error = #expect(throws: BrowseError.self) {
            try run.run { message in
                if case .note(let line) = message {
                    notes.append(line)
                    BackgroundThread.detached { stop.stop() }
                }
                return true
            }
        }
        #expect(Self.isStopped(error))
        #expect(notes == ["browsing"])
        log.waitUntil { $0.contains("source ended") }
        #expect(log.all == ["source ended"])
    }

    @Test("a signal raised before the run starts ends it before any source reports")
    func alreadyStopped() {
        let log = Log()
        let stop = StopSignal()
        stop.stop()
        let run = BrowseRun(sources: [EndlessSource(log: log)], clock: SystemMonotonicClock(), timeout: .seconds(3600),
                            firstAnswer: false, stop: stop)
        let error = #expect(throws: BrowseError.self) { try run.run { _ in true } }
        #expect(Self.isStopped(error))
    }

    /// A browser on `backends` with an hour to go.
    static func browser(_ backends: BrowseBackends, backend: GatewayBrowser.LocalBackend) -> GatewayBrowser {
        GatewayBrowser(options: .init(backend: backend, local: true, domains: [], environment: [:],
                                      timeout: .seconds(3600)), backends: backends)
    }

    @Test("a stopped watch wakes its local backend from its wait (Avahi and the built-in querier): no thread goes on to the deadline",
          arguments: [GatewayBrowser.LocalBackend.avahi, .native])
    func stopWakesBackend(_ backend: GatewayBrowser.LocalBackend) throws {
        let log = Log()
        let backends = Fixture.backends(
            avahi: {
                let fake = FakeAvahi([.added(Fixture.instance("Studio", interface: 2)),
                                      Fixture.resolved("Studio", interface: 2, addresses: ["192.0.2.10"])], log: log)
                fake.holdOpen = true
                return fake
            },
            native: {
                let fake = FakeMDNS([Fixture.mdns("Studio")], log: log)
                fake.holdOpen = true
                return fake
            }, log: log)
        let stop = StopSignal()
        let error = #expect(throws: BrowseError.self) {
            try Self.browser(backends, backend: backend).stopping(on: stop).watch { _ in
                BackgroundThread.detached { stop.stop() }
                return true
            }
        }
        #expect(Self.isStopped(error))
        let name = backend == .avahi ? "avahi" : "native"
        log.waitUntil { $0.contains { $0.hasPrefix(name + " ") && ($0.hasSuffix("cancelled") || $0.hasSuffix("without a stop")) } }
        #expect(log.all.contains("\(name) cancelled"), "\(log.all)")
    }

    @Test("a scan that ends at its first answer tells the backend still waiting to end too")
    func firstAnswerEndsBackend() throws {
        let log = Log()
        let backends = Fixture.backends(native: {
            let fake = FakeMDNS([], log: log)
            fake.holdOpen = true
            return fake
        }, unicast: ["openclaw.internal.": [[Fixture.service("Remote")]]], log: log)
        let browser = GatewayBrowser(options: .init(backend: .native, local: true, domains: ["openclaw.internal"],
                                                    environment: [:], timeout: .seconds(3600)),
                                     backends: backends)
        #expect(try browser.first()?.key == "openclaw.internal.|Remote")
        log.waitUntil { $0.contains { $0.hasPrefix("native ") && ($0.hasSuffix("cancelled") || $0.hasSuffix("without a stop")) } }
        #expect(log.all.contains("native cancelled"), "\(log.all)")
    }

    /// Whether `error` is the stop's outcome (code `cancelled`), not a backend failure.
    static func isStopped(_ error: BrowseError?) -> Bool {
        guard case .stopped? = error else { return false }
        return error?.code == "cancelled"
    }
}
