internal import CAvahiClientShims
#if canImport(Glibc)
import Glibc
#endif
import ClawpairCore

/// A connection to avahi-daemon for publishing services, with Avahi's client library on a main
/// loop of its own (AvahiSimplePoll) that ``run(until:wake:)`` turns.
///
/// Confined to one thread (not `Sendable`). Each ``publish(_:)`` makes an
/// ``AvahiPublication`` that keeps this publisher alive; the connection closes when the
/// publisher and its last publication are gone.
public final class AvahiPublisher {
    /// The time ``run(until:wake:)``'s deadline and the main loop's waits are read from.
    public let clock: any MonotonicClock
    private var loop: OpaquePointer?
    fileprivate var client: OpaquePointer?
    /// What ends every later run: the daemon left, or the client failed.
    private var failure: AvahiError?
    /// The publications made here, told when the daemon's own host name is re-registered.
    private var publications: [WeakPublication] = []
    /// During a run: a descriptor whose readability ends the run (a stop request), and whether it did.
    fileprivate var wake: Int32 = -1
    fileprivate var woken = false
    /// Set by every state callback: a run returns once something changed.
    fileprivate var changed = false

    /// Connects to avahi-daemon over the system bus (blocking calls). Throws
    /// ``AvahiError/daemonNotRunning`` when there is no system bus or no avahi-daemon on it,
    /// ``AvahiError/libraryUnavailable(_:)`` without libavahi-client. Time is read from `clock`.
    public init(clock: any MonotonicClock = SystemMonotonicClock()) throws(AvahiError) {
        self.clock = clock
        let opened = try AvahiClientLoop.open(poll: publisherPoll, callback: publisherClientCallback,
                                              context: Unmanaged.passUnretained(self).toOpaque())
        loop = opened.loop
        client = opened.client
    }

    deinit {
        // Frees every entry group left (their records are withdrawn), then the loop.
        if let client { CAvahiClientShims_avahi_client_free(client) }
        if let loop { CAvahiClientShims_avahi_simple_poll_free(loop) }
    }

    /// The daemon's own host name, e.g. `box.local` (the SRV target of a service published
    /// without a host of its own).
    public var hostName: String? {
        guard let client, let name = CAvahiClientShims_avahi_client_get_host_name_fqdn(client) else { return nil }
        return publisherString(name)
    }

    /// Publishes `service` in an entry group of its own and starts probing. A name already
    /// registered on this daemon comes back as a publication in state
    /// ``AvahiPublicationState/collision``; the daemon refusing the records is thrown.
    public func publish(_ service: AvahiService) throws(AvahiError) -> AvahiPublication {
        if let failure { throw failure }
        let publication = AvahiPublication(service: service, publisher: self)
        publications.removeAll { $0.value == nil }
        publications.append(WeakPublication(value: publication))
        try publication.populate()
        return publication
    }

    /// Processes the daemon's messages until `deadline`, until a publication's state changes, or
    /// until `wake` (a descriptor, e.g. a stop request's pipe) is readable. Throws when the daemon
    /// leaves or the client fails.
    public func run(until deadline: Monotonic.Instant, wake: Int32? = nil) throws(AvahiError) {
        self.wake = wake ?? -1
        woken = false
        changed = false
        defer { self.wake = -1 }
        while true {
            if let failure { throw failure }
            guard !woken, !changed, let loop else { return }
            let now = clock.now
            guard now < deadline else { return }
            if CAvahiClientShims_avahi_simple_poll_iterate(loop, Monotonic.pollTimeout(until: deadline, from: now)) < 0 {
                throw .poll(errno)
            }
        }
    }

    fileprivate func clientChanged(_ client: OpaquePointer?, state: AvahiClientState) {
        changed = true
        switch state {
        case AVAHI_CLIENT_FAILURE:
            // AVAHI_ERR_DISCONNECTED when avahi-daemon or the bus went away.
            if failure == nil {
                failure = AvahiBrowser.error("the avahi-daemon connection", client.map { CAvahiClientShims_avahi_client_errno($0) } ?? 0)
            }
            for publication in publications.compactMap(\.value) { publication.daemonLost(failure ?? .daemonNotRunning) }
        case AVAHI_CLIENT_S_RUNNING:
            // avahi_client_new reports RUNNING from within itself, before `self.client` is set.
            guard self.client != nil else { return }
            for publication in publications.compactMap(\.value) { publication.daemonRunning() }
        default:
            // REGISTERING or COLLISION: the daemon re-probes its own host name; records are
            // added again once it is running (Avahi's client-publish-service example).
            for publication in publications.compactMap(\.value) { publication.daemonRenaming() }
        }
    }

