#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore
import ClawpairDNS

/// Why the native querier could not run.
public enum MDNSError: ClawpairError, Equatable {
    /// No up, multicast-capable, non-loopback interface to query on.
    case noInterfaces
    /// A socket call failed.
    case system(SystemError)
    /// The service type is not a valid DNS name.
    case badServiceType(String)

    /// `mdns-error`: multicast DNS failed.
    public var code: String { "mdns-error" }

    /// What failed, in one sentence (``ClawpairError/message``).
    public var message: String {
        switch self {
        case .noInterfaces: return "no network interface can send multicast DNS"
        case .system(let error): return "multicast DNS socket: \(error.message)"
        case .badServiceType(let type): return "'\(type)' is not a DNS-SD service type"
        }
    }
    /// What to do next, or nil (``ClawpairError/hint``).
    public var hint: String? {
        switch self {
        case .noInterfaces: return "bring a LAN interface up, or browse a wide-area DNS-SD domain"
        default: return nil
        }
    }
}

/// A network interface the querier uses.
public struct MDNSInterface: Sendable, Hashable {
    /// The interface's name (`eth0`).
    public let name: String
    /// The interface's index.
    public let index: UInt32
    /// Its first IPv4 address, if it has one.
    public let ipv4: [UInt8]?
    /// Whether it has an IPv6 address.
    public let hasIPv6: Bool

    /// The interfaces that are up, multicast-capable and not loopback.
    public static func multicastCapable() -> [MDNSInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String: (ipv4: [UInt8]?, ipv6: Bool)] = [:]
        var order: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_MULTICAST) != 0,
                  flags & Int32(IFF_LOOPBACK) == 0, let address = entry.pointee.ifa_addr else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            if found[name] == nil { order.append(name); found[name] = (nil, false) }
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                if found[name]?.ipv4 == nil {
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        withUnsafeBytes(of: $0.pointee.sin_addr) { found[name]?.ipv4 = Array($0) }
                    }
                }
            case AF_INET6: found[name]?.ipv6 = true
            default: break
            }
        }
        return order.compactMap { name in
            let index = if_nametoindex(name)
            guard index > 0, let facts = found[name], facts.ipv4 != nil || facts.ipv6 else { return nil }
            return MDNSInterface(name: name, index: index, ipv4: facts.ipv4, hasIPv6: facts.ipv6)
        }
    }
}

/// A one-shot multicast DNS browser for one service type (RFC 6762/6763), for machines with
/// no mDNS daemon. Sockets bind port 5353 (shared with SO_REUSEADDR/SO_REUSEPORT) and join the
/// groups on every multicast-capable interface; if 5353 cannot be shared, an ephemeral port
/// still gets the QU (unicast) answers. Confined to one thread; sockets close in `deinit`.
public final class MDNSQuerier {
    /// The interfaces it queries on.
    public let interfaces: [MDNSInterface]
    private var browser: MDNSBrowser
    private var sockets: [(fd: Int32, family: Int32)] = []
    /// The time the query schedule, the cache and the deadline of ``run(until:untilComplete:stop:onEvent:)`` are read from.
    public let clock: any MonotonicClock
    /// What the last ``run(until:untilComplete:stop:onEvent:)`` did (for `-v`).
    public private(set) var summary = Summary()
    /// The responders asked directly in this run (``Summary/directPeers``).
    private var directlyAsked = Set<MDNSPeer>()

    /// What a run of the querier did: the queries it sent and how it ended.
    public struct Summary: Sendable, Equatable {
        /// Browse and resolve queries sent to the multicast groups (each once, whatever the
        /// number of interfaces).
        public var multicastQueries = 0
        /// Queries sent by unicast to a responder's port 5353 (RFC 6762 §5.5).
        public var directQueries = 0
        /// The addresses they went to: each gets at most ``MDNSTiming/maxReasks``, and a dual-stack
        /// host answers from two (its IPv4 and its IPv6 address).
        public var directPeers = 0
        /// A direct question brought an instance not seen before: the link loses answers.
        public var answersLost = false
        /// The run ended because its answer was complete (the rule in ``MDNSTiming``), not at its
        /// deadline nor on its caller's word.
        public var complete = false

