import ClawpairCore
import ClawpairDNS

/// A resolved DNS-SD service instance, as the native querier assembles it from the cache.
public struct MDNSService: Sendable, Equatable {
    /// The full instance name, e.g. `Studio\032(OpenClaw)._openclaw-gw._tcp.local.`.
    public let instance: DNSName
    /// The SRV target host.
    public let hostTarget: DNSName
    /// The SRV port.
    public let port: UInt16
    /// The TXT character-strings, exactly as received.
    public let txt: [[UInt8]]
    /// Addresses of the SRV target (IPv4 first, then IPv6), textual.
    public let addresses: [String]

    /// A service with these members.
    public init(instance: DNSName, hostTarget: DNSName, port: UInt16, txt: [[UInt8]], addresses: [String]) {
        self.instance = instance
        self.hostTarget = hostTarget
        self.port = port
        self.txt = txt
        self.addresses = addresses
    }
}

/// What a browse reports, in the order it learns it.
public enum MDNSEvent: Sendable, Equatable {
    /// A PTR for a new instance arrived.
    case added(DNSName)
    /// The instance's PTR expired or was withdrawn with a goodbye.
    case removed(DNSName)
    /// The instance has SRV, TXT and at least one address, or one of them changed.
    case resolved(MDNSService)
    /// The network named more instances (`seen`) than ``MDNSBrowser/maxInstances`` (`limit`):
    /// the rest are not tracked. Reported each time `seen` grows past what was last reported.
    case truncated(seen: Int, limit: Int)
}

/// Where an answer came from: a responder's unicast address, to which the browser may send a
/// direct query (RFC 6762 §5.5) on port 5353.
public struct MDNSPeer: Sendable, Hashable {
    /// The address: 4 bytes (IPv4) or 16 (IPv6).
    public let address: [UInt8]
    /// The interface an IPv6 link-local address belongs to (its scope), else 0.
    public let interfaceIndex: UInt32

    /// A peer at `address` (4 or 16 bytes); `interfaceIndex` scopes an IPv6 link-local address.
    public init(address: [UInt8], interfaceIndex: UInt32 = 0) {
        self.address = address
        self.interfaceIndex = interfaceIndex
    }
}

/// The browse-and-resolve logic as a pure state machine: feed it packets and the time, it says
/// which queries to send and what changed. No sockets, no sleeping: tests drive the clock.
///
/// Scheduling (RFC 6762 §5.2): the PTR query goes out after a random 20–120 ms with the QU bit,
/// then after 1 s, 2 s, 4 s, … with known-answer suppression (§7.1). Instances missing SRV/TXT,
/// and SRV targets missing addresses, are asked for (QU first, then on the same 1 s, doubling
/// schedule) until answered. Each responder heard from is asked again directly, by unicast
/// (§5.5, ``directQueries(at:)``), for answers of its that were lost. ``completesAt`` says when a
/// one-shot browse has its complete answer (the rule and its constants: ``MDNSTiming``).
public struct MDNSBrowser: Sendable {
    /// The service type, e.g. `_openclaw-gw._tcp.local.`.
    public let serviceType: DNSName
    /// The record cache the browser reads from.
    public private(set) var cache: MDNSCache
    /// Most instances tracked at once; more are counted and reported (``MDNSEvent/truncated(seen:limit:)``).
    public let maxInstances: Int
    /// The default of ``maxInstances``: a fleet of a thousand gateways on one link fits twice.
    public static let defaultMaxInstances = 2048
    /// The most distinct instances the network has named at once, counting those beyond the limit.
    public private(set) var instancesSeen = 0

    /// The delay before the first browse query.
    public let firstQueryDelay: Duration

