#if canImport(Glibc)
import Glibc
#endif

/// Readiness conditions of a file descriptor (a subset of `poll(2)`'s events).
public struct PollEvents: OptionSet, Sendable, Hashable {
    /// The `poll(2)` event bits.
    public let rawValue: Int16
    /// The events with these bits.
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// Data can be read (or the peer closed: a read returns 0).
    public static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// Data can be written (or a non-blocking connect finished).
    public static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// An error is pending on the descriptor (reported even when not asked for).
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    /// The peer hung up (reported even when not asked for).
    public static let hangup = PollEvents(rawValue: Int16(POLLHUP))
}

/// One file descriptor to wait on, and what it turned out ready for.
public struct PollDescriptor: Sendable, Hashable {
    /// The descriptor (not owned).
    public var fileDescriptor: Int32
    /// What to wait for; errors and hang-ups are reported anyway.
    public var interest: PollEvents
    /// What it is ready for after ``Poll/wait(_:until:clock:)`` (empty: not ready).
    public var ready: PollEvents = []

    /// Waits on `fileDescriptor` for `interest`.
    public init(_ fileDescriptor: Int32, _ interest: PollEvents) {
        self.fileDescriptor = fileDescriptor
        self.interest = interest
    }
}

/// The one poll helper every poll loop waits in (the event loop, the mDNS querier, the unicast
/// DNS client, discovery's `tailscale` reader, the CLI's spinner and beacon).
public enum Poll {
    /// Waits until one of `descriptors` is ready or `clock` reaches `deadline` (`nil`: no
    /// deadline), and fills in each one's ``PollDescriptor/ready``. The timeout comes from the
    /// deadline (``Monotonic/pollTimeout(until:from:)``, so it never returns early) and is
    /// recomputed when an interrupted poll is retried. Returns how many are ready: 0 when none
    /// became ready before the deadline (a deadline already passed polls without waiting).
    @discardableResult
    public static func wait(_ descriptors: inout [PollDescriptor], until deadline: Monotonic.Instant?,
                            clock: any MonotonicClock = SystemMonotonicClock()) throws(SystemError) -> Int {
        var fds = descriptors.map { pollfd(fd: $0.fileDescriptor, events: $0.interest.rawValue, revents: 0) }
        let count = nfds_t(fds.count)
        let ready = try Syscall.retrying("poll") { () -> Int32 in
            let timeout = deadline.map { Monotonic.pollTimeout(until: $0, from: clock.now) } ?? -1
            return fds.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, count, timeout) }
        }
        for index in descriptors.indices { descriptors[index].ready = PollEvents(rawValue: fds[index].revents) }
        return Int(ready)
    }
}
