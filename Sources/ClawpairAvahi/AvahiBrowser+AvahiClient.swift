internal import CAvahiClientShims
#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Browses one service type through avahi-daemon and resolves what it finds, with Avahi's client
/// library on a main loop of its own (AvahiSimplePoll) that ``run(until:stop:onEvent:)`` turns.
///
/// Confined to the thread that calls ``run(until:stop:onEvent:)`` (not `Sendable`); ``stop()`` or
/// `deinit` frees the client, and with it every browser and resolver it made in the daemon.
///
/// The library makes some calls to the daemon blocking ones: connecting (in `init`), starting a
/// resolver (in `run`, per instance) and freeing. A daemon that is alive but stopped answering
/// holds each of them for libdbus's default timeout (25 s), beyond the caller's deadline.
public final class AvahiBrowser {
    /// What is known of an instance.
    struct Entry {
        /// The names as Avahi reported them (undotted), for the second resolve.
        let name: String, type: String, domain: String
        let interface: AvahiIfIndex
        /// The mDNS protocols (IPv4, IPv6) it is seen on: it is gone when the last one leaves.
        var protocols: Set<AvahiProtocol>
        /// What was last reported: the SRV target, port, TXT and the addresses of its resolvers
        /// that follow that target.
        var hostTarget: String?
        var port: UInt16 = 0
        var txt: [UInt8] = []
        var addresses: [String] = []
        /// Its resolvers in the daemon (the first, then the other address family's).
        var resolvers: [OpaquePointer] = []
        /// Whether the first resolve has answered (found or failed).
        var firstAnswered = false
        /// The second resolve (the other family): not started, waiting, or answered.
        var second: Stage = .notStarted
        /// When the second resolve was started.
        var secondStarted: Monotonic.Instant?
    }

    enum Stage { case notStarted, waiting, answered }

    /// One resolver in the daemon: whose it is, how it was asked (to ask again), and what it
    /// answered.
    ///
    /// avahi-daemon's resolver stays on its records after answering and answers again when one
    /// is replaced (avahi-core/resolve-service.c), but what it then holds may be stale: a new SRV
    /// record (another host, another port) keeps the old address record, and so does a lost SRV
    /// record that comes back; a new address is taken only once the old address record has left
    /// the cache. So a resolver's second answer is never used: it says that something changed,
    /// and a fresh resolver (which reads the cache as it is) is asked in its place.
    struct Resolution {
        let instance: BrowsedInstance
        /// The instance's first resolver (either family), or the other family's.
        let first: Bool
        /// The mDNS protocol it asks over and the address family it asks for.
        let transport: AvahiProtocol, family: AvahiProtocol
        /// Whether it has answered (found) once.
        var answered = false
        /// The SRV target and address of its answer (nil: none yet, or it lost its records since).
        var host: String?
        var address: String?
    }

    /// The service type browsed, e.g. `_openclaw-gw._tcp`.
    public let type: String
    /// The domain browsed (nil: Avahi's default, `local`).
    public let domain: String?
    /// The bounds of this browse.
    public let limits: AvahiLimits
    /// The time the deadline of ``run(until:stop:onEvent:)`` and the main loop's waits are read from.
    public let clock: any MonotonicClock
    private var loop: OpaquePointer?
    private var client: OpaquePointer?
    private var browser: OpaquePointer?
    private var entries: [BrowsedInstance: Entry] = [:]
    /// Each resolver: which instance it belongs to, how it was asked, what it answered last.
    private var resolverOwners: [OpaquePointer: Resolution] = [:]
    private var events: [AvahiEvent] = []
    /// What ends the run once the events before it are out (the daemon left, the browse failed).
    private var failure: AvahiError?
    /// The running ``run(until:stop:onEvent:)``'s stop, as a descriptor the main loop's wait adds.
    fileprivate var wakeup: StopWakeup?

