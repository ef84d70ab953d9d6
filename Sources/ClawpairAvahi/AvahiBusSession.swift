// Browsing and resolving through avahi-daemon's D-Bus API on our own connection (CAvahiBus for
// the socket, ClawpairDBus for the messages): the calls `avahi-browse -r` makes through
// libavahi-client, without libavahi-client, libdbus and their ~1 ms of loading, and without the
// seven round trips libavahi-client makes before its first browse. The browse request goes out
// with the authentication, in the first write.

internal import CAvahiBus
import ClawpairCore
import ClawpairDBus
#if canImport(Glibc)
import Glibc
#endif

/// avahi-daemon's D-Bus names and the values of its API this file uses.
enum AvahiBus {
    static let service = "org.freedesktop.Avahi"
    static let server = "org.freedesktop.Avahi.Server"
    static let browser = "org.freedesktop.Avahi.ServiceBrowser"
    static let resolver = "org.freedesktop.Avahi.ServiceResolver"
    /// AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, AVAHI_PROTO_INET, AVAHI_PROTO_INET6.
    static let anyInterface: Int32 = -1, anyProtocol: Int32 = -1, inet: Int32 = 0, inet6: Int32 = 1

    /// The first messages of a browse (Hello, then ServiceBrowserNew for `type` in `domain`), as
    /// ``AvahiBrowser`` sends them with the authentication: serials 1 and 2.
    static func opening(type: String, domain: String?) throws(DBusWireError) -> [UInt8] {
        let hello = DBusMessage.methodCall(serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus", member: "Hello")
        let browse = DBusMessage.methodCall(serial: 2, destination: service, path: "/", interface: server,
                                            member: "ServiceBrowserNew",
                                            body: [.int32(anyInterface), .int32(anyProtocol), .string(type),
                                                   .string(domain ?? ""), .uint32(0)])
        return try DBusWire.encode(hello) + DBusWire.encode(browse)
    }
}

/// One browse on our own bus connection, with the resolution of every instance it finds.
/// Confined to the thread that runs it; closing the socket ends every object it made in the daemon.
final class AvahiBusSession {
    private enum Call {
        case hello
        case browse
        /// A ServiceResolverNew for `instance`.
        case resolve(BrowsedInstance)
    }

    private struct Entry {
        var hostTarget: String?
        var port: UInt16 = 0
        var txt: [UInt8] = []
        var addresses: [String] = []
        /// The daemon's resolver objects for this instance.
        var resolverPaths: [String] = []
        var followedUp = false
    }

