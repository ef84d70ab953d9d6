import ClawpairCore
import Glibc
import Testing

/// The one poll helper: readiness per descriptor, a passed deadline returns at once.
@Suite struct PollTests {
    @Test("a pipe: not ready at a passed deadline, readable once written, hang-up once the writer closes")
    func pipeReadiness() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let clock = ManualClock()
        var descriptors = [PollDescriptor(ends[0], .readable), PollDescriptor(ends[1], .writable)]
        // The clock never reaches a later deadline by itself here, so only passed ones are used.
        #expect(try Poll.wait(&descriptors, until: clock.now, clock: clock) == 1)
        #expect(descriptors[0].ready.isEmpty && descriptors[1].ready == .writable)

        var readEnd = [PollDescriptor(ends[0], .readable)]
        #expect(try Poll.wait(&readEnd, until: clock.now - .seconds(1), clock: clock) == 0)
        var byte: UInt8 = 7
        #expect(write(ends[1], &byte, 1) == 1)
        #expect(try Poll.wait(&readEnd, until: nil, clock: clock) == 1)
        #expect(readEnd[0].ready == .readable)

        #expect(read(ends[0], &byte, 1) == 1)
        close(ends[1])
        #expect(try Poll.wait(&readEnd, until: nil) == 1)
        #expect(readEnd[0].ready.contains(.hangup))
    }

    @Test("a closed descriptor is reported, not waited on; a bad array is a typed error")
    func badDescriptor() throws {
        var descriptors = [PollDescriptor(Int32.max, .readable)]
        #expect(try Poll.wait(&descriptors, until: nil) == 1)
        #expect(descriptors[0].ready.rawValue == Int16(POLLNVAL))
        // poll(2): EINVAL when nfds exceeds RLIMIT_NOFILE.
        var limit = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let count = Int(min(limit.rlim_cur, 1 << 24)) + 1
        try #require(UInt(count) > limit.rlim_cur, "RLIMIT_NOFILE is too large to exceed")
        var tooMany = [PollDescriptor](repeating: PollDescriptor(0, .readable), count: count)
        #expect(throws: SystemError(call: "poll", errno: EINVAL)) { try Poll.wait(&tooMany, until: Monotonic.now) }
    }
}
