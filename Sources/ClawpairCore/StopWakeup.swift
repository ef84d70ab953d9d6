#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A file descriptor that becomes readable when a ``StopSignal`` is raised, for a loop that waits
/// in poll(2) on descriptors of its own (an mDNS socket, a D-Bus connection): it adds
/// ``pollDescriptor`` to what it waits for, and looks at the signal whenever it wakes. Closed
/// when it goes away; raising the signal afterwards is harmless.
public final class StopWakeup: Sendable {
    /// The read end of a pipe that turns readable at the stop; -1 when no pipe could be made
    /// (then the loop sees the stop only when it wakes for another reason).
    public let fileDescriptor: Int32

    /// The write end while the pipe is open (nil once closed), guarding the handler's write
    /// against the close.
    private final class WriteEnd: Sendable {
        let fd: Mutex<Int32?>
        init(_ fd: Int32?) { self.fd = Mutex(fd) }
    }

    private let writeEnd: WriteEnd
    private let signal: StopSignal
    private let handler: StopSignal.Handler?

    /// A descriptor for `signal`; already readable when it is raised.
    public init(_ signal: StopSignal) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        } else {
            ends = [-1, -1]
        }
        fileDescriptor = ends[0]
        let writeEnd = WriteEnd(ends[1] >= 0 ? ends[1] : nil)
        self.writeEnd = writeEnd
        self.signal = signal
        handler = signal.onStop {
            writeEnd.fd.withLock { fd in
                guard let fd else { return }
                var byte: UInt8 = 1
                _ = write(fd, &byte, 1)
            }
        }
    }

    /// The descriptor to add to a poll(2) set, waiting for it to be readable; nil when there is none.
    public var pollDescriptor: PollDescriptor? {
        fileDescriptor >= 0 ? PollDescriptor(fileDescriptor, .readable) : nil
    }

    deinit {
        signal.removeHandler(handler)
        writeEnd.fd.withLock { fd in
            if let fd { close(fd) }
            fd = nil
        }
        if fileDescriptor >= 0 { close(fileDescriptor) }
    }
}
