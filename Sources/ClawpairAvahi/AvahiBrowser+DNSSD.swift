internal import CDNSSDShims
#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// Browses one service type through avahi-daemon and resolves what it finds.
///
/// Confined to the thread that calls ``run(until:onEvent:)`` (not `Sendable`); every
/// `DNSServiceRef` it opens is deallocated by ``stop()`` or `deinit`.
public final class AvahiBrowser {
    /// What one open `DNSServiceRef` is doing.
    enum Operation {
        case browse
        case resolve(BrowsedInstance)
        case query(BrowsedInstance)
    }

    /// What is known of an instance while it resolves.
    struct Pending {
        var hostTarget: String?
        var port: UInt16 = 0
        var txt: [UInt8] = []
        var addresses: [String] = []
        var resolveRef: DNSServiceRef?
        var queryRefs: [DNSServiceRef] = []
        /// The tag of the instance's resolutions through ``resolver`` (nil: the compat path).
        var resolverTag: UInt64?
    }

    public let type: String
    public let domain: String?
    public let limits: AvahiLimits
    private var operations: [DNSServiceRef: Operation] = [:]
    private var pending: [BrowsedInstance: Pending] = [:]
    private var events: [AvahiEvent] = []
    private var failure: AvahiError?
    /// Avahi's own service resolver (SRV, TXT and an address in one answer), when libavahi-client
    /// loads and connects; it browses as well then (no DNSServiceRef at all). Else each instance
    /// is browsed and resolved through the compat layer.
    private var resolver: OpaquePointer?
    private var resolverTags: [UInt64: BrowsedInstance] = [:]
    private var nextTag: UInt64 = 1

    /// Starts browsing `type` (e.g. `_openclaw-gw._tcp`) in `domain` (nil: the default, `local.`),
    /// resolving what it finds as `resolution` says.
    public init(type: String, domain: String? = nil, limits: AvahiLimits = AvahiLimits(),
                resolution: AvahiResolution = .serviceResolver) throws(AvahiError) {
        self.type = type
        self.domain = domain
        self.limits = limits
        // One libavahi-client connection browses and resolves (avahi-browse -r's round trips);
        // Avahi's compat layer (its own D-Bus client and thread per DNSServiceRef) is the fallback.
        // The browse resolves what it finds itself, on Avahi's thread, with no hop to this one.
        let resolveLimit = UInt32(clamping: limits.maxInstances)
        var browsing = false
        if resolution == .serviceResolver {
            if let resolver = CDNSSDShims_resolver_take(type, domain, resolveLimit) {
                // Started before main (CDNSSDShims_resolver_prestart): the browse is under way.
                self.resolver = resolver
                browsing = true
            } else if let resolver = CDNSSDShims_resolver_open() {
                self.resolver = resolver
                browsing = CDNSSDShims_resolver_browse(resolver, type, domain, resolveLimit) == 0
            }
        }
        if browsing {
            // The tables' storage now, while avahi-daemon holds the browse back (about 10 ms), not
            // after its first answer: first use of a generic type costs a runtime metadata
            // instantiation with conformance lookups.
            pending.reserveCapacity(4)
            resolverTags.reserveCapacity(4)
            events.reserveCapacity(4)
            return
        }
        try Self.loadLibrary()
        var ref: DNSServiceRef?
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = CDNSSDShims_DNSServiceBrowse(&ref, 0, 0, type, domain, browseReply, context)
        guard status == kDNSServiceErr_NoError, let ref else { throw Self.error("DNSServiceBrowse", status) }
        operations[ref] = .browse
    }

    deinit { stop() }

    /// Closes every open operation. Safe to call more than once.
    public func stop() {
        for key in operations.keys { CDNSSDShims_DNSServiceRefDeallocate(key) }
        operations.removeAll()
        pending.removeAll()
        if let resolver { CDNSSDShims_resolver_close(resolver) }
        resolver = nil
        resolverTags.removeAll()
    }

