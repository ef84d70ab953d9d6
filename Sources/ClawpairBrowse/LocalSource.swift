import ClawpairAvahi
import ClawpairCore
import ClawpairDNS
import ClawpairDiscovery
import ClawpairMDNS

/// mDNS in `local.`: avahi-daemon or the built-in querier, as ``GatewayBrowser/LocalBackend``
/// says, with `auto` falling back to the querier when there is no daemon (or no Avahi library).
struct LocalSource: GatewaySource {
    let choice: GatewayBrowser.LocalBackend
    let backends: BrowseBackends
    /// End when the backend has the complete answer (``AvahiCompletion``, ``MDNSBrowser/completesAt``)
    /// instead of at the deadline: a scan, not a watch.
    var untilComplete = false
    /// Most gateways tracked (nil: the backend's default).
    var limit: Int? = nil

    func run(_ context: SourceContext, teardown: Teardown) throws {
        switch choice {
        case .avahi:
            try runAvahi(context, teardown: teardown, noting: false)
        case .native:
            try runNative(context)
        case .auto:
            do {
                try runAvahi(context, teardown: teardown, noting: true)
            } catch AvahiError.daemonNotRunning {
                context.note("backend: native (no avahi-daemon on the system bus)")
                try runNative(context)
            } catch AvahiError.libraryUnavailable {
                context.note("backend: native (Avahi's client library is not installed)")
                try runNative(context)
            }
        }
    }

    /// Avahi reports an instance once per interface and protocol: each resolution is reported
    /// with its interface, and the instance is gone when the last interface withdraws it.
    private func runAvahi(_ context: SourceContext, teardown: Teardown, noting: Bool) throws {
        let browser = try backends.avahi(limit)
        teardown.add(browser.stop)
        if noting { context.note("backend: avahi (avahi-daemon answered)") }
        context.report(.answered(.avahi))
        var seenOn: [String: Set<BrowsedInstance>] = [:]
        var settled = Set<String>()  // resolved, or its resolve failed
        var cut = Set<String>()
        var completion = AvahiCompletion()
        var graceUntil: Monotonic.Instant?
        var ended = false
        var complete = false
        func state() -> AvahiCompletion.State {
            completion.state(pendingResolves: browser.pendingResolves, secondStarted: browser.latestPendingSecondResolveStart,
                             now: context.clock.now)
        }
        while true {
            // A grace (second-family resolves, or the second query when nothing was seen) ends this
            // run early; the next one re-checks.
            var restart = false
            try browser.run(until: min(context.deadline, graceUntil ?? context.deadline), stop: context.ending) { event in
                if case .limited(.instance(let instance)) = event, cut.insert(Self.key(instance)).inserted {
                    context.report(.truncated(domain: "local.", seen: seenOn.count + cut.count, limit: seenOn.count))
                }
                switch event {
                case .resolved(let resolved): settled.insert(Self.key(resolved.instance))
                case .resolveFailed(let instance, _): settled.insert(Self.key(instance))
                default: break
                }
                guard report(event, context: context, seenOn: &seenOn) else {
                    ended = true
                    return false
                }
                completion.observe(event, at: context.clock.now)
                guard untilComplete else { return true }
                switch state() {
                case .incomplete:
                    return true
                case .waiting(let until):
                    guard graceUntil != until else { return true }
                    graceUntil = until
                    restart = true
                    return false
                case .complete:
                    complete = true
                    ended = true
                    return false
                }
            }
            if ended { break }
            if restart { continue }
            // The run reached a deadline: the whole run's, or the grace's (then check again).
            guard let until = graceUntil, context.clock.now >= until, context.clock.now < context.deadline else {
                // The whole run's: a scan cut short says so (never a silent limit).
                let unresolved = seenOn.keys.filter { !settled.contains($0) }.count
                if untilComplete, unresolved > 0, !context.stopped {
                    context.report(.unfinished(domain: "local.", seen: seenOn.count, unresolved: unresolved))
                }
                return
            }
            switch state() {
            case .complete: complete = true
            case .waiting(let later): graceUntil = later
            case .incomplete: graceUntil = nil  // something new came: wait for it as before
            }
            if complete { break }
        }
        if complete { context.note("avahi: complete (all for now, every resolve answered)") }
    }