    /// Instances whose first resolve has not answered yet (neither found nor failed). With
    /// ``AvahiEvent/allForNow`` seen and this at 0, every instance Avahi knew of is resolved or failed.
    public var pendingResolves: Int { entries.values.count(where: { !$0.firstAnswered }) }

    /// Resolves of the second address family that have not answered yet. Avahi answers them from
    /// its cache at once when the host announced both families; for a host without an address of
    /// that family it gives up after about 5 s.
    public var pendingSecondResolves: Int { entries.values.count(where: { $0.second == .waiting }) }

    /// When the most recently started second resolve that has not answered yet was started
    /// (nil: none is waiting).
    public var latestPendingSecondResolveStart: Monotonic.Instant? {
        entries.values.filter { $0.second == .waiting }.compactMap(\.secondStarted).max()
    }

    /// Connects to avahi-daemon over the system bus and starts browsing `type` (e.g.
    /// `_openclaw-gw._tcp`) in `domain` (nil: the default, `local`) on every interface and protocol.
    /// Throws ``AvahiError/daemonNotRunning`` when there is no system bus or no avahi-daemon on it,
    /// ``AvahiError/libraryUnavailable(_:)`` without libavahi-client. Time is read from `clock`.
    public init(type: String, domain: String? = nil, limits: AvahiLimits = AvahiLimits(),
                clock: any MonotonicClock = SystemMonotonicClock()) throws(AvahiError) {
        self.type = type
        self.domain = domain
        self.limits = limits
        self.clock = clock
        let context = Unmanaged.passUnretained(self).toOpaque()
        let opened = try AvahiClientLoop.open(poll: avahiPoll, callback: clientCallback, context: context)
        loop = opened.loop
        let client = opened.client
        self.client = client
        guard let browser = CAvahiClientShims_avahi_service_browser_new(
            client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), type, domain, AvahiLookupFlags(0),
            browseCallback, context) else {
            let code = CAvahiClientShims_avahi_client_errno(client)
            stop()
            throw Self.error("avahi_service_browser_new", code)
        }
        self.browser = browser
    }

    deinit { stop() }

    /// Frees the client, which frees its browser and resolvers (in the daemon too: a blocking
    /// call each). Safe to call more than once.
    public func stop() {
        entries.removeAll()
        resolverOwners.removeAll()
        browser = nil
        if let client { CAvahiClientShims_avahi_client_free(client) }
        client = nil
        if let loop { CAvahiClientShims_avahi_simple_poll_free(loop) }
        loop = nil
    }

    /// Processes the daemon's messages until `deadline`, or until `onEvent` returns false, or
    /// until `stop` is raised (from any thread; it wakes the main loop's wait). Each event is
    /// handed over as soon as the message that caused it has been processed. Throws when the
    /// daemon leaves or the browse fails (after handing over the events before that).
    public func run(until deadline: Monotonic.Instant, stop: StopSignal? = nil,
                    onEvent: (AvahiEvent) -> Bool) throws(AvahiError) {
        wakeup = stop.map { StopWakeup($0) }
        defer { wakeup = nil }
        while true {
            if stop?.isStopped == true { return }
            while !events.isEmpty {
                if !onEvent(events.removeFirst()) { return }
            }
            if let failure { throw failure }
            guard let loop else { return }
            let now = clock.now
            guard now < deadline else { return }
            // One iteration: a wait bounded by the deadline (and Avahi's own timers) in the poll
            // helper (`avahiPoll`, which retries EINTR), then one callback.
            if CAvahiClientShims_avahi_simple_poll_iterate(loop, Monotonic.pollTimeout(until: deadline, from: now)) < 0 {
                throw .poll(errno)
            }
        }
    }

    // MARK: Callbacks

    fileprivate func clientChanged(_ client: OpaquePointer?, state: AvahiClientState) {
        guard state == AVAHI_CLIENT_FAILURE, failure == nil else { return }
        // AVAHI_ERR_DISCONNECTED when avahi-daemon or the bus went away.
        failure = Self.error("the avahi-daemon connection", client.map { CAvahiClientShims_avahi_client_errno($0) } ?? 0)
    }

    fileprivate func browsed(event: AvahiBrowserEvent, interface: AvahiIfIndex, protocol proto: AvahiProtocol,
                             name: String, type: String, domain: String) {
        switch event {
        case AVAHI_BROWSER_NEW:
            let instance = Self.instance(name: name, type: type, domain: domain, interface: interface)
            if entries[instance] != nil {
                entries[instance]?.protocols.insert(proto)
                return
            }
            guard entries.count < limits.maxInstances else {
                events.append(.limited(.instance(instance)))
                return
            }
            entries[instance] = Entry(name: name, type: type, domain: domain, interface: interface, protocols: [proto])
            events.append(.added(instance))
            // The event's interface and protocol, and an address of either family, as avahi-browse -r asks.
            resolve(instance, protocol: proto, addressFamily: AvahiProtocol(AVAHI_PROTO_UNSPEC), first: true)
        case AVAHI_BROWSER_REMOVE:
            let instance = Self.instance(name: name, type: type, domain: domain, interface: interface)
            guard var entry = entries[instance] else { return }
            entry.protocols.remove(proto)
            guard entry.protocols.isEmpty else {
                entries[instance] = entry
                return
            }
            entries[instance] = nil
            for resolver in entry.resolvers { free(resolver: resolver) }
            events.append(.removed(instance))
        case AVAHI_BROWSER_ALL_FOR_NOW:
            events.append(.allForNow)
        case AVAHI_BROWSER_CACHE_EXHAUSTED:
            events.append(.cacheExhausted)
        default:  // AVAHI_BROWSER_FAILURE
            if failure == nil { failure = Self.error("the service browser", client.map { CAvahiClientShims_avahi_client_errno($0) } ?? 0) }
        }
    }

    fileprivate func resolved(_ resolver: OpaquePointer, found: Bool, host: String, address: String?, port: UInt16,
                              txt: [UInt8]) {
        guard var resolution = resolverOwners[resolver], var entry = entries[resolution.instance] else { return }
        let instance = resolution.instance, first = resolution.first
        let wasAnswered = first ? entry.firstAnswered : entry.second == .answered
        if first { entry.firstAnswered = true } else { entry.second = .answered }
        guard found else {
            entries[instance] = entry
            let code = client.map { CAvahiClientShims_avahi_client_errno($0) } ?? 0
            resolution.host = nil
            resolution.address = nil
            if code == Int32(AVAHI_ERR_TIMEOUT) {
                // No answer within 5 s, or a record it held left the cache and nothing replaced it
                // within 5 s. The daemon's resolver still watches its records (a timeout frees none
                // of them: avahi-core/resolve-service.c, time_event_callback) and answers when the
                // instance comes back: keep it. What the entry shows stays until then (or until
                // the instance is removed).
                resolverOwners[resolver] = resolution
            } else {
                // Any other failure ends the daemon's resolver.
                entries[instance]?.resolvers.removeAll { $0 == resolver }
                free(resolver: resolver)
            }
            if first && !wasAnswered {
                events.append(.resolveFailed(instance, Self.error("the service resolver", code)))
            }
            return
        }
        if resolution.answered {
            // A change; this resolver's answer may hold a stale address (see ``Resolution``).
            entries[instance] = entry
            restart(resolver, resolution)
            return
        }
        let target = Self.dotted(host)
        resolution.answered = true
        resolution.host = target
        resolution.address = address
        resolverOwners[resolver] = resolution
        // The entry shows this answer's SRV and TXT, and the address of each of its resolvers
        // whose latest answer names the same host.
        var addresses: [String] = []
        for owned in entry.resolvers {
            guard let other = resolverOwners[owned], other.host == target, let address = other.address,
                  !addresses.contains(address) else { continue }
            guard addresses.count < limits.maxAddressesPerInstance else {
                if owned == resolver { events.append(.limited(.address(instance, address))) }
                continue
            }
            addresses.append(address)
        }
        let changed = entry.hostTarget != target || entry.port != port || entry.txt != txt || entry.addresses != addresses
        entry.hostTarget = target
        entry.port = port
        entry.txt = txt
        entry.addresses = addresses
        let startSecond = entry.second == .notStarted
        if startSecond {
            entry.second = .waiting
            entry.secondStarted = clock.now
        }
        entries[instance] = entry
        if changed && !addresses.isEmpty {
            events.append(.resolved(ResolvedInstance(instance: instance, hostTarget: target, port: port, txtRecord: txt,
                                                     addresses: addresses)))
        }
        if startSecond, let family = address.map({ AvahiProtocol($0.contains(":") ? AVAHI_PROTO_INET : AVAHI_PROTO_INET6) }) {
            // Over mDNS of that family when the instance was seen there: a resolver of
            // AVAHI_PROTO_UNSPEC keeps to the protocol its first SRV/TXT answer came over and looks
            // the address up on that one only, and avahi-daemon publishes a host's A records over
            // IPv4 alone (publish-a-on-ipv6=no, its default). A dual-stack gateway seen over IPv6
            // first then never got its IPv4 address (issue #24 §1).
            let transport = entry.protocols.contains(family) ? family : AvahiProtocol(AVAHI_PROTO_UNSPEC)
            resolve(instance, protocol: transport, addressFamily: family, first: false)
        } else if startSecond {
            entries[instance]?.second = .answered
        }
    }

    // MARK: Helpers

    /// Starts a resolver for `instance`; it takes the place of `replacing` (already freed) when given.
    private func resolve(_ instance: BrowsedInstance, protocol proto: AvahiProtocol, addressFamily: AvahiProtocol,
                         first: Bool, replacing: OpaquePointer? = nil) {
        guard let client, let entry = entries[instance] else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let resolver = CAvahiClientShims_avahi_service_resolver_new(
            client, entry.interface, proto, entry.name, entry.type, entry.domain, addressFamily, AvahiLookupFlags(0),
            resolveCallback, context) else {
            let error = Self.error("avahi_service_resolver_new", CAvahiClientShims_avahi_client_errno(client))
            entries[instance]?.resolvers.removeAll { $0 == replacing }
            if replacing != nil { return }
            if first {
                entries[instance]?.firstAnswered = true
                events.append(.resolveFailed(instance, error))
            } else {
                entries[instance]?.second = .answered
            }
            return
        }
        if let replacing, let index = entries[instance]?.resolvers.firstIndex(of: replacing) {
            entries[instance]?.resolvers[index] = resolver
        } else {
            entries[instance]?.resolvers.append(resolver)
        }
        resolverOwners[resolver] = Resolution(instance: instance, first: first, transport: proto, family: addressFamily)
    }

    /// Frees `resolver` and asks the same question again with a fresh one, in its place.
    private func restart(_ resolver: OpaquePointer, _ resolution: Resolution) {
        free(resolver: resolver)
        resolve(resolution.instance, protocol: resolution.transport, addressFamily: resolution.family,
                first: resolution.first, replacing: resolver)
    }

    private func free(resolver: OpaquePointer) {
        resolverOwners[resolver] = nil
        _ = CAvahiClientShims_avahi_service_resolver_free(resolver)
    }

    static func instance(name: String, type: String, domain: String, interface: AvahiIfIndex) -> BrowsedInstance {
        BrowsedInstance(name: name, type: dotted(type), domain: dotted(domain),
                        interfaceIndex: UInt32(clamping: max(interface, 0)))
    }

    static func dotted(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }

    /// An Avahi error code as an AvahiError: the daemon or the bus missing or gone is
    /// ``AvahiError/daemonNotRunning`` (callers fall back to the native querier).
    static func error(_ call: String, _ code: Int32) -> AvahiError {
        if code == Int32(AVAHI_ERR_NO_DAEMON) || code == Int32(AVAHI_ERR_DISCONNECTED) { return .daemonNotRunning }
        return .refused(call, TerminalText.sanitize(string(CAvahiClientShims_avahi_strerror(code))))
    }

    /// TXT character-strings as raw RDATA: each a length byte and its bytes, in Avahi's order,
    /// at most 65,535 bytes as in a DNS record.
    static func rdata(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [UInt8] {
        var bytes: [UInt8] = []
        var node = list
        while let current = node {
            let size = min(CAvahiClientShims_avahi_string_list_get_size(current), 255)
            guard bytes.count + 1 + size <= Int(UInt16.max) else { break }
            bytes.append(UInt8(size))
            if let text = CAvahiClientShims_avahi_string_list_get_text(current) {
                bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: size))
            }
            node = CAvahiClientShims_avahi_string_list_get_next(current)
        }
        return bytes
    }

    static func text(_ address: UnsafePointer<AvahiAddress>?) -> String? {
        guard let address else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        guard CAvahiClientShims_avahi_address_snprint(&buffer, buffer.count, address) != nil else { return nil }
        return string(buffer)
    }
}

