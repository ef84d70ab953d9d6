// The probe race for `async` callers (see ClawpairCore's LoopThread).

import ClawpairCore
import ClawpairTransport

extension Prober {
    /// ``run(routes:configuration:resolver:clock:stop:)`` on a thread of its own: the calling
    /// task is suspended, and cancelling it ends the race within milliseconds with
    /// ``TransportError/cancelled``.
    public static func run(routes: [ProbeRoute], configuration: ProbeConfiguration = ProbeConfiguration()) async throws(TransportError) -> ProbeReport {
        try await LoopThread.run { (stop: StopSignal) throws(TransportError) -> ProbeReport in
            try Prober.run(routes: routes, configuration: configuration, stop: stop)
        }
    }
}