    /// Avahi's rule for the next service name after a collision (avahi_alternative_service_name):
    /// `Name` → `Name #2`, `Name #2` → `Name #3`. Nil when the library is not loaded.
    public static func alternativeServiceName(after name: String) -> String? {
        guard CAvahiClientShims_load() == 0, let next = CAvahiClientShims_avahi_alternative_service_name(name) else { return nil }
        defer { CAvahiClientShims_avahi_free(next) }
        return publisherString(next)
    }
}

/// A weak reference to a publication (its publisher must not keep it alive).
private struct WeakPublication {
    weak var value: AvahiPublication?
}

/// One service published through an ``AvahiPublisher``: its entry group (and, for a host name
/// of its own, a second group with the host's address records). ``withdraw()`` or `deinit`
/// removes the records (goodbye packets). Confined to the publisher's thread.
public final class AvahiPublication {
    /// What was published.
    public let service: AvahiService
    /// Where the publication stands.
    public private(set) var state: AvahiPublicationState = .registering
    private let publisher: AvahiPublisher
    private var group: OpaquePointer?
    private var hostGroup: OpaquePointer?
    private var serviceEstablished = false
    /// Whether the host group is established (true when there is none).
    private var hostEstablished = true
    private var withdrawn = false

    init(service: AvahiService, publisher: AvahiPublisher) {
        self.service = service
        self.publisher = publisher
    }

    deinit { withdraw() }

    /// Withdraws the service's records. Safe to call more than once.
    public func withdraw() {
        withdrawn = true
        freeGroups()
    }

    private func freeGroups() {
        if let group { _ = CAvahiClientShims_avahi_entry_group_free(group) }
        if let hostGroup { _ = CAvahiClientShims_avahi_entry_group_free(hostGroup) }
        group = nil
        hostGroup = nil
    }

    /// Whether the SRV target is a host name of this publication's own (not the daemon's).
    private var ownHost: String? {
        guard let host = service.host, !host.isEmpty else { return nil }
        let daemon = publisher.hostName.map { $0.lowercased() }
        return daemon == host.lowercased() || daemon == host.lowercased() + ".local" ? nil : host
    }

    /// Adds the records to new entry groups and commits them.
    func populate() throws(AvahiError) {
        guard !withdrawn, let client = publisher.client else { return }
        // While the daemon (re)registers its own host name, records wait for it to be running
        // (daemonRunning() adds them then), as Avahi's client-publish-service example does.
        guard CAvahiClientShims_avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING else {
            state = .registering
            return
        }
        serviceEstablished = false
        let context = Unmanaged.passUnretained(self).toOpaque()
        let host = ownHost
        if let host {
            guard let hostGroup = CAvahiClientShims_avahi_entry_group_new(client, publicationGroupCallback, context) else {
                throw AvahiBrowser.error("avahi_entry_group_new", CAvahiClientShims_avahi_client_errno(client))
            }
            self.hostGroup = hostGroup
            hostEstablished = false
            for record in service.hostAddresses {
                var address = AvahiAddress()
                guard CAvahiClientShims_avahi_address_parse(record.address, AvahiProtocol(AVAHI_PROTO_UNSPEC), &address) != nil else {
                    continue
                }
                let code = CAvahiClientShims_avahi_entry_group_add_address(
                    hostGroup, AvahiIfIndex(record.interface), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                    AvahiPublishFlags(AVAHI_PUBLISH_NO_REVERSE.rawValue), host, &address)
                if code == Int32(AVAHI_ERR_COLLISION) {
                    freeGroups()
                    state = .hostCollision
                    return
                }
                guard code >= 0 else { throw AvahiBrowser.error("avahi_entry_group_add_address", code) }
            }
        }
        guard let group = CAvahiClientShims_avahi_entry_group_new(client, publicationGroupCallback, context) else {
            throw AvahiBrowser.error("avahi_entry_group_new", CAvahiClientShims_avahi_client_errno(client))
        }
        self.group = group
        // avahi_string_list_add_arbitrary prepends, and Avahi sends a list from its tail (the record
        // is written in the order the strings were added, as avahi_string_list_new does): add in order.
        var txt: UnsafeMutablePointer<AvahiStringList>?
        for string in service.txt {
            let bytes = Array(string.prefix(255))
            txt = bytes.withUnsafeBufferPointer { CAvahiClientShims_avahi_string_list_add_arbitrary(txt, $0.baseAddress, $0.count) }
        }
        defer { CAvahiClientShims_avahi_string_list_free(txt) }
        let interfaces = service.interfaces.isEmpty ? [Int32(AVAHI_IF_UNSPEC)] : service.interfaces
        for interface in interfaces {
            let code = CAvahiClientShims_avahi_entry_group_add_service_strlst(
                group, AvahiIfIndex(interface), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), service.name,
                service.type, nil, host, service.port, txt)
            if code == Int32(AVAHI_ERR_COLLISION) {
                freeGroups()
                state = .collision
                return
            }
            guard code >= 0 else { throw AvahiBrowser.error("avahi_entry_group_add_service_strlst", code) }
        }
        if let hostGroup {
            let code = CAvahiClientShims_avahi_entry_group_commit(hostGroup)
            guard code >= 0 else { throw AvahiBrowser.error("avahi_entry_group_commit", code) }
        }
        let code = CAvahiClientShims_avahi_entry_group_commit(group)
        guard code >= 0 else { throw AvahiBrowser.error("avahi_entry_group_commit", code) }
        state = .registering
    }

    fileprivate func groupChanged(_ changedGroup: OpaquePointer?, state groupState: AvahiEntryGroupState) {
        guard !withdrawn else { return }
        let isHostGroup = changedGroup != nil && changedGroup == hostGroup
        publisher.changed = true
        switch groupState {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            if isHostGroup { hostEstablished = true } else { serviceEstablished = true }
            if serviceEstablished && hostEstablished { state = .established }
        case AVAHI_ENTRY_GROUP_COLLISION:
            freeGroups()
            state = isHostGroup ? .hostCollision : .collision
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = publisher.client.map { CAvahiClientShims_avahi_client_errno($0) } ?? 0
            freeGroups()
            state = .failed(AvahiBrowser.error("the entry group", code))
        default:  // UNCOMMITED (first callback, from avahi_entry_group_new), REGISTERING
            return
        }
    }

    func daemonLost(_ error: AvahiError) {
        // The client's groups are gone with it; only forget them.
        group = nil
        hostGroup = nil
        if !withdrawn { state = .failed(error) }
    }

    func daemonRenaming() {
        guard !withdrawn, group != nil || hostGroup != nil else { return }
        freeGroups()
        state = .registering
    }

    func daemonRunning() {
        guard !withdrawn, group == nil, state == .registering else { return }
        do { try populate() } catch { state = .failed(error) }
    }
}