        /// A summary with these counts.
        public init(multicastQueries: Int = 0, directQueries: Int = 0, directPeers: Int? = nil, answersLost: Bool = false,
                    complete: Bool = false) {
            self.multicastQueries = multicastQueries
            self.directQueries = directQueries
            self.directPeers = directPeers ?? (directQueries > 0 ? 1 : 0)
            self.answersLost = answersLost
            self.complete = complete
        }

        /// One line for `-v`: `native: complete after queries: 2 multicast, 3 direct`, with the
        /// number of addresses when the direct ones went to more than one (`6 direct to 2
        /// addresses`: the limit of 5 is per address), and why it waited when answers were lost.
        public var description: String {
            let ending = complete ? "complete" : "stopped"
            let lost = answersLost ? " (answers were lost on the way: waited for the second multicast query)" : ""
            let peers = directPeers > 1 ? " to \(directPeers) addresses" : ""
            return "native: \(ending) after queries: \(multicastQueries) multicast, \(directQueries) direct\(peers)" + lost
        }
    }

    /// Prepares sockets for browsing `serviceType` (e.g. `_openclaw-gw._tcp.local.`), tracking at
    /// most `maxInstances` instances (``MDNSBrowser/maxInstances``) and keeping time with `clock`.
    public init(serviceType: String, interfaces: [MDNSInterface] = MDNSInterface.multicastCapable(),
                maxInstances: Int = MDNSBrowser.defaultMaxInstances,
                clock: any MonotonicClock = SystemMonotonicClock()) throws(MDNSError) {
        guard let type = try? DNSName(serviceType) else { throw .badServiceType(serviceType) }
        guard !interfaces.isEmpty else { throw .noInterfaces }
        self.interfaces = interfaces
        self.clock = clock
        self.browser = MDNSBrowser(serviceType: type, maxInstances: maxInstances)
        do {
            if interfaces.contains(where: { $0.ipv4 != nil }) { sockets.append((try openIPv4(), AF_INET)) }
            if interfaces.contains(where: \.hasIPv6) { sockets.append((try openIPv6(), AF_INET6)) }
        } catch {
            for socket in sockets { close(socket.fd) }
            throw .system(error)
        }
    }

    deinit {
        for socket in sockets { close(socket.fd) }
    }

