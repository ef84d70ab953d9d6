internal import CAvahiBus
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
    }

    public let type: String
    public let domain: String?
    public let limits: AvahiLimits
    private var operations: [DNSServiceRef: Operation] = [:]
    private var pending: [BrowsedInstance: Pending] = [:]
    private var events: [AvahiEvent] = []
    private var failure: AvahiError?
    /// The browse on our own D-Bus connection (AvahiBusSession), when there is one; else every
    /// instance is browsed and resolved through the compat layer.
    private(set) var session: AvahiBusSession?

    /// Starts browsing `type` (e.g. `_openclaw-gw._tcp`) in `domain` (nil: the default, `local.`),
    /// resolving what it finds as `resolution` says.
    public init(type: String, domain: String? = nil, limits: AvahiLimits = AvahiLimits(),
                resolution: AvahiResolution = .serviceResolver) throws(AvahiError) {
        self.type = type
        self.domain = domain
        self.limits = limits
        // Avahi's own service resolver over our own D-Bus connection (avahi-browse -r's calls);
        // Avahi's compat layer (its own D-Bus client and thread per DNSServiceRef) is the fallback
        // for a bus that is not a Unix socket or that refuses our authentication.
        if resolution == .serviceResolver, let opening = try? AvahiBus.opening(type: type, domain: domain) {
            // A connection made before main with the same first messages (CAvahiBus_prestart).
            var fd = opening.withUnsafeBufferPointer { CAvahiBus_take($0.baseAddress, $0.count) }
            if fd < 0 {
                fd = opening.withUnsafeBufferPointer { CAvahiBus_connect($0.baseAddress, $0.count) }
                if fd < 0 && errno != EAFNOSUPPORT { throw .daemonNotRunning }
            }
            if fd >= 0 {
                do throws(AvahiError) {
                    session = try AvahiBusSession(fd: fd, limits: limits)
                    return
                } catch .protocolViolation {
                    // Authentication refused: libdbus, in the compat layer, may know another way in.
                }
            }
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
        session?.close()
        session = nil
    }

    /// Processes replies until `deadline`, or until `onEvent` returns false. Each event is
    /// handed over as soon as the reply that caused it has been processed.
    public func run(until deadline: Monotonic.Instant, onEvent: (AvahiEvent) -> Bool) throws(AvahiError) {
        if let session {
            try session.run(until: deadline, onEvent: onEvent)
            return
        }
        while true {
            let now = Monotonic.now
            guard now < deadline else { return }
            let keys = Array(operations.keys)
            var fds = keys.map { pollfd(fd: CDNSSDShims_DNSServiceRefSockFD($0), events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Monotonic.pollTimeout(until: deadline, from: now))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .poll(errno)
            }
            for (index, descriptor) in fds.enumerated() where descriptor.revents != 0 {
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

    fileprivate func browsed(flags: DNSServiceFlags, interface: UInt32, status: DNSServiceErrorType,
                             name: String, type: String, domain: String) {
        guard status == kDNSServiceErr_NoError else {
            failure = Self.error("browse", status)
            return
        }
        let instance = BrowsedInstance(name: name, type: type, domain: domain, interfaceIndex: interface)
        if flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 {
            guard pending[instance] == nil, pending.count < limits.maxInstances else { return }
            var entry = Pending()
            var ref: DNSServiceRef?
            let context = Unmanaged.passUnretained(self).toOpaque()
            let started = CDNSSDShims_DNSServiceResolve(&ref, 0, interface, name, type, domain, resolveReply, context)
            if started == kDNSServiceErr_NoError, let ref {
                operations[ref] = .resolve(instance)
                entry.resolveRef = ref
            }
            pending[instance] = entry
            events.append(.added(instance))
        } else if let entry = pending.removeValue(forKey: instance) {
            for ref in [entry.resolveRef].compactMap({ $0 }) + entry.queryRefs { close(operation: ref) }
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
