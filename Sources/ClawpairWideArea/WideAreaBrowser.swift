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
    /// The TXT strings, when the TXT record was found.
    public let txt: [[UInt8]]?
    /// The addresses of ``srv``'s target, IPv4 then IPv6, as text.
    public let addresses: [String]
    /// The smallest TTL of the records this instance was built from (SRV, TXT, addresses), in
    /// seconds; nil when none carried one.
    public let ttl: UInt32?

    /// A service with these members.
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
    /// How many distinct instances the PTR answer named; above ``listed``'s count when
    /// ``WideAreaBrowser/Limits/maxInstances`` cut the list.
    public let seen: Int
    /// Whether ``WideAreaBrowser/Limits/maxInstances`` left instances out.
    public var truncated: Bool { seen > listed.count }

    /// A result with these members.
    public init(listed: [DNSName], listTTL: UInt32?, seen: Int? = nil) {
        self.listed = listed
        self.listTTL = listTTL
        self.seen = max(seen ?? listed.count, listed.count)
    }
}

/// Browses one domain through a ``UnicastDNSClient``, on the client's clock
/// (``UnicastDNSClient/clock``).
public struct WideAreaBrowser: Sendable {
    /// Bounds on what one browse takes in.
    public struct Limits: Sendable {
        /// Instances resolved per domain; further PTR targets are left out and counted
        /// (``WideAreaBrowseResult/seen``), never silently.
        public var maxInstances = WideAreaBrowser.defaultMaxInstances
        /// Instances resolved together: their SRV and TXT questions, then their hosts' address
        /// questions, go out at once (``UnicastDNSClient/queryAll(_:deadline:perQuestion:)``).
        public var batchSize = 128
        /// Addresses kept per SRV target and family.
        public var maxAddressesPerFamily = 8
        /// A tighter budget for each SRV, TXT, A and AAAA question (nil: only the client's
        /// per-query budget and the deadline). The tailnet fallback uses 0.2 s, as upstream does.
        public var resolveQueryBudget: Duration?
        /// The defaults above.
        public init() {}
    }

    /// The default of ``Limits/maxInstances``: a fleet of a thousand gateways in one domain fits twice.
    public static let defaultMaxInstances = 2048

    /// The DNS client it asks through.
    public let client: UnicastDNSClient
    /// The service type browsed.
    public let serviceType: String
    /// The limits applied to what a domain lists.
    public let limits: Limits
    /// The random choice among SRV records of equal priority (injected by tests).
    public let srvPick: SRVOrder.Pick

    /// A browser asking through `client`.
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
        /// Most records kept: enough for every instance's PTR, SRV, TXT and addresses.
        let maxRecords: Int