    /// Browses until `deadline` or until `onEvent` returns false; with `untilComplete`, also ends
    /// once the answer is complete (``MDNSBrowser/completesAt``, the rule in ``MDNSTiming``); with
    /// `stop`, also returns as soon as it is raised (from any thread), even from a wait.
    public func run(until deadline: Monotonic.Instant, untilComplete: Bool = false, stop: StopSignal? = nil,
                    onEvent: (MDNSEvent) -> Bool) throws(MDNSError) {
        var buffer = [UInt8](repeating: 0, count: MDNSTiming.maxMessageBytes)
        summary = Summary()
        directlyAsked = []
        defer { summary.answersLost = browser.lossEvident }
        let wakeup = stop.map { StopWakeup($0) }
        while true {
            if stop?.isStopped == true { return }
            let now = clock.now
            let (queries, expired) = browser.tick(at: now)
            send(queries)
            sendDirect(browser.directQueries(at: now))
            for event in expired where !onEvent(event) { return }
            guard now < deadline else { return }
            let complete = untilComplete ? browser.completesAt : nil
            if let complete, now >= complete {
                summary.complete = true
                return
            }
            let wake = min(deadline, browser.nextDeadline ?? deadline, complete ?? deadline)
            var descriptors = sockets.map { PollDescriptor($0.fd, .readable) }
            if let stopping = wakeup?.pollDescriptor { descriptors.append(stopping) }
            do { try Poll.wait(&descriptors, until: wake, clock: clock) } catch { throw .system(error) }
            if stop?.isStopped == true { return }
            for descriptor in descriptors.prefix(sockets.count) where descriptor.ready.contains(.readable) {
                // Drain the socket before working on what came: a burst of answers (a thousand
                // instances come in forty packets) would otherwise overflow the receive buffer
                // while the browser looks at each. A peer that answers every query at once could
                // keep it full forever, so at most ``MDNSTiming/maxBurstPackets`` are read per
                // turn and the deadline is checked per turn.
                while clock.now < deadline {
                    var messages: [(message: DNSMessage, from: MDNSPeer?)] = []
                    var drained = false
                    while messages.count < MDNSTiming.maxBurstPackets {
                        var source = sockaddr_storage()
                        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        let count = buffer.withUnsafeMutableBytes { bytes in
                            withUnsafeMutablePointer(to: &source) {
                                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                                    recvfrom(descriptor.fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, &length)
                                }
                            }
                        }
                        guard count > 0 else { drained = true; break }
                        if let message = try? DNSMessage.unpack(Array(buffer[0..<count])) {
                            messages.append((message, Self.responder(source)))
                        }
                    }
                    let (more, events) = browser.receive(messages, at: clock.now)
                    send(more)
                    sendDirect(browser.directQueries(at: clock.now))
                    for event in events where !onEvent(event) { return }
                    if drained { break }
                }
            }
        }
    }

    // MARK: Sockets

    private func send(_ queries: [DNSMessage]) {
        for query in queries {
            guard let bytes = try? query.pack(compression: .multicast) else { continue }
            summary.multicastQueries += 1
            for socket in sockets {
                for interface in interfaces {
                    if socket.family == AF_INET, interface.ipv4 != nil { sendIPv4(bytes, socket.fd, interface) }
                    if socket.family == AF_INET6, interface.hasIPv6 { sendIPv6(bytes, socket.fd, interface) }
                }
            }
        }
    }

    /// The peer a datagram came from, when it came from port 5353 (a responder, §6; what
    /// comes from another port is a legacy resolver or a test tool, never asked directly).
    private static func responder(_ source: sockaddr_storage) -> MDNSPeer? {
        var source = source
        switch Int32(source.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &source) { raw -> MDNSPeer? in
                let address = raw.load(as: sockaddr_in.self)
                guard UInt16(bigEndian: address.sin_port) == MDNSTiming.port else { return nil }
                return MDNSPeer(address: withUnsafeBytes(of: address.sin_addr) { Array($0) })
            }
        case AF_INET6:
            return withUnsafeBytes(of: &source) { raw -> MDNSPeer? in
                let address = raw.load(as: sockaddr_in6.self)
                guard UInt16(bigEndian: address.sin6_port) == MDNSTiming.port else { return nil }
                return MDNSPeer(address: withUnsafeBytes(of: address.sin6_addr) { Array($0) }, interfaceIndex: address.sin6_scope_id)
            }
        default:
            return nil
        }
    }

    /// Sends each query by unicast to its peer's port 5353 (RFC 6762 §5.5), from the socket of
    /// the peer's family.
    private func sendDirect(_ queries: [(peer: MDNSPeer, query: DNSMessage)]) {
        for (peer, query) in queries {
            guard let bytes = try? query.pack(compression: .multicast) else { continue }
            summary.directQueries += 1
            if directlyAsked.insert(peer).inserted { summary.directPeers = directlyAsked.count }
            if peer.address.count == 4, let socket = sockets.first(where: { $0.family == AF_INET }) {
                Self.send(bytes, socket.fd, toIPv4: peer.address)
            } else if peer.address.count == 16, let socket = sockets.first(where: { $0.family == AF_INET6 }) {
                Self.send(bytes, socket.fd, toIPv6: peer.address, scope: peer.interfaceIndex)
            }
        }
    }

    private func sendIPv4(_ bytes: [UInt8], _ fd: Int32, _ interface: MDNSInterface) {
        var request = ip_mreqn()
        request.imr_ifindex = Int32(interface.index)
        _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
        Self.send(bytes, fd, toIPv4: MDNSTiming.ipv4Group)
    }

    private func sendIPv6(_ bytes: [UInt8], _ fd: Int32, _ interface: MDNSInterface) {
        var index = interface.index
        _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, &index, socklen_t(MemoryLayout<UInt32>.size))
        Self.send(bytes, fd, toIPv6: MDNSTiming.ipv6Group, scope: interface.index)
    }

    /// One datagram to `address` (4 bytes), port 5353, without blocking.
    private static func send(_ bytes: [UInt8], _ fd: Int32, toIPv4 address: [UInt8]) {
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = MDNSTiming.port.bigEndian
        withUnsafeMutableBytes(of: &destination.sin_addr) { $0.copyBytes(from: address) }
        _ = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// One datagram to `address` (16 bytes) on interface `scope`, port 5353, without blocking.
    private static func send(_ bytes: [UInt8], _ fd: Int32, toIPv6 address: [UInt8], scope: UInt32) {
        var destination = sockaddr_in6()
        destination.sin6_family = sa_family_t(AF_INET6)
        destination.sin6_port = MDNSTiming.port.bigEndian
        destination.sin6_scope_id = scope
        withUnsafeMutableBytes(of: &destination.sin6_addr) { $0.copyBytes(from: address) }
        _ = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, bytes, bytes.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
    }

    private func openIPv4() throws(SystemError) -> Int32 {
        let fd = try Syscall.retrying("socket") { socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            try shareAndBind(fd, family: AF_INET)
            growReceiveBuffer(fd)
            var ttl: UInt8 = 255
            try Syscall.retrying("setsockopt(IP_MULTICAST_TTL)") {
                setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
            }
            for interface in interfaces where interface.ipv4 != nil {
                var request = ip_mreqn()
                withUnsafeMutableBytes(of: &request.imr_multiaddr) { $0.copyBytes(from: MDNSTiming.ipv4Group) }
                request.imr_ifindex = Int32(interface.index)
                // A failed join on one interface (e.g. it went down) is not fatal.
                _ = setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreqn>.size))
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    private func openIPv6() throws(SystemError) -> Int32 {
        let fd = try Syscall.retrying("socket") { socket(AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do {
            var on: Int32 = 1
            try Syscall.retrying("setsockopt(IPV6_V6ONLY)") {
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            try shareAndBind(fd, family: AF_INET6)
            growReceiveBuffer(fd)
            var hops: Int32 = 255
            try Syscall.retrying("setsockopt(IPV6_MULTICAST_HOPS)") {
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, &hops, socklen_t(MemoryLayout<Int32>.size))
            }
            for interface in interfaces where interface.hasIPv6 {
                var request = ipv6_mreq()
                withUnsafeMutableBytes(of: &request.ipv6mr_multiaddr) { $0.copyBytes(from: MDNSTiming.ipv6Group) }
                request.ipv6mr_interface = interface.index
                _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ipv6_mreq>.size))
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Asks for a receive buffer of ``MDNSTiming/receiveBufferBytes`` (the kernel caps it at
    /// `net.core.rmem_max`; a smaller buffer is no failure, only more bursts lost).
    private func growReceiveBuffer(_ fd: Int32) {
        var size = Int32(MDNSTiming.receiveBufferBytes)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Shares port 5353 with other responders; falls back to an ephemeral port (QU answers
    /// still arrive there) when 5353 is held exclusively.
    private func shareAndBind(_ fd: Int32, family: Int32) throws(SystemError) {
        var on: Int32 = 1
        for option in [SO_REUSEADDR, SO_REUSEPORT] {
            try Syscall.retrying("setsockopt(SO_REUSE*)") {
                setsockopt(fd, SOL_SOCKET, option, &on, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        for port in [MDNSTiming.port, 0] {
            let result: Int32
            if family == AF_INET {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            } else {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = port.bigEndian
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                }
            }
            if result == 0 { return }
            if errno != EADDRINUSE || port == 0 { throw SystemError(call: "bind", errno: errno) }
        }
    }
}

// MARK: Host names

extension MDNSQuerier {
    /// Whether `host` is a name only multicast DNS answers: it ends in `.local` (RFC 6762 §3,
    /// case-insensitively, a trailing dot allowed) and has a label before it.
    public static func isLocalName(_ host: String) -> Bool {
        let name = (host.hasSuffix(".") ? String(host.dropLast()) : host).lowercased()
        return name.hasSuffix(".local") && name.count > ".local".count && !name.contains(":")
    }

    /// The addresses of `host` (a `.local` name) of one family, asked of the link with
    /// one-shot queries (RFC 6762 §5.1, multicast answers requested, so a daemon sharing port
    /// 5353 does not take them): the question goes out at once, again after
    /// ``MDNSTiming/firstQueryInterval`` and after doubling intervals, until the first answer
    /// or `deadline`. Returns the addresses of the first response that has any, as text; an
    /// IPv6 link-local address carries its interface (`fe80::1%3`) when only one interface is
    /// queried, and is left out otherwise. Empty when nothing answered.
    public static func addresses(of host: String, ipv6: Bool, until deadline: Monotonic.Instant,
                                 interfaces: [MDNSInterface] = MDNSInterface.multicastCapable(),
                                 clock: any MonotonicClock = SystemMonotonicClock()) throws(MDNSError) -> [String] {
        guard let name = try? DNSName(host.hasSuffix(".") ? host : host + ".") else { return [] }
        let usable = interfaces.filter { ipv6 ? $0.hasIPv6 : $0.ipv4 != nil }
        guard !usable.isEmpty else { return [] }
        let querier = try MDNSQuerier(serviceType: "_openclaw-gw._tcp.local.", interfaces: usable, maxInstances: 1, clock: clock)
        return try querier.lookup(name, type: ipv6 ? .aaaa : .a, until: deadline)
    }

    private func lookup(_ name: DNSName, type: DNSType, until deadline: Monotonic.Instant) throws(MDNSError) -> [String] {
        var buffer = [UInt8](repeating: 0, count: MDNSTiming.maxMessageBytes)
        let question = DNSMessage(questions: [DNSQuestion(name: name, type: type, unicastResponse: false)])
        var nextQuery = clock.now
        var interval = MDNSTiming.firstQueryInterval
        let scope = interfaces.count == 1 ? interfaces[0].index : nil
        while clock.now < deadline {
            if clock.now >= nextQuery {
                send([question])
                nextQuery = clock.now + interval
                interval = min(interval * 2, MDNSTiming.maxQueryInterval)
            }
            var descriptors = sockets.map { PollDescriptor($0.fd, .readable) }
            do { try Poll.wait(&descriptors, until: min(deadline, nextQuery), clock: clock) } catch { throw .system(error) }
            for descriptor in descriptors where descriptor.ready.contains(.readable) {
                for _ in 0..<MDNSTiming.maxBurstPackets {
                    let count = buffer.withUnsafeMutableBytes { recv(descriptor.fileDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    guard count > 0 else { break }
                    guard let message = try? DNSMessage.unpack(Array(buffer[0..<count])), message.header.isResponse else { continue }
                    var found: [String] = []
                    for record in message.answers + message.additionals where record.name.equalsIgnoringCase(name) {
                        switch record.data {
                        case .a(let address) where type == .a:
                            found.append(address.description)
                        case .aaaa(let address) where type == .aaaa:
                            let text = address.description
                            if text.lowercased().hasPrefix("fe8") || text.lowercased().hasPrefix("fe9")
                                || text.lowercased().hasPrefix("fea") || text.lowercased().hasPrefix("feb") {
                                if let scope { found.append(text + "%\(scope)") }
                            } else {
                                found.append(text)
                            }
                        default: break
                        }
                    }
                    if !found.isEmpty { return found }
                }
            }
        }
        return []
    }
}
