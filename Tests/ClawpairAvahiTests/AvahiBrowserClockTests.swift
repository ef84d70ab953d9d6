import ClawpairAvahi
import ClawpairCore
import ClawpairTestSupport
import Testing

/// The Avahi backend keeps time with the clock it is given (a real avahi-daemon in the lab, as in
/// AvahiBrowserTests). The ManualClock starts far beyond the system clock's reading, so a run
/// that read the system clock would never reach its deadline; the time limit catches that hang.
@Suite("Avahi backend on an injected clock", .serialized, .networkLab, .timeLimit(.minutes(1)))
struct AvahiBrowserClockTests {
    @Test("the run ends when the injected clock passes its deadline, though every event asks for more")
    func deadlineOnInjectedClock() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, _) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let clock = ManualClock(Monotonic.Instant(nanoseconds: Int64.max / 2))
                let browser = try AvahiBrowser(type: "_nothing-here._tcp", clock: clock)
                let deadline = clock.now + .seconds(3600)
                var events: [AvahiEvent] = []
                try browser.run(until: deadline) { event in
                    events.append(event)
                    // The daemon's answer to an empty browse; then the hour passes.
                    if event == .allForNow { clock.advance(by: .seconds(7200)) }
                    return true
                }
                #expect(events.contains(.allForNow), "\(events)")
                #expect(clock.now >= deadline)
                browser.stop()
            }
        }
    }
}
