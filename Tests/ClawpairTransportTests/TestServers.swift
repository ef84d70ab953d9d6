import ClawpairTestSupport
import ClawpairTransport
import Foundation
import Glibc
import Synchronization

/// A listening TCP socket on a loopback address, for dialing tests.
final class LoopbackListener {
    let fd: Int32
    let port: Int

    /// Listens on `ip` (`127.0.0.1` or `::1`, IPv6 only) at `port` (0 picks one).
    init(ip: String, port: Int = 0, backlog: Int32 = 16) throws {
        let v6 = ip.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw TestError("socket: \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if v6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        var bound: Int32
        if v6 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, ip, &sin6.sin6_addr)
            bound = withUnsafePointer(to: &sin6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, ip, &sin.sin_addr)
            bound = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw TestError("bind/listen \(ip):\(port): \(String(cString: strerror(code)))")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let raw = withUnsafeBytes(of: storage) { Array($0) }
        self.port = Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
    }

    deinit { close(fd) }
}

/// A blocking client connection made with plain Glibc calls (to fill a backlog).
func blockingConnect(ip: String, port: Int) -> Int32 {
    let v6 = ip.contains(":")
    let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let address = SocketAddress(ip: ip, port: port)!
    var storage = sockaddr_storage()
    withUnsafeMutableBytes(of: &storage) { raw in
        if v6 {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeBytes(of: sin6) { raw.copyMemory(from: $0) }
        } else {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: address.bytes) }
            withUnsafeBytes(of: sin) { raw.copyMemory(from: $0) }
        }
    }
    let length = socklen_t(v6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
    return fd
}

/// A resolver with fixed answers per family (nil: fail), answered on another thread.
struct ScriptedResolver: HostResolver {
    var ipv6: [String]?
    var ipv4: [String]?

    func resolve(host: String, port: Int, family: SocketAddress.Family,
                 completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void) {
        let answer = family == .ipv6 ? ipv6 : ipv4
        Thread.detachNewThread {
            if let answer {
                completion(.success(answer.compactMap { SocketAddress(ip: $0, port: port) }))
            } else {
                completion(.failure(.resolutionFailed(host: host, message: "scripted failure")))
            }
        }
    }
}

/// A resolver that only counts how often it is asked (and answers nothing).
final class CountingResolver: HostResolver, Sendable {
    let calls = Mutex(0)

    func resolve(host: String, port: Int, family: SocketAddress.Family,
                 completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void) {
        calls.withLock { $0 += 1 }
        completion(.failure(.resolutionFailed(host: host, message: "not asked for a literal")))
    }
}

/// Runs `loop` until `done()` or 10 s of real time pass.
func runLoop(_ loop: EventLoop, until done: () -> Bool) throws {
    try loop.run(until: loop.clock.now.advanced(by: .seconds(10)), while: { !done() })
}