    /// Hands one Avahi event on; false when the run should stop.
    private func report(_ event: AvahiEvent, context: SourceContext, seenOn: inout [String: Set<BrowsedInstance>]) -> Bool {
        switch event {
        case .added(let instance):
            seenOn[Self.key(instance), default: []].insert(instance)
            return !context.stopped
        case .removed(let instance):
            let key = Self.key(instance)
            seenOn[key]?.remove(instance)
            guard seenOn[key]?.isEmpty ?? true else { return !context.stopped }
            seenOn[key] = nil
            return context.report(.gone(key: key, backend: .avahi))
        case .resolved(let resolved):
            let domain = Self.domain(resolved.instance.domain)
            let beacon = GatewayBeacon(instanceName: resolved.instance.name, domain: domain,
                                       host: resolved.hostTarget, port: Int(resolved.port),
                                       txt: TXTRecord(strings: Self.splitTXT(resolved.txtRecord)))
            let origin = GatewaySighting.Origin(backend: .avahi, interfaceIndex: resolved.instance.interfaceIndex,
                                                domain: domain)
            return context.report(.seen(SourceReport(key: Self.key(resolved.instance), beacon: beacon,
                                                     addresses: resolved.addresses, origin: origin)))
        case .resolveFailed(let instance, let error):
            context.note("avahi: resolving \(TerminalText.sanitize(instance.name, maxScalars: 80)) failed: \(error.message)")
            return !context.stopped
        case .limited(.instance(let instance)):
            context.note("warning: avahi: \(TerminalText.sanitize(instance.name, maxScalars: 80)) not tracked: "
                         + "the browse already tracks its maximum number of gateways")
            return !context.stopped
        case .limited(.address(let instance, let address)):
            context.note("warning: avahi: address \(TerminalText.sanitize(address, maxScalars: 64)) of "
                         + "\(TerminalText.sanitize(instance.name, maxScalars: 80)) not kept: the gateway has its maximum number of addresses")
            return !context.stopped
        case .allForNow, .cacheExhausted:
            return !context.stopped
        }
    }

    private func runNative(_ context: SourceContext) throws {
        let querier = try backends.native(limit)
        context.report(.answered(.native))
        defer { if let summary = querier.runSummary { context.note(summary.description) } }
        var added = Set<String>()
        var resolved = Set<String>()
        var ended = false
        try querier.run(until: context.deadline, untilComplete: untilComplete, stop: context.ending) { event in
            let more = nativeEvent(event, context: context, added: &added, resolved: &resolved)
            if !more { ended = true }
            return more
        }
        // A scan the deadline ended before the querier's answer was complete says so.
        let unresolved = added.subtracting(resolved).count
        if untilComplete, !ended, querier.runSummary?.complete != true, unresolved > 0, !context.stopped {
            context.report(.unfinished(domain: "local.", seen: added.count, unresolved: unresolved))
        }
    }

    /// Hands one querier event on, keeping the names added and resolved; false when the run should stop.
    private func nativeEvent(_ event: MDNSEvent, context: SourceContext, added: inout Set<String>,
                             resolved: inout Set<String>) -> Bool {
        switch event {
        case .added(let name):
            added.insert(name.firstLabel.map { String(decoding: $0, as: UTF8.self) } ?? "")
            return !context.stopped
        case .truncated(let seen, let limit):
            return context.report(.truncated(domain: "local.", seen: seen, limit: limit))
        case .removed(let name):
            let label = name.firstLabel.map { String(decoding: $0, as: UTF8.self) } ?? ""
            added.remove(label)
            resolved.remove(label)
            return context.report(.gone(key: "local.|" + label, backend: .native))
        case .resolved(let service):
            let beacon = GatewayBeacon(instance: service.instance, domain: "local.",
                                       srv: SRVData(port: service.port, target: service.hostTarget), txt: service.txt)
            resolved.insert(beacon.instanceName)
            added.insert(beacon.instanceName)
            return context.report(.seen(SourceReport(key: "local.|" + beacon.instanceName, beacon: beacon,
                                                     addresses: service.addresses,
                                                     origin: .init(backend: .native, domain: "local."))))
        }
    }

    static func key(_ instance: BrowsedInstance) -> String { domain(instance.domain) + "|" + instance.name }

    static func domain(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }

    /// The character-strings of raw TXT RDATA (a length byte, then that many bytes; a string
    /// running past the end is cut there).
    static func splitTXT(_ bytes: [UInt8]) -> [[UInt8]] {
        var strings: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + 1 + Int(bytes[index]))
            strings.append(Array(bytes[(index + 1)..<end]))
            index = end
        }
        return strings
    }
}