// MARK: C callbacks (no captures: the objects come back through the context pointer)

private func publisher(_ context: UnsafeMutableRawPointer?) -> AvahiPublisher? {
    context.map { Unmanaged<AvahiPublisher>.fromOpaque($0).takeUnretainedValue() }
}

/// A C string as UTF-8 (invalid bytes repaired).
private func publisherString(_ pointer: UnsafePointer<CChar>) -> String {
    String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

private func publisherString(_ pointer: UnsafeMutablePointer<CChar>) -> String {
    publisherString(UnsafePointer(pointer))
}

private let publisherClientCallback: AvahiClientCallback = { client, state, context in
    publisher(context)?.clientChanged(client, state: state)
}

private let publicationGroupCallback: AvahiEntryGroupCallback = { group, state, context in
    guard let context else { return }
    Unmanaged<AvahiPublication>.fromOpaque(context).takeUnretainedValue().groupChanged(group, state: state)
}

/// libavahi-client's main loop waits here instead of in poll(2) itself: ClawpairCore's poll
/// helper, with the loop's timeout (ms, -1 for none) as a deadline on the publisher's clock, and
/// the run's wake descriptor watched as well (its readiness ends the run, not counted for Avahi).
private func publisherPoll(_ fds: UnsafeMutablePointer<pollfd>?, _ count: UInt32, _ timeout: Int32,
                           _ context: UnsafeMutableRawPointer?) -> Int32 {
    let entries = UnsafeMutableBufferPointer(start: fds, count: fds == nil ? 0 : Int(count))
    var descriptors = entries.map { PollDescriptor($0.fd, PollEvents(rawValue: $0.events)) }
    let owner = publisher(context)
    let wake = owner?.wake ?? -1
    if wake >= 0 { descriptors.append(PollDescriptor(wake, .readable)) }
    let clock = owner?.clock ?? SystemMonotonicClock()
    let deadline = timeout < 0 ? nil : clock.now + .milliseconds(timeout)
    do {
        try Poll.wait(&descriptors, until: deadline, clock: clock)
        var ready: Int32 = 0
        for index in entries.indices {
            entries[index].revents = descriptors[index].ready.rawValue
            if entries[index].revents != 0 { ready += 1 }
        }
        if wake >= 0, !descriptors[descriptors.count - 1].ready.isEmpty { owner?.woken = true }
        return ready
    } catch {
        errno = error.errno
        return -1
    }
}