    private var nextBrowseQuery: Monotonic.Instant?
    private var browseInterval: Duration = MDNSTiming.firstQueryInterval
    private var sentFirstQuery = false
    /// Browse queries sent so far.
    private var browseQueries = 0
    /// When the last browse query went out, or the last answer changed what is known.
    private var lastActivity: Monotonic.Instant?
    /// When the browse began (its first ``tick(at:)``).
    private var startedAt: Monotonic.Instant?
    /// When an event (an instance added, resolved, changed or removed) last came.
    private var lastChange: Monotonic.Instant?
    /// Whether answers are evidently being lost: a direct re-ask brought an instance not seen
    /// before. The browse then also waits for the second multicast query (rule 2 in ``MDNSTiming``).
    public private(set) var lossEvident = false
    /// A responder that answered with a PTR of the service type: when it was last heard, how
    /// often it was asked again directly, when the next re-ask is due, and its PTR records.
    private struct Responder: Sendable {
        var reasks = 0
        var nextReask: Monotonic.Instant?
        var pointers: [DNSName: DNSResourceRecord] = [:]  // keyed by the lowercased instance
    }
    private var responders: [MDNSPeer: Responder] = [:]
    /// An instance being tracked: its name as first seen and what was last reported.
    private struct Tracked: Sendable {
        let name: DNSName
        var reported: MDNSService?
    }
    private var known: [DNSName: Tracked] = [:]  // keyed by the lowercased instance name
    private var nextResolveQuery: [DNSName: Monotonic.Instant] = [:]
    /// When each instance's resolve question last went out (the next waits twice as long, §5.2).
    private var resolveAskedAt: [DNSName: Monotonic.Instant] = [:]

    /// A browser for `serviceType`; `firstQueryDelay` is random in ``MDNSTiming/firstQueryDelay``
    /// unless given (tests pass a fixed one). The cache holds `cacheCapacity` records, by
    /// default eight per instance (PTR, SRV, TXT and addresses), at least 4,096.
    public init(serviceType: DNSName, cacheCapacity: Int? = nil, maxInstances: Int = MDNSBrowser.defaultMaxInstances,
                firstQueryDelay: Duration = .milliseconds(Int.random(in: MDNSTiming.firstQueryDelay))) {
        self.serviceType = serviceType
        self.firstQueryDelay = max(firstQueryDelay, .zero)
        self.maxInstances = max(1, maxInstances)
        self.cache = MDNSCache(capacity: cacheCapacity ?? max(4096, self.maxInstances.multipliedReportingOverflow(by: 8).partialValue))
    }

    /// Queries due at `now`, and events from records that expired by then.
    public mutating func tick(at now: Monotonic.Instant) -> (queries: [DNSMessage], events: [MDNSEvent]) {
        var queries: [DNSMessage] = []
        if startedAt == nil { startedAt = now }
        let due = nextBrowseQuery ?? now + firstQueryDelay
        nextBrowseQuery = due
        if now >= due {
            queries.append(browseQuery(at: now))
            if sentFirstQuery { browseInterval = min(browseInterval * 2, MDNSTiming.maxQueryInterval) }
            nextBrowseQuery = now + browseInterval
            sentFirstQuery = true
            browseQueries += 1
            lastActivity = now
        }
        _ = cache.expire(at: now)
        let events = reconcile()
        if !events.isEmpty { lastActivity = now; lastChange = now }
        for (key, due) in nextResolveQuery where now >= due {
            if let name = known[key]?.name, let query = resolveQuery(for: name, first: false) { queries.append(query) }
            let interval = max(MDNSTiming.firstQueryInterval, due - (resolveAskedAt[key] ?? due))
            resolveAskedAt[key] = now
            nextResolveQuery[key] = now + min(interval * 2, MDNSTiming.maxQueryInterval)
        }
        return (queries, events)
    }

    /// Takes in a received message. Queries (ours or others') are ignored.
    public mutating func receive(_ message: DNSMessage, at now: Monotonic.Instant) -> (queries: [DNSMessage], events: [MDNSEvent]) {
        receive([message], at: now)
    }

    /// Takes in messages received together (a burst read off the socket at once): the cache
    /// takes them all, then what changed is worked out once.
    public mutating func receive(_ messages: [DNSMessage], at now: Monotonic.Instant) -> (queries: [DNSMessage], events: [MDNSEvent]) {
        receive(messages.map { ($0, nil) }, at: now)
    }