// MARK: C callbacks (no captures: the browser comes back through the context pointer)

private func browser(_ context: UnsafeMutableRawPointer?) -> AvahiBrowser? {
    context.map { Unmanaged<AvahiBrowser>.fromOpaque($0).takeUnretainedValue() }
}

/// A C string as UTF-8 (invalid bytes repaired); "" for NULL.
private func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
}

private func string(_ buffer: [CChar]) -> String {
    buffer.withUnsafeBufferPointer { string($0.baseAddress) }
}

private let clientCallback: AvahiClientCallback = { client, state, context in
    browser(context)?.clientChanged(client, state: state)
}

private let browseCallback: AvahiServiceBrowserCallback = { _, interface, proto, event, name, type, domain, _, context in
    browser(context)?.browsed(event: event, interface: interface, protocol: proto, name: string(name),
                              type: string(type), domain: string(domain))
}

private let resolveCallback: AvahiServiceResolverCallback = { resolver, _, _, event, _, _, _, host, address, port, txt, _, context in
    guard let resolver else { return }
    browser(context)?.resolved(resolver, found: event == AVAHI_RESOLVER_FOUND, host: string(host),
                               address: AvahiBrowser.text(address), port: port, txt: AvahiBrowser.rdata(txt))
}

/// libavahi-client's main loop waits here instead of in poll(2) itself: ClawpairCore's poll
/// helper, with the loop's timeout (ms, -1 for none) as a deadline on the browser's clock.
private func avahiPoll(_ fds: UnsafeMutablePointer<pollfd>?, _ count: UInt32, _ timeout: Int32,
                       _ context: UnsafeMutableRawPointer?) -> Int32 {
    let entries = UnsafeMutableBufferPointer(start: fds, count: fds == nil ? 0 : Int(count))
    var descriptors = entries.map { PollDescriptor($0.fd, PollEvents(rawValue: $0.events)) }
    // A raised stop wakes the wait; the run then looks at the signal.
    if let stopping = browser(context)?.wakeup?.pollDescriptor { descriptors.append(stopping) }
    let clock = browser(context)?.clock ?? SystemMonotonicClock()
    let deadline = timeout < 0 ? nil : clock.now + .milliseconds(timeout)
    do {
        try Poll.wait(&descriptors, until: deadline, clock: clock)
        for index in entries.indices { entries[index].revents = descriptors[index].ready.rawValue }
        return Int32(entries.count(where: { $0.revents != 0 }))
    } catch {
        errno = error.errno
        return -1
    }
}
