#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address (numeric host and port), as a plain value.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// An address family.
    public enum Family: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case ipv6
        case ipv4

        var constant: Int32 { self == .ipv4 ? AF_INET : AF_INET6 }
        /// A readable form, for messages and logs.
        public var description: String { self == .ipv4 ? "IPv4" : "IPv6" }
    }

    /// The family.
    public let family: Family
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]
    /// The port.
    public let port: Int
    /// The IPv6 scope (interface index) for link-local addresses; 0 otherwise.
    public let scopeID: UInt32

    /// An address from its parts. `bytes` must be 4 (IPv4) or 16 (IPv6) bytes; `port` 0–65535.
    public init(family: Family, bytes: [UInt8], port: Int, scopeID: UInt32 = 0) {
        precondition(bytes.count == (family == .ipv4 ? 4 : 16), "wrong address length for \(family)")
        precondition((0...65535).contains(port), "port out of range")
        self.family = family
        self.bytes = bytes
        self.port = port
        self.scopeID = scopeID
    }

    /// Parses a numeric IPv4 or IPv6 literal (IPv6 without brackets, optionally `%scope`), or
    /// nil when `ip` is not one.
    public init?(ip: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var literal = ip
        var scope: UInt32 = 0
        if let percent = ip.firstIndex(of: "%") {
            literal = String(ip[..<percent])
            let name = String(ip[ip.index(after: percent)...])
            scope = UInt32(name) ?? if_nametoindex(name)
            guard scope != 0 else { return nil }
        }
        var v4 = in_addr()
        if scope == 0, inet_pton(AF_INET, literal, &v4) == 1 {
            self.init(family: .ipv4, bytes: withUnsafeBytes(of: &v4) { Array($0) }, port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 {
            self.init(family: .ipv6, bytes: withUnsafeBytes(of: &v6) { Array($0) }, port: port, scopeID: scope)
            return
        }
        return nil
    }

    /// The numeric host text: `10.0.0.1` or `fd00::1` (with `%scope` when scoped).
    public var ip: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family.constant, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        let text = ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return scopeID != 0 ? "\(text)%\(scopeID)" : text
    }

    /// `10.0.0.1:18789` or `[fd00::1]:18789`.
    public var description: String {
        family == .ipv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }

    /// Calls `body` with this address as a `sockaddr`.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .ipv4:
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .ipv6:
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            sin6.sin6_scope_id = scopeID
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: bytes) }
            return withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Reads an AF_INET or AF_INET6 `sockaddr`; nil for other families.
    init?(_ pointer: UnsafePointer<sockaddr>) {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in.self)
            var addr = sin.sin_addr
            self.init(family: .ipv4, bytes: withUnsafeBytes(of: &addr) { Array($0) }, port: Int(UInt16(bigEndian: sin.sin_port)))
        case AF_INET6:
            let sin6 = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in6.self)
            var addr = sin6.sin6_addr
            self.init(family: .ipv6, bytes: withUnsafeBytes(of: &addr) { Array($0) }, port: Int(UInt16(bigEndian: sin6.sin6_port)),
                      scopeID: sin6.sin6_scope_id)
        default:
            return nil
        }
    }
}