    /// Processes replies until `deadline`, or until `onEvent` returns false. Each event is
    /// handed over as soon as the reply that caused it has been processed.
    public func run(until deadline: Monotonic.Instant, onEvent: (AvahiEvent) -> Bool) throws(AvahiError) {
        while true {
            let now = Monotonic.now
            guard now < deadline else { return }
            let keys = Array(operations.keys)
            var fds = keys.map { pollfd(fd: CDNSSDShims_DNSServiceRefSockFD($0), events: Int16(POLLIN), revents: 0) }
            if let resolver { fds.append(pollfd(fd: CDNSSDShims_resolver_fd(resolver), events: Int16(POLLIN), revents: 0)) }
            let remaining = now.duration(to: deadline).components
            let timeoutMs = Int32(clamping: remaining.seconds * 1000 + remaining.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&fds, nfds_t(fds.count), timeoutMs)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .poll(errno)
            }
            for (index, descriptor) in fds.enumerated() where descriptor.revents != 0 {
                guard index < keys.count else {
                    drainResolver()
                    continue
                }
                let key = keys[index]
                guard operations[key] != nil else { continue }  // closed by an earlier callback
                let status = CDNSSDShims_DNSServiceProcessResult(key)
                if status != kDNSServiceErr_NoError {
                    if case .browse = operations[key] { throw Self.error("DNSServiceProcessResult", status) }
                    close(operation: key)
                }
            }
            if let failure { throw failure }
            let batch = events
            events.removeAll()
            for event in batch where !onEvent(event) { return }
        }
    }

    // MARK: Callbacks

    /// `resolving`: the tag of the resolution the resolver's browse started for the instance (0: none).
    fileprivate func browsed(flags: DNSServiceFlags, interface: UInt32, status: DNSServiceErrorType,
                             name: String, type: String, domain: String, resolving: UInt64 = 0) {
        guard status == kDNSServiceErr_NoError else {
            failure = Self.error("browse", status)
            return
        }
        let instance = BrowsedInstance(name: name, type: type, domain: domain, interfaceIndex: interface)
        if flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 {
            guard pending[instance] == nil, pending.count < limits.maxInstances else {
                // The browse shares one resolution per instance; a new one nobody takes is stopped.
                if resolving != 0, resolverTags[resolving] == nil, let resolver {
                    CDNSSDShims_resolver_cancel(resolver, resolving)
                }
                return
            }
            var entry = Pending()
            if resolving != 0 {
                entry.resolverTag = resolving
                resolverTags[resolving] = instance
            } else if let resolver {
                // Whichever address family answers first (that answer ends a --first run), then the
                // other one as well.
                let tag = nextTag
                nextTag += 1
                if CDNSSDShims_resolver_start(resolver, tag, interface, name, type, domain, AF_UNSPEC) == 0 {
                    entry.resolverTag = tag
                    resolverTags[tag] = instance
                }
            }
            // The compat resolver needs libdns_sd, not loaded when the browse runs on the resolver's client.
            if entry.resolverTag == nil, CDNSSDShims_load() == 0 {
                var ref: DNSServiceRef?
                let context = Unmanaged.passUnretained(self).toOpaque()
                let started = CDNSSDShims_DNSServiceResolve(&ref, 0, interface, name, type, domain, resolveReply, context)
                if started == kDNSServiceErr_NoError, let ref {
                    operations[ref] = .resolve(instance)
                    entry.resolveRef = ref
                }
            }
            pending[instance] = entry
            events.append(.added(instance))
        } else if let entry = pending.removeValue(forKey: instance) {
            for ref in [entry.resolveRef].compactMap({ $0 }) + entry.queryRefs { close(operation: ref) }
            if let tag = entry.resolverTag, let resolver {
                CDNSSDShims_resolver_cancel(resolver, tag)
                resolverTags[tag] = nil
            }
            events.append(.removed(instance))
        }
    }

    fileprivate func resolved(ref: DNSServiceRef, status: DNSServiceErrorType, hostTarget: String, port: UInt16,
                              txt: [UInt8]) {
        guard status == kDNSServiceErr_NoError, case .resolve(let instance)? = operations[ref],
              var entry = pending[instance] else { return }
        let targetChanged = entry.hostTarget != hostTarget
        entry.hostTarget = hostTarget
        entry.port = port
        entry.txt = txt
        if targetChanged {
            for old in entry.queryRefs { close(operation: old) }
            entry.queryRefs = []
            entry.addresses = []
            let context = Unmanaged.passUnretained(self).toOpaque()
            for rrtype in [UInt16(kDNSServiceType_A), UInt16(kDNSServiceType_AAAA)] {
                var query: DNSServiceRef?
                let started = CDNSSDShims_DNSServiceQueryRecord(&query, 0, instance.interfaceIndex, hostTarget, rrtype,
                                                    UInt16(kDNSServiceClass_IN), queryReply, context)
                if started == kDNSServiceErr_NoError, let query {
                    operations[query] = .query(instance)
                    entry.queryRefs.append(query)
                }
            }
        }
        pending[instance] = entry
        if !entry.addresses.isEmpty { events.append(.resolved(snapshot(instance, entry))) }
    }

    fileprivate func answered(ref: DNSServiceRef, flags: DNSServiceFlags, status: DNSServiceErrorType,
                              rrtype: UInt16, rdata: [UInt8]) {
        guard status == kDNSServiceErr_NoError, case .query(let instance)? = operations[ref],
              var entry = pending[instance], let address = Self.format(rrtype: rrtype, rdata: rdata) else { return }
        if flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 {
            guard !entry.addresses.contains(address), entry.addresses.count < limits.maxAddressesPerInstance else { return }
            entry.addresses.append(address)
        } else {
            entry.addresses.removeAll { $0 == address }
        }
        pending[instance] = entry
        if entry.hostTarget != nil && !entry.addresses.isEmpty { events.append(.resolved(snapshot(instance, entry))) }
    }

    /// Takes every queued event of ``resolver``: browse events go where DNSServiceBrowse's
    /// replies go; each answer that changes what is known of its instance becomes a `.resolved` event.
    private func drainResolver() {
        guard let resolver else { return }
        var answer = CDNSSDShims_Resolution()
        while CDNSSDShims_resolver_next(resolver, &answer) == 1 {
            defer { CDNSSDShims_resolution_free(&answer) }
            switch answer.kind {
            case CDNSSDShims_EventBrowseAdded, CDNSSDShims_EventBrowseRemoved:
                func text<T>(_ field: T) -> String {
                    withUnsafeBytes(of: field) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                }
                let added = answer.kind == CDNSSDShims_EventBrowseAdded
                browsed(flags: added ? DNSServiceFlags(kDNSServiceFlagsAdd) : 0, interface: answer.interface,
                        status: DNSServiceErrorType(kDNSServiceErr_NoError), name: text(answer.name), type: text(answer.type),
                        domain: text(answer.host), resolving: added ? answer.tag : 0)
                continue
            case CDNSSDShims_EventBrowseFailed:
                browsed(flags: 0, interface: 0, status: answer.status, name: "", type: "", domain: "")
                continue
            default:
                break
            }
            guard answer.found == 1, let instance = resolverTags[answer.tag], var entry = pending[instance] else { continue }
            let host = withUnsafeBytes(of: answer.host) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let address = withUnsafeBytes(of: answer.address) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let txt = answer.txt.map { Array(UnsafeBufferPointer(start: $0, count: answer.txt_length)) } ?? []
            var changed = entry.hostTarget != host || entry.port != answer.port || entry.txt != txt
            if entry.hostTarget != host { entry.addresses = [] }
            entry.hostTarget = host
            entry.port = answer.port
            entry.txt = txt
            if !address.isEmpty, !entry.addresses.contains(address), entry.addresses.count < limits.maxAddressesPerInstance {
                entry.addresses.append(address)
                changed = true
            }
            pending[instance] = entry
            if changed && !entry.addresses.isEmpty { events.append(.resolved(snapshot(instance, entry))) }
        }
    }

    // MARK: Helpers

    private func snapshot(_ instance: BrowsedInstance, _ entry: Pending) -> ResolvedInstance {
        ResolvedInstance(instance: instance, hostTarget: entry.hostTarget ?? "", port: entry.port,
                         txtRecord: entry.txt, addresses: entry.addresses)
    }

    private func close(operation key: DNSServiceRef) {
        guard operations.removeValue(forKey: key) != nil else { return }
        CDNSSDShims_DNSServiceRefDeallocate(key)
    }

    /// Loads Avahi's compat library on first use (it is not linked; see CDNSSDShims).
    static func loadLibrary() throws(AvahiError) {
        guard CDNSSDShims_load() == 0 else { throw .libraryUnavailable(String(cString: CDNSSDShims_load_error())) }
    }

    static func error(_ call: String, _ status: DNSServiceErrorType) -> AvahiError {
        // Avahi's compat layer has no ServiceNotRunning code: a missing daemon or D-Bus is Unknown.
        if status == kDNSServiceErr_Unknown { return .daemonNotRunning }
        return .call(call, status)
    }

    /// A or AAAA RDATA as text; nil for anything else or a wrong length.
    static func format(rrtype: UInt16, rdata: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family: Int32
        switch (rrtype, rdata.count) {
        case (UInt16(kDNSServiceType_A), 4): family = AF_INET
        case (UInt16(kDNSServiceType_AAAA), 16): family = AF_INET6
        default: return nil
        }
        let ok = rdata.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard ok != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

// MARK: C callbacks (no captures: the browser comes back through the context pointer)

private func browser(_ context: UnsafeMutableRawPointer?) -> AvahiBrowser? {
    context.map { Unmanaged<AvahiBrowser>.fromOpaque($0).takeUnretainedValue() }
}

private func string(_ pointer: UnsafePointer<CChar>?) -> String {
    pointer.map { String(decoding: UnsafeBufferPointer(start: $0, count: strlen($0)).map { UInt8(bitPattern: $0) }, as: UTF8.self) } ?? ""
}

private let browseReply: DNSServiceBrowseReply = { _, flags, interface, status, name, type, domain, context in
    browser(context)?.browsed(flags: flags, interface: interface, status: status, name: string(name),
                              type: string(type), domain: string(domain))
}

private let resolveReply: DNSServiceResolveReply = { ref, _, _, status, _, hostTarget, port, txtLength, txt, context in
    guard let ref else { return }
    let bytes = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? []
    browser(context)?.resolved(ref: ref, status: status, hostTarget: string(hostTarget),
                               port: UInt16(bigEndian: port), txt: bytes)
}

private let queryReply: DNSServiceQueryRecordReply = { ref, flags, _, status, _, rrtype, _, length, rdata, _, context in
    guard let ref else { return }
    let bytes = rdata.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
    browser(context)?.answered(ref: ref, flags: flags, status: status, rrtype: rrtype, rdata: bytes)
}
