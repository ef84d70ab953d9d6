#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// A non-blocking TCP socket. Owns its file descriptor and closes it in `deinit`.
///
/// Every call goes through ClawpairCore's one errno wrapper (`Syscall`): EINTR is retried,
/// would-block comes back as a value. Confined to the thread of its ``EventLoop``.
public final class TCPSocket {
    /// The file descriptor, or -1 once closed.
    public private(set) var fileDescriptor: Int32

    /// What a read produced.
    public enum ReadResult: Sendable, Equatable {
        /// `count` bytes were read into the buffer.
        case bytes(Int)
        /// Nothing to read now.
        case wouldBlock
        /// The peer closed its sending side.
        case endOfFile
    }

    /// A new non-blocking, close-on-exec TCP socket for `family`, with Nagle's algorithm off
    /// (handshake messages are small and latency is what a probe measures).
    public init(family: SocketAddress.Family) throws(TransportError) {
        do {
            fileDescriptor = try Syscall.retrying("socket") {
                socket(family.constant, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        } catch {
            throw .system(error)
        }
        var one: Int32 = 1
        _ = try? Syscall.retrying("setsockopt(TCP_NODELAY)") {
            setsockopt(fileDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Wraps an already connected descriptor (e.g. from `accept`), taking ownership.
    public init(adopting fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    deinit { close() }

    /// Starts connecting to `address`. Returns true when the connection is already established,
    /// false when it is in progress (wait for writability, then call ``finishConnect(to:)``).
    public func startConnect(to address: SocketAddress) throws(TransportError) -> Bool {
        let fd = fileDescriptor
        do {
            let outcome = try Syscall.nonBlocking("connect", path: address.description) {
                address.withSockAddr { Glibc.connect(fd, $0, $1) }
            }
            switch outcome {
            case .done: return true
            case .wouldBlock: return false
            }
        } catch {
            // A connect interrupted and retried reports EALREADY: it is still in progress.
            if error.errno == EALREADY { return false }
            throw .connectFailed(address: address, errno: error.errno)
        }
    }

    /// After writability, reports whether the connect succeeded (`SO_ERROR`).
    public func finishConnect(to address: SocketAddress) throws(TransportError) {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        let fd = fileDescriptor
        do {
            try Syscall.retrying("getsockopt(SO_ERROR)") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) }
        } catch {
            throw .system(error)
        }
        if code != 0 { throw .connectFailed(address: address, errno: code) }
    }

    /// Reads at most `buffer.count` bytes into `buffer`.
    public func read(into buffer: inout [UInt8]) throws(TransportError) -> ReadResult {
        let fd = fileDescriptor
        do {
            let outcome = try Syscall.nonBlocking("read") {
                buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            switch outcome {
            case .wouldBlock: return .wouldBlock
            case .done(let count): return count == 0 ? .endOfFile : .bytes(count)
            }
        } catch {
            if error.errno == ECONNRESET { throw .closedByPeer }
            throw .system(error)
        }
    }

    /// Writes as much of `bytes` as the socket takes now; returns the count (0 when it would block).
    public func write(_ bytes: ArraySlice<UInt8>) throws(TransportError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let fd = fileDescriptor
        do {
            let outcome = try Syscall.nonBlocking("send") {
                bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            switch outcome {
            case .wouldBlock: return 0
            case .done(let count): return count
            }
        } catch {
            if error.errno == EPIPE || error.errno == ECONNRESET { throw .closedByPeer }
            throw .system(error)
        }
    }

    /// The local address, when bound.
    public var localAddress: SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = fileDescriptor
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> SocketAddress? in
                guard (try? Syscall.retrying("getsockname", { getsockname(fd, address, &length) })) != nil else { return nil }
                return SocketAddress(address)
            }
        }
    }

    /// Closes the descriptor (idempotent). Not retried on EINTR: on Linux the descriptor is
    /// released even then, and retrying could close a descriptor another thread just got.
    public func close() {
        guard fileDescriptor >= 0 else { return }
        _ = Glibc.close(fileDescriptor)
        fileDescriptor = -1
    }
}

@available(*, unavailable)
extension TCPSocket: Sendable {}
