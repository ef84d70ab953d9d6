#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
internal import ClawpairMDNS
import Synchronization

/// Looks up the addresses of a host name for one family, off the calling thread.
///
/// Happy Eyeballs asks for AAAA and A separately and at the same time (RFC 8305 §3), so a
/// resolver answers one family per call. Tests inject resolvers with scripted answers.
public protocol HostResolver: Sendable {
    /// Resolves `host` for `family`, then calls `completion` exactly once, on any thread.
    /// The addresses carry `port`.
    func resolve(host: String, port: Int, family: SocketAddress.Family,
                 completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void)
}

/// `getaddrinfo(3)` on a background thread (it blocks and cannot be cancelled; a late answer
/// is simply dropped by whoever stopped waiting). Honors `/etc/hosts`, NSS and `resolv.conf`.
///
/// A `.local` name is also asked of the link with the built-in multicast DNS querier
/// (``MDNSQuerier/addresses(of:ipv6:until:interfaces:clock:)``, at most ``multicastBudget``), side by
/// side with getaddrinfo (which knows `/etc/hosts`, and nss-mdns where installed): the first
/// success answers, so every dial reaches the hosts discovery reports without
/// nss-mdns.
public struct SystemResolver: HostResolver {
    /// The most addresses kept per family.
    public let maxAddresses: Int
    /// How long a `.local` name is asked over multicast DNS before getaddrinfo takes over.
    public let multicastBudget: Duration

    /// A resolver keeping at most `maxAddresses` per family (default 16), asking multicast DNS
    /// for `.local` names for at most `multicastBudget` (default 2 s: the first query and the
    /// one RFC 6762 §5.2 allows a second later).
    public init(maxAddresses: Int = 16, multicastBudget: Duration = .milliseconds(2100)) {
        self.maxAddresses = maxAddresses
        self.multicastBudget = multicastBudget
    }

    /// Resolves `host` for `family` and calls `completion` once: multicast DNS first for a `.local` name (within ``multicastBudget``), getaddrinfo otherwise.
    public func resolve(host: String, port: Int, family: SocketAddress.Family,
                        completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void) {
        let limit = maxAddresses
        let budget = multicastBudget
        guard MDNSQuerier.isLocalName(host), budget > .zero else {
            // A small stack: getaddrinfo needs little, and one lookup runs per address family.
            BackgroundThread.detached(stackSize: 256 * 1024) {
                completion(SystemResolver.lookup(host: host, port: port, family: family, limit: limit))
            }
            return
        }
        // A .local name: multicast DNS and getaddrinfo side by side (an /etc/hosts entry answers
        // at once, a DNS server that does not know .local may take long); the first success
        // wins, and a failure counts once both have failed (getaddrinfo's says why).
        let race = LookupRace(completion)
        BackgroundThread.detached(stackSize: 256 * 1024) {
            let found = (try? MDNSQuerier.addresses(of: host, ipv6: family == .ipv6, until: Monotonic.now + budget)) ?? []
            let addresses = found.compactMap { SocketAddress(ip: $0, port: port) }.filter { $0.family == family }
            race.finish(multicast: addresses.isEmpty ? nil : .success(Array(addresses.prefix(limit))))
        }
        BackgroundThread.detached(stackSize: 256 * 1024) {
            race.finish(system: SystemResolver.lookup(host: host, port: port, family: family, limit: limit))
        }
    }

    /// Two lookups of one name, one answer: the first success, else getaddrinfo's failure once
    /// both are done.
    private final class LookupRace: Sendable {
        private struct State {
            var done = false
            var multicastFailed = false
            var systemFailure: TransportError?
        }
        private let state = Mutex(State())
        private let completion: @Sendable (Result<[SocketAddress], TransportError>) -> Void

        init(_ completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void) {
            self.completion = completion
        }

        /// The multicast lookup's answer; nil when it found nothing.
        func finish(multicast result: Result<[SocketAddress], TransportError>?) {
            decide { state in
                if let result { return result }
                state.multicastFailed = true
                return state.systemFailure.map { .failure($0) }
            }
        }

        func finish(system result: Result<[SocketAddress], TransportError>) {
            decide { state in
                guard case .failure(let error) = result else { return result }
                state.systemFailure = error
                return state.multicastFailed ? result : nil
            }
        }

        /// Runs `step` under the lock; calls the completion, once, with what it returns.
        private func decide(_ step: (inout State) -> Result<[SocketAddress], TransportError>?) {
            let answer: Result<[SocketAddress], TransportError>? = state.withLock { state in
                guard !state.done, let answer = step(&state) else { return nil }
                state.done = true
                return answer
            }
            if let answer { completion(answer) }
        }
    }

    /// The blocking lookup.
    static func lookup(host: String, port: Int, family: SocketAddress.Family, limit: Int) -> Result<[SocketAddress], TransportError> {
        var hints = addrinfo()
        hints.ai_family = family.constant
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            let message = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(.resolutionFailed(host: host, message: message))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor, addresses.count < limit {
            if let raw = entry.pointee.ai_addr, let address = SocketAddress(raw), !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(.noAddresses(host: host)) : .success(addresses)
    }
}

/// Answers from addresses already known (e.g. the A/AAAA records of an mDNS answer), so a name
/// that only multicast DNS can resolve is still dialed with Happy Eyeballs over all of them.
/// A family with no address fails with `noAddresses`.
public struct KnownAddressesResolver: HostResolver {
    /// The IPv4 and IPv6 literals to answer with, in preference order.
    public let addresses: [String]

    /// A resolver that answers every host with `addresses`.
    public init(addresses: [String]) {
        self.addresses = addresses
    }

    /// Calls `completion` with the known addresses of `family` at `port`, or fails with `noAddresses`.
    public func resolve(host: String, port: Int, family: SocketAddress.Family,
                        completion: @escaping @Sendable (Result<[SocketAddress], TransportError>) -> Void) {
        let matching = addresses.compactMap { SocketAddress(ip: $0, port: port) }.filter { $0.family == family }
        completion(matching.isEmpty ? .failure(.noAddresses(host: host)) : .success(matching))
    }
}
