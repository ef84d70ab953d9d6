import ClawpairCore
import ClawpairIdentity
import ClawpairSetupCode
import Foundation
import Testing
@testable import ClawpairGateway

/// Stopping a pairing: during the wait for approval (between attempts) and before the first
/// attempt, on the scripted gateway and stepped clock of GatewayPairingTests. A stopped run
/// ends with the cancelled outcome and stores nothing.
@Suite struct GatewayPairingStopTests {
    typealias Scripted = GatewayPairingTests.ScriptedGateway

    /// A stepped clock whose first sleep raises `stop`, as another thread would mid-wait.
    final class RaisingClock: PairingClock, @unchecked Sendable {
        let inner = GatewayPairingTests.SteppedClock()
        let stop: StopSignal
        private(set) var sleeps = 0
        init(_ stop: StopSignal) { self.stop = stop }
        var now: Monotonic.Instant { inner.now }
        var wallClockMs: Int64 { inner.wallClockMs }
        func sleep(until deadline: Monotonic.Instant, unless stopped: () -> Bool) {
            sleeps += 1
            stop.stop()
            inner.sleep(until: deadline, unless: stopped)
        }
    }

    static func run(_ gateway: Scripted, stop: StopSignal, clock: any PairingClock) throws -> (Result<PairingResult, PairingError>, GatewayRegistry) {
        let registry = GatewayRegistry(home: NSTemporaryDirectory() + "clawpair-pairing-stop-\(UUID().uuidString.prefix(8))")
        var pairing = GatewayPairing(setup: try GatewayPairingTests.setup(),
                                     options: PairingOptions(deviceName: "kitchen-pi", wait: .seconds(300)),
                                     registry: registry, transport: gateway, clock: clock)
        pairing.stop = stop
        let identity = try DeviceIdentity.generate(createdAtMs: 1)
        do {
            return (.success(try pairing.run(identity: identity)), registry)
        } catch {
            return (.failure(error), registry)
        }
    }

    @Test("a stop during the wait for approval ends the run with cancelled; nothing is stored")
    func stopDuringWait() throws {
        let stop = StopSignal()
        let clock = RaisingClock(stop)
        let gateway = Scripted([GatewayPairingTests.pending("req-1"), GatewayPairingTests.pending("req-1"),
                                GatewayPairingTests.hello()])
        let (outcome, registry) = try Self.run(gateway, stop: stop, clock: clock)
        guard case .failure(let error) = outcome else { Issue.record("paired despite the stop"); return }
        #expect(error.code == "cancelled")
        guard case .gateway(.cancelled) = error else { Issue.record("\(error)"); return }
        #expect(gateway.requests.count == 1)
        #expect(clock.sleeps == 1)
        #expect(registry.list().gateways.isEmpty)
    }

    @Test("a stop raised before the run connects nowhere")
    func stoppedBefore() throws {
        let stop = StopSignal()
        stop.stop()
        let gateway = Scripted([GatewayPairingTests.hello()])
        let (outcome, registry) = try Self.run(gateway, stop: stop, clock: GatewayPairingTests.SteppedClock())
        guard case .failure(.gateway(.cancelled)) = outcome else { Issue.record("\(outcome)"); return }
        #expect(gateway.requests.isEmpty)
        #expect(registry.list().gateways.isEmpty)
    }
}
