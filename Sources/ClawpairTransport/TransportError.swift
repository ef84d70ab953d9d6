#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Why a connection could not be made or broke.
public enum TransportError: Error, Sendable, Equatable {
    /// Name resolution failed for `host` (the `getaddrinfo` message).
    case resolutionFailed(host: String, message: String)
    /// Resolution succeeded but gave no usable address.
    case noAddresses(host: String)
    /// A TCP connect to `address` failed with `errno` (ECONNREFUSED, EHOSTUNREACH, ETIMEDOUT, …).
    case connectFailed(address: SocketAddress, errno: Int32)
    /// A socket call failed.
    case system(SystemError)
    /// The peer closed the connection.
    case closedByPeer
    /// The operation was cancelled before it finished.
    case cancelled

    /// For a failed connect: was it refused (RST)?
    public var isRefused: Bool {
        if case .connectFailed(_, let code) = self { return code == ECONNREFUSED }
        return false
    }

    /// For a failed connect: no route, or the host or network is down or unreachable.
    public var isUnreachable: Bool {
        if case .connectFailed(_, let code) = self {
            return [EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL, EACCES, EPERM, EINVAL].contains(code)
        }
        return false
    }
}

extension TransportError: ClawpairError {
    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .resolutionFailed(let host, let message): return "cannot resolve \(host): \(message)"
        case .noAddresses(let host): return "\(host) has no IPv4 or IPv6 address"
        case .connectFailed(let address, let code): return "connect to \(address): \(String(cString: strerror(code)))"
        case .system(let error): return error.message
        case .closedByPeer: return "the peer closed the connection"
        case .cancelled: return "cancelled"
        }
    }

    /// `cancelled` for a stopped operation (as every module's stopped outcome), else `error`.
    public var code: String { self == .cancelled ? "cancelled" : "error" }
}