    /// Takes in messages received together, each with the responder it came from (`nil` when
    /// unknown, or when it did not come from port 5353: only those are asked again directly).
    public mutating func receive(_ messages: [(message: DNSMessage, from: MDNSPeer?)],
                                 at now: Monotonic.Instant) -> (queries: [DNSMessage], events: [MDNSEvent]) {
        let responses = messages.filter(\.message.header.isResponse)
        guard !responses.isEmpty else { return ([], []) }
        var sources: [DNSName: [MDNSPeer]] = [:]  // lowercased instance -> responders that named it
        for (message, peer) in responses {
            for record in message.answers + message.additionals where record.type != .opt {
                cache.insert(record, at: now)
                guard let peer, record.name.equalsIgnoringCase(serviceType), case .ptr(let instance) = record.data else { continue }
                let key = instance.lowercased()
                sources[key, default: []].append(peer)
                // A responder is tracked once it named an instance; their number is bounded.
                guard responders[peer] != nil || responders.count < maxInstances else { continue }
                responders[peer, default: Responder()].pointers[key] = record
            }
            // Heard from: ask it again after ``MDNSTiming/reaskDelay`` (up to
            // ``MDNSTiming/maxReasks``; a re-ask that got no reply is sent again after
            // ``MDNSTiming/reaskSilence``).
            if let peer, var responder = responders[peer], responder.reasks < MDNSTiming.maxReasks {
                responder.nextReask = now + MDNSTiming.reaskDelay
                responders[peer] = responder
            }
        }
        var queries: [DNSMessage] = []
        let events = reconcile()
        if !events.isEmpty { lastActivity = now; lastChange = now }
        for case .added(let instance) in events
        where sources[instance.lowercased()]?.contains(where: { (responders[$0]?.reasks ?? 0) > 0 }) == true {
            lossEvident = true
        }
        // Newly seen instances or targets that are still incomplete get a direct QU query now.
        for (key, tracked) in known where tracked.reported == nil && nextResolveQuery[key] == nil {
            if let query = resolveQuery(for: tracked.name, first: true) { queries.append(query) }
            resolveAskedAt[key] = now
            nextResolveQuery[key] = now + MDNSTiming.firstQueryInterval
        }
        return (queries, events)
    }

    /// Direct unicast queries due at `now` (RFC 6762 §5.5), each for one responder heard from:
    /// the PTR question with the QU bit (§5.4: answered by unicast, so the 1 s multicast rate
    /// limit of §6 does not hold it back), the PTRs it already gave as known answers (§7.1: it
    /// answers only with what was lost), and the SRV/TXT/address questions of its instances that
    /// are still unresolved. Send each to the peer's port 5353.
    public mutating func directQueries(at now: Monotonic.Instant) -> [(peer: MDNSPeer, query: DNSMessage)] {
        var out: [(peer: MDNSPeer, query: DNSMessage)] = []
        for (peer, responder) in responders {
            guard let due = responder.nextReask, now >= due else { continue }
            var query = DNSMessage(questions: [DNSQuestion(name: serviceType, type: .ptr, unicastResponse: true)])
            for (key, record) in responder.pointers.sorted(by: { $0.key.description < $1.key.description }) {
                query.answers.append(record)
                if let name = known[key]?.name, known[key]?.reported == nil, let missing = resolveQuery(for: name, first: true) {
                    query.questions += missing.questions
                }
            }
            out.append((peer, query))
            responders[peer]?.reasks += 1
            // Silence is no answer: the reply may have been lost on the way (a responder that
            // honours the known answers and has nothing more is silent too, at the cost of one
            // small query). A reply moves this up to ``MDNSTiming/reaskDelay`` after it.
            responders[peer]?.nextReask = responder.reasks + 1 < MDNSTiming.maxReasks ? now + MDNSTiming.reaskSilence : nil
        }
        return out
    }

    /// When ``tick(at:)`` next has work.
    public var nextDeadline: Monotonic.Instant? {
        ([nextBrowseQuery, cache.nextExpiry].compactMap { $0 } + nextResolveQuery.values
            + responders.values.compactMap(\.nextReask)).min()
    }

    /// When a one-shot browse has its complete answer if nothing new arrives before then; nil
    /// while it cannot be complete yet (an instance unresolved; or, when nothing was found or
    /// answers were evidently lost, the second browse query not sent yet). The rule: ``MDNSTiming``.
    public var completesAt: Monotonic.Instant? {
        guard let startedAt, known.values.allSatisfy({ $0.reported != nil }) else { return nil }
        if !known.isEmpty && !lossEvident {
            let quiet = lastChange.map { $0 + MDNSTiming.quietPeriod } ?? startedAt
            return max(startedAt + MDNSTiming.allForNow, quiet)
        }
        guard browseQueries >= MDNSTiming.completionQueries, let lastActivity else { return nil }
        return lastActivity + MDNSTiming.quietPeriod
    }

    /// Whether a one-shot browse has its complete answer at `now` (``completesAt`` has passed).
    public func isComplete(at now: Monotonic.Instant) -> Bool {
        completesAt.map { now >= $0 } ?? false
    }

