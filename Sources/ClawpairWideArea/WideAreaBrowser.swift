// Unicast DNS-SD browse (RFC 6763 §4–6): PTR `_openclaw-gw._tcp.<domain>` → per instance SRV
// and TXT → A/AAAA of the SRV target. Records a server volunteers in the additional section
// are used when they belong to the browsed domain, so a server that sends them saves queries.
import ClawpairCore
import ClawpairDNS

/// One instance found by a unicast browse. `srv`/`txt` are nil when the server had none.
public struct WideAreaService: Sendable, Hashable {
    /// The full instance name (`studio._openclaw-gw._tcp.openclaw.internal.`).
    public let instance: DNSName
    /// The domain browsed, with a trailing dot.
    public let domain: String
    /// The SRV record to use: the first of ``srvRecords``.
    public var srv: SRVData? { srvRecords.first }
    /// Every SRV record of the instance in RFC 2782 order (lowest priority first, weighted random
    /// among equal priorities; see ``SRVOrder``).
    public let srvRecords: [SRVData]
    public let txt: [[UInt8]]?
    /// The addresses of ``srv``'s target, IPv4 then IPv6, as text.
    public let addresses: [String]
    /// The smallest TTL of the records this instance was built from (SRV, TXT, addresses), in
    /// seconds; nil when none carried one.
    public let ttl: UInt32?

    public init(instance: DNSName, domain: String, srvRecords: [SRVData], txt: [[UInt8]]?, addresses: [String],
                ttl: UInt32? = nil) {
        self.instance = instance
        self.domain = domain
        self.srvRecords = srvRecords
        self.txt = txt
        self.addresses = addresses
        self.ttl = ttl
    }
}

/// What one browse of one domain learned besides the instances it handed over.
public struct WideAreaBrowseResult: Sendable, Hashable {
    /// The instances the PTR answer listed (at most ``WideAreaBrowser/Limits/maxInstances``), in
    /// answer order. An instance listed here but not handed to `onFound` was not resolved in time.
    public let listed: [DNSName]
    /// The smallest TTL among the PTR records, or for an empty answer the negative-caching TTL of
    /// the SOA in the authority section (RFC 2308 §5: min(SOA TTL, SOA MINIMUM)); nil when the
    /// answer carried neither.
    public let listTTL: UInt32?
}

/// Browses one domain through a ``UnicastDNSClient``, on the client's clock
/// (``UnicastDNSClient/clock``).
public struct WideAreaBrowser: Sendable {
    /// Bounds on what one browse takes in.
    public struct Limits: Sendable {
        /// Instances resolved per domain; further PTR targets are ignored.
        public var maxInstances = 128
        /// Addresses kept per SRV target and family.
        public var maxAddressesPerFamily = 8
        /// A tighter budget for each SRV, TXT, A and AAAA question (nil: only the client's
        /// per-query budget and the deadline). The tailnet fallback uses 0.2 s, as upstream does.
        public var resolveQueryBudget: Duration?
        public init() {}
    }

    public let client: UnicastDNSClient
    public let serviceType: String
    public let limits: Limits
    /// The random choice among SRV records of equal priority (injected by tests).
    public let srvPick: SRVOrder.Pick

    public init(client: UnicastDNSClient, serviceType: String = "_openclaw-gw._tcp", limits: Limits = Limits(),
                srvPick: @escaping SRVOrder.Pick = SRVOrder.systemRandom) {
        self.client = client
        self.serviceType = serviceType
        self.limits = limits
        self.srvPick = srvPick
    }

    /// Records learned along the way, keyed by lowercased owner name and type.
    private struct Cache {
        var records: [DNSName: [DNSType: [DNSRecordData]]] = [:]
        /// The smallest TTL seen per owner name and type.
        var ttls: [DNSName: [DNSType: UInt32]] = [:]
        var count = 0
        static let maxRecords = 4096

        mutating func add(_ message: DNSMessage, within domain: DNSName) {
            for record in message.answers + message.additionals where record.type != .opt {
                guard count < Self.maxRecords, record.name.isSubdomain(of: domain) else { continue }
                let key = record.name.lowercased()
                ttls[key, default: [:]][record.type] = min(ttls[key]?[record.type] ?? .max, record.ttl)
                if records[key]?[record.type]?.contains(record.data) == true { continue }
                records[key, default: [:]][record.type, default: []].append(record.data)
                count += 1
            }
        }

        func lookup(_ name: DNSName, _ type: DNSType) -> [DNSRecordData]? { records[name.lowercased()]?[type] }
        func ttl(_ name: DNSName, _ type: DNSType) -> UInt32? { ttls[name.lowercased()]?[type] }
    }

    /// RFC 2308 §5: the negative-caching TTL of an answer's SOA, min(SOA TTL, SOA MINIMUM).
    static func negativeTTL(_ message: DNSMessage) -> UInt32? {
        message.authorities.lazy.compactMap { record -> UInt32? in
            guard case let .soa(soa) = record.data else { return nil }
            return min(record.ttl, soa.minimum)
        }.first
    }