    private let fd: Int32
    private let limits: AvahiLimits
    private var input: [UInt8] = []
    private var authenticated = false
    private var nextSerial: UInt32 = 3
    private var calls: [UInt32: Call] = [1: .hello, 2: .browse]
    /// avahi-daemon's unique bus name (the sender of its reply to ServiceBrowserNew): signals
    /// from anyone else are ignored, since any bus client may send us a signal.
    private var daemon: String?
    /// Our unique bus name (Hello's answer) and the daemon's browser object.
    private(set) var uniqueName: String?
    private(set) var browserPath: String?
    /// Signals dropped because they did not come from the daemon.
    private(set) var ignoredSignals = 0
    private var entries: [BrowsedInstance: Entry] = [:]
    private var resolverOwners: [String: BrowsedInstance] = [:]
    /// Signals for objects whose creation reply has not arrived yet (bounded).
    private var early: [DBusMessage] = []
    private var events: [AvahiEvent] = []
    /// What ends the run at the next turn (the daemon left, the browse failed).
    private var failure: AvahiError?
    private var closed = false
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Takes over `fd`, on which CAvahiBus sent the authentication and ``AvahiBus/opening(type:domain:)``.
    /// Waits (up to `authenticationTimeout`) for the server's answer to the authentication, which
    /// is already there when the connection was made before main.
    init(fd: Int32, limits: AvahiLimits, authenticationTimeout: Duration = .seconds(2)) throws(AvahiError) {
        self.fd = fd
        self.limits = limits
        input.reserveCapacity(4096)
        entries.reserveCapacity(4)
        calls.reserveCapacity(8)
        events.reserveCapacity(4)
        let deadline = Monotonic.now + authenticationTimeout
        do throws(AvahiError) {
            while !authenticated {
                guard try fill(until: deadline) else { throw AvahiError.daemonNotRunning }
                try readAuthentication()
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Processes messages until `deadline`, or until `onEvent` returns false.
    func run(until deadline: Monotonic.Instant, onEvent: (AvahiEvent) -> Bool) throws(AvahiError) {
        while true {
            try drainMessages()
            if let failure { throw failure }
            let batch = events
            events.removeAll(keepingCapacity: true)
            for event in batch where !onEvent(event) { return }
            guard try fill(until: deadline) else { return }
        }
    }

    // MARK: Input

    /// Waits for input until `deadline` and appends it; false when the deadline passed first.
    /// The connection closing is the daemon or the bus going away.
    private func fill(until deadline: Monotonic.Instant) throws(AvahiError) -> Bool {
        while true {
            let got = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got > 0 {
                input.append(contentsOf: scratch.prefix(got))
                if input.count > limits.maxBusInput { throw .protocolViolation("more than \(limits.maxBusInput) bytes of pending input") }
                return true
            }
            if got == 0 { throw .daemonNotRunning }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw .daemonNotRunning }
            let now = Monotonic.now
            guard now < deadline else { return false }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Monotonic.pollTimeout(until: deadline, from: now)) < 0 && errno != EINTR { throw .poll(errno) }
        }
    }

    /// Consumes the server's authentication line: `OK <guid>` lets the messages follow.
    private func readAuthentication() throws(AvahiError) {
        guard let end = input.firstIndex(of: UInt8(ascii: "\n")) else {
            if input.count > 512 { throw .protocolViolation("no authentication reply line") }
            return
        }
        let line = input[..<end]
        input.removeSubrange(...end)
        guard line.starts(with: Array("OK ".utf8)) else {
            throw .protocolViolation("the system bus refused the authentication: "
                                     + TerminalText.sanitize(bytes: line.prefix(80).filter { $0 != 13 }))
        }
        authenticated = true
    }

    private func drainMessages() throws(AvahiError) {
        var offset = 0
        defer { if offset > 0 { input.removeSubrange(..<offset) } }
        while offset < input.count {
            let decoded: (message: DBusMessage, length: Int)?
            do {
                decoded = try DBusWire.decode(input, at: offset, limits: DBusLimits(maxMessageSize: limits.maxBusInput))
            } catch {
                throw .protocolViolation("a malformed message on the system bus: \(error)")
            }
            guard let (message, length) = decoded else { return }
            offset += length
            try handle(message)
        }
    }

    // MARK: Messages

    private func handle(_ message: DBusMessage) throws(AvahiError) {
        switch message.type {
        case .methodReturn, .error:
            guard let serial = message.replySerial, let call = calls.removeValue(forKey: serial) else { return }
            try answered(call, message)
        case .signal:
            if message.sender == "org.freedesktop.DBus" {
                daemonLeft(message)
            } else if daemon == nil {
                // Before the browse's reply names the daemon (Avahi replies first; kept in case).
                if early.count < 64 { early.append(message) }
            } else if message.sender == daemon {
                signal(message)
            } else {
                ignoredSignals += 1
            }
        case .methodCall:
            // Nobody should call us; say so rather than leave the caller waiting.
            guard message.flags & 0x1 == 0, let sender = message.sender else { return }
            send(DBusMessage(type: .error, serial: 0, errorName: "org.freedesktop.DBus.Error.UnknownMethod",
                             replySerial: message.serial, destination: sender, body: [.string("clawpair serves no methods")]))
        }
    }

    private func answered(_ call: Call, _ message: DBusMessage) throws(AvahiError) {
        let path: String? = if case .objectPath(let value)? = message.body.first { value } else { nil }
        switch call {
        case .hello:
            if case .string(let name)? = message.body.first { uniqueName = name }
        case .browse:
            guard message.type == .methodReturn, let path else {
                let name = message.errorName ?? "a reply without an object path"
                if name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
                    throw .daemonNotRunning
                }
                var text = ""
                if case .string(let detail)? = message.body.first { text = ": " + detail }
                throw .refused("ServiceBrowserNew", TerminalText.sanitize(name + text))
            }
            daemon = message.sender
            browserPath = path
            // The daemon going away ends the browse (as libavahi-client reports it).
            send(.methodCall(serial: 0, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                             interface: "org.freedesktop.DBus", member: "AddMatch",
                             body: [.string("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                                            + "member='NameOwnerChanged',arg0='\(AvahiBus.service)'")]))
            replayEarly()
        case .resolve(let instance):
            guard message.type == .methodReturn, let path else { return }
            guard entries[instance] != nil else {
                free(resolver: path)  // the instance left before its resolver was made
                return
            }
            entries[instance]?.resolverPaths.append(path)
            resolverOwners[path] = instance
            replayEarly()
        }
    }

    private func signal(_ message: DBusMessage) {
        guard let path = message.path else { return }
        if path == browserPath, message.interface == AvahiBus.browser {
            browsed(message)
        } else if let instance = resolverOwners[path], message.interface == AvahiBus.resolver {
            if message.member == "Found" { found(message, instance: instance, path: path) }
        } else if early.count < 64 {
            early.append(message)
        }
    }

    /// Signals that came before the reply naming their object, handled now that it is known.
    private func replayEarly() {
        guard !early.isEmpty else { return }
        let pending = early
        early = []
        for message in pending {
            if message.sender == daemon { signal(message) } else { ignoredSignals += 1 }
        }
    }

    private func browsed(_ message: DBusMessage) {
        switch message.member {
        case "ItemNew", "ItemRemove":
            guard message.body.count >= 5, case .int32(let interface) = message.body[0], case .int32(let proto) = message.body[1],
                  case .string(let name) = message.body[2], case .string(let type) = message.body[3],
                  case .string(let domain) = message.body[4] else { return }
            let instance = BrowsedInstance(name: name, type: dotted(type), domain: dotted(domain),
                                           interfaceIndex: UInt32(clamping: max(interface, 0)))
            if message.member == "ItemNew" {
                guard entries[instance] == nil, entries.count < limits.maxInstances else { return }
                entries[instance] = Entry()
                events.append(.added(instance))
                // The event's interface and protocol, and an address of either family, as
                // avahi-browse -r asks; the other family once the first answer is in.
                resolve(instance, interface: interface, protocol: proto, name: name, type: type, domain: domain,
                        addressFamily: AvahiBus.anyProtocol)
            } else if let entry = entries.removeValue(forKey: instance) {
                for path in entry.resolverPaths { free(resolver: path) }
                events.append(.removed(instance))
            }
        case "Failure":
            var detail = "the browse failed"
            if case .string(let text)? = message.body.first { detail = text }
            failure = .refused("ServiceBrowser", TerminalText.sanitize(detail))
        default:
            return
        }
    }

    private func found(_ message: DBusMessage, instance: BrowsedInstance, path: String) {
        let body = message.body
        guard body.count >= 10, case .int32(let interface) = body[0], case .string(let name) = body[2],
              case .string(let type) = body[3], case .string(let domain) = body[4], case .string(let host) = body[5],
              case .int32(let family) = body[6], case .string(let address) = body[7], case .uint16(let port) = body[8],
              case .array(_, let strings) = body[9], var entry = entries[instance] else { return }
        var txt: [UInt8] = []
        for case .bytes(let string) in strings {
            let kept = string.prefix(255)
            txt.append(UInt8(kept.count))
            txt.append(contentsOf: kept)
        }
        let target = dotted(host)
        var changed = entry.hostTarget != target || entry.port != port || entry.txt != txt
        if entry.hostTarget != target { entry.addresses = [] }
        entry.hostTarget = target
        entry.port = port
        entry.txt = txt
        if !address.isEmpty, !entry.addresses.contains(address), entry.addresses.count < limits.maxAddressesPerInstance {
            entry.addresses.append(address)
            changed = true
        }
        let followUp = !entry.followedUp
        entry.followedUp = true
        entries[instance] = entry
        if changed && !entry.addresses.isEmpty {
            events.append(.resolved(ResolvedInstance(instance: instance, hostTarget: target, port: port, txtRecord: txt,
                                                     addresses: entry.addresses)))
        }
        if followUp {
            resolve(instance, interface: interface, protocol: AvahiBus.anyProtocol, name: name, type: type, domain: domain,
                    addressFamily: family == AvahiBus.inet6 ? AvahiBus.inet : AvahiBus.inet6)
        }
    }

    private func daemonLeft(_ message: DBusMessage) {
        // NameOwnerChanged(name, old owner, new owner) for org.freedesktop.Avahi: gone when the new owner is empty.
        guard message.member == "NameOwnerChanged", message.body.count == 3, case .string(AvahiBus.service) = message.body[0],
              case .string(let newOwner) = message.body[2], newOwner.isEmpty, browserPath != nil else { return }
        failure = .daemonNotRunning
    }

    // MARK: Output

    private func resolve(_ instance: BrowsedInstance, interface: Int32, protocol proto: Int32, name: String, type: String,
                         domain: String, addressFamily: Int32) {
        send(.methodCall(serial: serial(for: .resolve(instance)), destination: AvahiBus.service, path: "/",
                         interface: AvahiBus.server, member: "ServiceResolverNew",
                         body: [.int32(interface), .int32(proto), .string(name), .string(type), .string(domain),
                                .int32(addressFamily), .uint32(0)]))
    }

    private func free(resolver path: String) {
        resolverOwners[path] = nil
        var message = DBusMessage.methodCall(serial: 0, destination: AvahiBus.service, path: path,
                                             interface: AvahiBus.resolver, member: "Free")
        message.flags = 0x1  // no reply expected
        send(message)
    }

    /// The next serial, remembering what its reply answers (nil: no reply is wanted).
    private func serial(for call: Call?) -> UInt32 {
        let serial = nextSerial
        nextSerial = nextSerial == UInt32.max ? 3 : nextSerial + 1
        if let call { calls[serial] = call }
        return serial
    }

    /// Sends `message` (serial 0: the next one). A connection that cannot take it is reported by
    /// the next read.
    private func send(_ message: DBusMessage) {
        var message = message
        if message.serial == 0 { message.serial = serial(for: nil) }
        guard let bytes = try? DBusWire.encode(message) else { return }
        _ = bytes.withUnsafeBufferPointer { CAvahiBus_send(fd, $0.baseAddress, $0.count) }
    }

    private func dotted(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }
}