    // MARK: Internals

    /// Compares what the cache says with what was last reported and emits the differences.
    private mutating func reconcile() -> [MDNSEvent] {
        var events: [MDNSEvent] = []
        let pointers = cache.records(named: serviceType, type: .ptr).compactMap { entry -> DNSName? in
            if case .ptr(let target) = entry.record.data { return target }
            return nil
        }
        var present = Set<DNSName>()
        var beyond = Set<DNSName>()
        // Instances tracked already keep their place; new ones take what room is left.
        let (tracked, fresh) = pointers.reduce(into: ([DNSName](), [DNSName]())) { lists, instance in
            if known[instance.lowercased()] != nil { lists.0.append(instance) } else { lists.1.append(instance) }
        }
        for instance in tracked + fresh {
            let key = instance.lowercased()
            guard present.contains(key) || present.count < maxInstances else {
                beyond.insert(key)
                continue
            }
            present.insert(key)
            if known[key] == nil {
                known[key] = Tracked(name: instance, reported: nil)
                events.append(.added(instance))
            }
            if let resolution = resolve(instance), known[key]?.reported != resolution {
                known[key]?.reported = resolution
                nextResolveQuery[key] = nil
                resolveAskedAt[key] = nil
                events.append(.resolved(resolution))
            }
        }
        for (key, tracked) in known where !present.contains(key) {
            known[key] = nil
            nextResolveQuery[key] = nil
            resolveAskedAt[key] = nil
            events.append(.removed(tracked.name))
        }
        let seen = present.count + beyond.count
        if !beyond.isEmpty, seen > instancesSeen { events.append(.truncated(seen: seen, limit: maxInstances)) }
        instancesSeen = max(instancesSeen, seen)
        return events
    }

    private func resolve(_ instance: DNSName) -> MDNSService? {
        guard let srvEntry = cache.records(named: instance, type: .srv).max(by: { $0.received < $1.received }),
              case .srv(let srv) = srvEntry.record.data else { return nil }
        guard let txtEntry = cache.records(named: instance, type: .txt).max(by: { $0.received < $1.received }),
              case .txt(let txt) = txtEntry.record.data else { return nil }
        var addresses: [String] = []
        for entry in cache.records(named: srv.target, type: .a).sorted(by: { $0.received < $1.received }) {
            if case .a(let address) = entry.record.data { addresses.append(address.description) }
        }
        for entry in cache.records(named: srv.target, type: .aaaa).sorted(by: { $0.received < $1.received }) {
            if case .aaaa(let address) = entry.record.data { addresses.append(address.description) }
        }
        guard !addresses.isEmpty else { return nil }
        return MDNSService(instance: instance, hostTarget: srv.target, port: srv.port, txt: txt, addresses: addresses)
    }

    private func browseQuery(at now: Monotonic.Instant) -> DNSMessage {
        var message = DNSMessage(questions: [DNSQuestion(name: serviceType, type: .ptr, unicastResponse: !sentFirstQuery)])
        // Known-answer suppression: list PTRs with more than half their TTL left.
        for entry in cache.records(named: serviceType, type: .ptr) {
            let total = Double(entry.record.ttl)
            let left = Double((entry.expires - now).components.seconds)
            if total > 0 && left > total * MDNSTiming.knownAnswerFraction {
                var record = entry.record
                record.ttl = UInt32(max(0, left))
                message.answers.append(record)
            }
        }
        return message
    }

    /// Asks for what `instance` still lacks: SRV and TXT, or the SRV target's addresses.
    private func resolveQuery(for instance: DNSName, first: Bool) -> DNSMessage? {
        var questions: [DNSQuestion] = []
        let srv = cache.records(named: instance, type: .srv).first
        if srv == nil { questions.append(DNSQuestion(name: instance, type: .srv, unicastResponse: first)) }
        if cache.records(named: instance, type: .txt).isEmpty {
            questions.append(DNSQuestion(name: instance, type: .txt, unicastResponse: first))
        }
        if let srv, case .srv(let data) = srv.record.data,
           cache.records(named: data.target, type: .a).isEmpty && cache.records(named: data.target, type: .aaaa).isEmpty {
            questions.append(DNSQuestion(name: data.target, type: .a, unicastResponse: first))
            questions.append(DNSQuestion(name: data.target, type: .aaaa, unicastResponse: first))
        }
        return questions.isEmpty ? nil : DNSMessage(questions: questions)
    }
}
