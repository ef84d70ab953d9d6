@testable import ClawpairBrowse
import ClawpairCore
import ClawpairTestSupport
import ClawpairWideArea
import Foundation
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
        let detection = TailnetDetection(probe: { deadline, _ in
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

    @Test("a stop ends the check with no answer, and nothing is kept: the next call asks again")
    func stoppedCheckKeepsNothing() {
        let clock = ManualClock()
        let asked = Mutex(0)
        let detection = TailnetDetection(probe: { _, stop in
            asked.withLock { $0 += 1 }
            stop?.stop()  // the browse is stopped while the command runs
            return Self.status
        }, clock: clock)
        #expect(detection.address(deadline: clock.now + .seconds(5), stop: StopSignal()) == nil)
        let raised = StopSignal()
        raised.stop()
        #expect(detection.address(deadline: clock.now + .seconds(5), stop: raised) == nil)
        #expect(asked.withLock { $0 } == 1, "a browse already stopped runs no command")
        #expect(detection.address(deadline: clock.now + .seconds(5)) == "100.101.102.103")
        #expect(asked.withLock { $0 } == 2, "the stopped answer was not kept")
    }

    @Test("a stop ends a hanging `tailscale status` at once: its process group is killed and reaped, no answer")
    func stopEndsAHangingStatus() throws {
        let directory = NSTemporaryDirectory() + "clawpair-tailscale-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A fake tailscale that never answers (the scenario's `sleep 600`), with a child of its own
        // (killed with its group). It says it started by writing its pid into a FIFO the test reads.
        let program = directory + "/tailscale"
        let started = directory + "/pid"
        #expect(mkfifo(started, 0o600) == 0)
        let reader = open(started, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        try "#!/bin/sh\necho $$ > '\(started)'\nsleep 600\n".write(toFile: program, atomically: true, encoding: .utf8)
        #expect(chmod(program, 0o755) == 0)
        let stop = StopSignal()
        let ended = StopSignal()
        let answer = Mutex<[UInt8]??>(nil)
        let thread = try #require(BackgroundThread.start {
            let output = TailscaleStatus.run(until: Monotonic.now + .seconds(600), stop: stop, program: program)
            answer.withLock { $0 = .some(output) }
            ended.stop()
        })
        // Wakes when the shell writes (no writer yet is no hang-up on Linux); a hang bound only.
        var text: [UInt8] = []
        while !text.contains(UInt8(ascii: "\n")) {
            var descriptors = [PollDescriptor(reader, .readable)]
            guard (try? Poll.wait(&descriptors, until: Monotonic.now + hangBound)) == 1 else { break }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { break }
            text += buffer.prefix(count)
        }
        let pid = pid_t(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(pid > 0, "the fake tailscale started")
        stop.stop()
        // Bounded against a hang (the check's own deadline is 600 s away), not a timing assertion.
        if !ended.wait(bound: hangBound) {
            Issue.record("the check did not end on the stop")
            if pid > 0 { kill(-pid, SIGKILL) }
        }
        thread.join()
        #expect(answer.withLock { $0 } == .some(nil), "a stopped check has no answer")
        if pid > 0 {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the fake tailscale was killed and reaped")
        }
    }
}