    /// Browses `domain` until done or `deadline`, calling `onFound` for each resolved instance
    /// (return false to stop). Throws only when the PTR question itself got no answer.
    @discardableResult
    public func browse(domain: String, deadline: Monotonic.Instant,
                       onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> WideAreaBrowseResult {
        let normalized = domain.hasSuffix(".") ? domain : domain + "."
        let zone: DNSName
        let service: DNSName
        do {
            zone = try DNSName(normalized)
            service = try DNSName(serviceType + "." + normalized)
        } catch { throw .serverFailed(server: "-", reason: "'\(domain)' is not a valid domain name: \(error)") }
        var cache = Cache()
        let ptr = try client.query(service, .ptr, deadline: deadline)
        cache.add(ptr, within: zone)
        var instances: [DNSName] = []
        var listTTL: UInt32?
        for record in ptr.answers where record.name.equalsIgnoringCase(service) {
            guard case let .ptr(target) = record.data, target.isSubdomain(of: service),
                  !instances.contains(where: { $0.equalsIgnoringCase(target) }) else { continue }
            instances.append(target)
            listTTL = min(listTTL ?? .max, record.ttl)
            if instances.count == limits.maxInstances { break }
        }
        if instances.isEmpty { listTTL = Self.negativeTTL(ptr) }
        var addressesByTarget: [DNSName: (addresses: [String], ttl: UInt32?)] = [:]
        for instance in instances {
            guard client.clock.now < deadline else { break }
            var ttl: UInt32?
            func note(_ value: UInt32?) { if let value { ttl = min(ttl ?? .max, value) } }
            let srvRecords = SRVOrder.sorted(try records(instance, .srv, &cache, zone, deadline).compactMap { data -> SRVData? in
                if case let .srv(value) = data { return value }
                return nil
            }, pick: srvPick)
            note(cache.ttl(instance, .srv))
            let txt = try records(instance, .txt, &cache, zone, deadline).lazy.compactMap { data -> [[UInt8]]? in
                if case let .txt(value) = data { return value }
                return nil
            }.first
            note(cache.ttl(instance, .txt))
            var addresses: [String] = []
            if let target = srvRecords.first?.target, let known = addressesByTarget[target.lowercased()] {
                addresses = known.addresses
                note(known.ttl)
            } else if let target = srvRecords.first?.target, !target.isRoot {
                var addressTTL: UInt32?
                // Address records may live outside the browsed domain: ask, and cache only in-zone ones.
                for type in [DNSType.a, .aaaa] {
                    let found: [DNSResourceRecord]
                    if let cached = cache.lookup(target, type) {
                        let cachedTTL = cache.ttl(target, type) ?? 0
                        found = cached.map { DNSResourceRecord(name: target, ttl: cachedTTL, data: $0) }
                    } else if let answer = try? client.query(target, type, deadline: resolveDeadline(deadline)) {
                        found = answer.answers.filter { $0.name.equalsIgnoringCase(target) && $0.type == type }
                    } else {
                        found = []
                    }
                    let texts = found.compactMap { record -> String? in
                        switch record.data {
                        case let .a(address): return address.description
                        case let .aaaa(address): return address.description
                        default: return nil
                        }
                    }
                    if let smallest = found.map(\.ttl).min() { addressTTL = min(addressTTL ?? .max, smallest) }
                    addresses += texts.prefix(limits.maxAddressesPerFamily)
                }
                note(addressTTL)
                // Many instances usually share one host: ask for its addresses once.
                if addressesByTarget.count < limits.maxInstances {
                    addressesByTarget[target.lowercased()] = (addresses, addressTTL)
                }
            }
            let found = WideAreaService(instance: instance, domain: normalized, srvRecords: srvRecords, txt: txt,
                                        addresses: addresses, ttl: ttl)
            if !onFound(found) { break }
        }
        return WideAreaBrowseResult(listed: instances, listTTL: listTTL)
    }

    /// The deadline of one resolve question: ``Limits/resolveQueryBudget`` from now, within `deadline`.
    private func resolveDeadline(_ deadline: Monotonic.Instant) -> Monotonic.Instant {
        guard let budget = limits.resolveQueryBudget else { return deadline }
        return min(deadline, client.clock.now + budget)
    }

    /// Cached records of `name`/`type`, else the answer of a query (empty when none or on failure
    /// of this one question: one broken instance does not end the browse).
    private func records(_ name: DNSName, _ type: DNSType, _ cache: inout Cache, _ zone: DNSName,
                         _ deadline: Monotonic.Instant) throws(WideAreaError) -> [DNSRecordData] {
        if let cached = cache.lookup(name, type) { return cached }
        guard let answer = try? client.query(name, type, deadline: resolveDeadline(deadline)) else { return [] }
        cache.add(answer, within: zone)
        return cache.lookup(name, type) ?? []
    }
}
