import ClawpairBrowse
import ClawpairCore
import ClawpairWideArea
import Synchronization
import Testing

/// TailnetDetection on a ManualClock: the answer is kept for `validity` of the injected clock's
/// time, and the probe's deadline is the status budget from that clock's now.
@Suite("TailnetDetection")
struct TailnetDetectionTests {
    static let status = Array(#"{"Self":{"TailscaleIPs":["100.101.102.103","fd7a:115c:a1e0::1"]}}"#.utf8)

    @Test("the answer is kept for validity on the injected clock, then asked again")
    func cacheOnInjectedClock() {
        let clock = ManualClock()
        let deadlines = Mutex<[Monotonic.Instant]>([])
        let detection = TailnetDetection(probe: { deadline in
            deadlines.withLock { $0.append(deadline) }
            return Self.status
        }, clock: clock)
        let start = clock.now
        #expect(detection.address(deadline: start + .seconds(5)) == "100.101.102.103")
        #expect(deadlines.withLock { $0 } == [start + TailnetFallback.statusBudget], "the budget from the injected now")

        clock.advance(by: TailnetDetection.validity - .seconds(1))
        #expect(detection.address(deadline: clock.now + .seconds(5)) == "100.101.102.103")
        #expect(deadlines.withLock { $0.count } == 1, "still valid: not asked again")

        clock.advance(by: .seconds(2))
        let deadline = clock.now + .milliseconds(100)
        #expect(detection.address(deadline: deadline) == "100.101.102.103")
        #expect(deadlines.withLock { $0 }.last == deadline, "expired: asked again, within the caller's nearer deadline")
    }
}
