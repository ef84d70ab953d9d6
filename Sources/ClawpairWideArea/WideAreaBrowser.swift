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
    public let srv: SRVData?
    public let txt: [[UInt8]]?
    /// The SRV target's IPv4 and IPv6 addresses, as text.
    public let addresses: [String]
}

/// Browses one domain through a ``UnicastDNSClient``.
public struct WideAreaBrowser: Sendable {
    /// Bounds on what one browse takes in.
    public struct Limits: Sendable {
        /// Instances resolved per domain; further PTR targets are ignored.
        public var maxInstances = 128
        /// Addresses kept per SRV target and family.
        public var maxAddressesPerFamily = 8
        public init() {}
    }

    public let client: UnicastDNSClient
    public let serviceType: String
    public let limits: Limits

    public init(client: UnicastDNSClient, serviceType: String = "_openclaw-gw._tcp", limits: Limits = Limits()) {
        self.client = client
        self.serviceType = serviceType
        self.limits = limits
    }

    /// Records learned along the way, keyed by lowercased owner name and type.
    private struct Cache {
        var records: [DNSName: [DNSType: [DNSRecordData]]] = [:]
        var count = 0
        static let maxRecords = 4096

        mutating func add(_ message: DNSMessage, within domain: DNSName) {
            for record in message.answers + message.additionals where record.type != .opt {
                guard count < Self.maxRecords, record.name.isSubdomain(of: domain) else { continue }
                let key = record.name.lowercased()
                if records[key]?[record.type]?.contains(record.data) == true { continue }
                records[key, default: [:]][record.type, default: []].append(record.data)
                count += 1
            }
        }

        func lookup(_ name: DNSName, _ type: DNSType) -> [DNSRecordData]? { records[name.lowercased()]?[type] }
    }

    /// Browses `domain` until done or `deadline`, calling `onFound` for each resolved instance
    /// (return false to stop). Returns the number of instances the PTR query listed.
    @discardableResult
    public func browse(domain: String, deadline: ContinuousClock.Instant,
                       onFound: (WideAreaService) -> Bool) throws(WideAreaError) -> Int {
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
        for record in ptr.answers where record.name.equalsIgnoringCase(service) {
            guard case let .ptr(target) = record.data, target.isSubdomain(of: service),
                  !instances.contains(where: { $0.equalsIgnoringCase(target) }) else { continue }
            instances.append(target)
            if instances.count == limits.maxInstances { break }
        }
        var addressesByTarget: [DNSName: [String]] = [:]
        for instance in instances {
            guard ContinuousClock.now < deadline else { break }
            let srv = try records(instance, .srv, &cache, zone, deadline).lazy.compactMap { data -> SRVData? in
                if case let .srv(value) = data { return value }
                return nil
            }.first
            let txt = try records(instance, .txt, &cache, zone, deadline).lazy.compactMap { data -> [[UInt8]]? in
                if case let .txt(value) = data { return value }
                return nil
            }.first
            var addresses: [String] = []
            if let target = srv?.target, let known = addressesByTarget[target.lowercased()] {
                addresses = known
            } else if let target = srv?.target, !target.isRoot {
                // Address records may live outside the browsed domain: ask, and cache only in-zone ones.
                for type in [DNSType.a, .aaaa] {
                    let found: [DNSRecordData]
                    if let cached = cache.lookup(target, type) {
                        found = cached
                    } else if let answer = try? client.query(target, type, deadline: deadline) {
                        found = answer.answers.filter { $0.name.equalsIgnoringCase(target) }.map(\.data)
                    } else {
                        found = []
                    }
                    let texts = found.compactMap { data -> String? in
                        switch data {
                        case let .a(address): return address.description
                        case let .aaaa(address): return address.description
                        default: return nil
                        }
                    }
                    addresses += texts.prefix(limits.maxAddressesPerFamily)
                }
                // Many instances usually share one host: ask for its addresses once.
                if addressesByTarget.count < limits.maxInstances { addressesByTarget[target.lowercased()] = addresses }
            }
            let found = WideAreaService(instance: instance, domain: normalized, srv: srv, txt: txt, addresses: addresses)
            if !onFound(found) { break }
        }
        return instances.count
    }

    /// Cached records of `name`/`type`, else the answer of a query (empty when none or on failure
    /// of this one question: one broken instance does not end the browse).
    private func records(_ name: DNSName, _ type: DNSType, _ cache: inout Cache, _ zone: DNSName,
                         _ deadline: ContinuousClock.Instant) throws(WideAreaError) -> [DNSRecordData] {
        if let cached = cache.lookup(name, type) { return cached }
        guard let answer = try? client.query(name, type, deadline: deadline) else { return [] }
        cache.add(answer, within: zone)
        return cache.lookup(name, type) ?? []
    }
}