        mutating func add(_ message: DNSMessage, within domain: DNSName) {
            for record in message.answers + message.additionals where record.type != .opt {
                guard count < maxRecords, record.name.isSubdomain(of: domain) else { continue }
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
        var cache = Cache(maxRecords: max(4096, limits.maxInstances * 8))
        let ptr = try client.query(service, .ptr, deadline: deadline)
        cache.add(ptr, within: zone)
        var instances: [DNSName] = []
        var distinct = Set<DNSName>()
        var listTTL: UInt32?
        for record in ptr.answers where record.name.equalsIgnoringCase(service) {
            guard case let .ptr(target) = record.data, target.isSubdomain(of: service),
                  distinct.insert(target.lowercased()).inserted else { continue }
            listTTL = min(listTTL ?? .max, record.ttl)
            if instances.count < limits.maxInstances { instances.append(target) }
        }
        let seen = distinct.count
        if instances.isEmpty { listTTL = Self.negativeTTL(ptr) }
        var addressesByTarget: [DNSName: (addresses: [String], ttl: UInt32?)] = [:]
        // A batch at a time: its SRV and TXT questions at once, then its hosts' addresses at once,
        // then its instances are handed over (so the first arrive early).
        var start = instances.startIndex
        batches: while start < instances.endIndex {
            guard client.clock.now < deadline else { break }
            let batch = instances[start..<min(instances.endIndex, start + max(1, limits.batchSize))]
            start = batch.endIndex
            ask(batch.flatMap { [UnicastDNSClient.Question($0, .srv), UnicastDNSClient.Question($0, .txt)] },
                &cache, zone, deadline)
            let srvByInstance = batch.map { instance in
                SRVOrder.sorted((cache.lookup(instance, .srv) ?? []).compactMap { data -> SRVData? in
                    if case let .srv(value) = data { return value }
                    return nil
                }, pick: srvPick)
            }
            // Address records may live outside the browsed domain: ask, and cache only in-zone ones.
            var targets: [DNSName] = []
            for records in srvByInstance {
                guard let target = records.first?.target, !target.isRoot, addressesByTarget[target.lowercased()] == nil,
                      !targets.contains(where: { $0.equalsIgnoringCase(target) }) else { continue }
                targets.append(target)
            }
            let unknown = targets.flatMap { target in
                [DNSType.a, .aaaa].filter { cache.lookup(target, $0) == nil }.map { UnicastDNSClient.Question(target, $0) }
            }
            let answers = client.queryAll(unknown, deadline: deadline, perQuestion: limits.resolveQueryBudget)
            for target in targets {
                var addresses: [String] = []
                var addressTTL: UInt32?
                for type in [DNSType.a, .aaaa] {
                    let found: [DNSResourceRecord]
                    if let cached = cache.lookup(target, type) {
                        let cachedTTL = cache.ttl(target, type) ?? 0
                        found = cached.map { DNSResourceRecord(name: target, ttl: cachedTTL, data: $0) }
                    } else if let position = unknown.firstIndex(of: UnicastDNSClient.Question(target, type)),
                              let answer = answers[position] {
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
                // Many instances usually share one host: its addresses are asked for once.
                addressesByTarget[target.lowercased()] = (addresses, addressTTL)
            }
            for (instance, srvRecords) in zip(batch, srvByInstance) {
                var ttl: UInt32?
                func note(_ value: UInt32?) { if let value { ttl = min(ttl ?? .max, value) } }
                note(cache.ttl(instance, .srv))
                let txt = (cache.lookup(instance, .txt) ?? []).lazy.compactMap { data -> [[UInt8]]? in
                    if case let .txt(value) = data { return value }
                    return nil
                }.first
                note(cache.ttl(instance, .txt))
                var addresses: [String] = []
                if let target = srvRecords.first?.target, let known = addressesByTarget[target.lowercased()] {
                    addresses = known.addresses
                    note(known.ttl)
                }
                let found = WideAreaService(instance: instance, domain: normalized, srvRecords: srvRecords, txt: txt,
                                            addresses: addresses, ttl: ttl)
                if !onFound(found) { break batches }
            }
        }
        return WideAreaBrowseResult(listed: instances, listTTL: listTTL, seen: seen)
    }

    /// The deadline of one resolve question: ``Limits/resolveQueryBudget`` from now, within `deadline`.
    private func resolveDeadline(_ deadline: Monotonic.Instant) -> Monotonic.Instant {
        guard let budget = limits.resolveQueryBudget else { return deadline }
        return min(deadline, client.clock.now + budget)
    }

    /// Asks the questions whose answers are not cached yet, all at once, and caches the in-zone
    /// records of the answers (a question no server answered stays empty: one broken instance
    /// does not end the browse).
    private func ask(_ questions: [UnicastDNSClient.Question], _ cache: inout Cache, _ zone: DNSName,
                     _ deadline: Monotonic.Instant) {
        let missing = questions.filter { cache.lookup($0.name, $0.type) == nil }
        for answer in client.queryAll(missing, deadline: deadline, perQuestion: limits.resolveQueryBudget) {
            if let answer { cache.add(answer, within: zone) }
        }
    }
}
