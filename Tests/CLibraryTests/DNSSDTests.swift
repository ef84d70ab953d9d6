import CDNSSD
import ClawpairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Avahi's Bonjour-compatibility library (dns_sd.h) against a real avahi-daemon.
///
/// Lab: host A runs a private D-Bus and avahi-daemon; host B runs python-zeroconf advertising an
/// `_openclaw-gw._tcp` gateway; a veth links them. The test process stays in the machine's network
/// namespace and talks to avahi only over the private bus's unix path socket, so no packet leaves
/// the lab. `DBUS_SYSTEM_BUS_ADDRESS` is process-global, hence `.serialized` (and the harness's
/// process-wide environment lock).
@Suite("dns_sd compat API with avahi-daemon", .serialized, .networkLab)
struct DNSSDTests {
    static let instance = "Test Gateway (clawpair)"
    static let txt = ["role": "gateway", "transport": "gateway", "gatewayPort": "18789",
                      "displayName": "Test Gateway", "lanHost": "gw-test.local"]

    @Test("DNSServiceBrowse finds a python-zeroconf gateway; DNSServiceResolve returns its port and TXT")
    func browseAndResolve() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, _) = try await lab.startAvahiLink()
            let advertiser = try await lab.startZeroconfAdvertiser(
                in: b, instance: Self.instance, port: 18789, txt: Self.txt, server: "gw-test.local.")
            #expect(advertiser.fullName == "\(Self.instance)._openclaw-gw._tcp.local.")

            try await bus.withSystemBusEnvironment {
                let found = try await DNSSDBrowse.first(type: "_openclaw-gw._tcp", named: Self.instance, timeout: .seconds(10))
                #expect(found.type.hasPrefix("_openclaw-gw._tcp"))
                #expect(found.domain.hasPrefix("local"))
                #expect(found.interfaceIndex > 0)

                let resolved = try await DNSSDResolve.run(found, timeout: .seconds(10))
                #expect(resolved.port == 18789)
                #expect(resolved.hostTarget.hasPrefix("gw-test.local"))
                #expect(resolved.txt == Self.txt)
            }
            try await advertiser.stop()
        }
    }

    /// A second lab and bus in the same process: also proves the compat library picks up the new
    /// `DBUS_SYSTEM_BUS_ADDRESS` (avahi-client reads it per connection; libdbus would cache it).
    @Test("DNSServiceRegister publishes through avahi-daemon; python-zeroconf on the other host resolves it")
    func registerSeenByZeroconf() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, avahi) = try await lab.startAvahiLink()
            let browser = try await lab.startZeroconfBrowser(in: b)

            try await bus.withSystemBusEnvironment {
                let registration = try await DNSSDRegister.run(
                    name: "Registered Gateway (clawpair)", type: "_openclaw-gw._tcp", port: 18790,
                    txt: ["role": "gateway", "gatewayPort": "18790"], timeout: .seconds(10))
                #expect(registration.name == "Registered Gateway (clawpair)")

                let seen = try await browser.waitForService(instance: "Registered Gateway (clawpair)")
                #expect(seen.port == 18790)
                #expect(seen.txt == ["role": "gateway", "gatewayPort": "18790"])
                #expect(seen.server == "\(avahi.hostName).")
                withExtendedLifetime(registration) {}
            }
            try await browser.stop()
        }
    }
}

// MARK: - A minimal driver for dns_sd operations (test-only; the product wraps this properly)

/// One browse result.
struct BrowsedService: Sendable {
    let name: String
    let type: String
    let domain: String
    let interfaceIndex: UInt32
}

/// One resolve result.
struct ResolvedService: Sendable {
    let hostTarget: String
    let port: UInt16
    let txt: [String: String]
}

struct DNSSDError: Error, CustomStringConvertible {
    let description: String
}

/// Owns a DNSServiceRef and drives it with poll() + DNSServiceProcessResult until a condition
/// holds or the deadline passes; deallocates it in every case.
final class DNSSDOperation {
    private var ref: DNSServiceRef?
    let name: String

    init(name: String, start: (inout DNSServiceRef?) -> DNSServiceErrorType) throws {
        self.name = name
        let error = start(&ref)
        guard error == DNSServiceErrorType(kDNSServiceErr_NoError), ref != nil else {
            ref = nil
            throw DNSSDError(description: "\(name) failed to start: error \(error)")
        }
    }

    deinit {
        if let ref {
            DNSServiceRefDeallocate(ref)
        }
    }

    /// Processes replies until `done()` is true. Polls in short slices so the task can yield.
    func run(timeout: Duration, until done: () throws -> Bool) async throws {
        guard let ref else { throw DNSSDError(description: "\(name): no service ref") }
        let fd = DNSServiceRefSockFD(ref)
        guard fd >= 0 else { throw DNSSDError(description: "\(name): DNSServiceRefSockFD returned \(fd)") }
        let deadline = ContinuousClock.now + timeout
        while try !done() {
            guard ContinuousClock.now < deadline else {
                throw DNSSDError(description: "\(name): no answer within \(timeout)")
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 && errno != EINTR {
                throw DNSSDError(description: "\(name): poll: \(String(cString: strerror(errno)))")
            }
            if ready > 0 {
                let error = DNSServiceProcessResult(ref)
                guard error == DNSServiceErrorType(kDNSServiceErr_NoError) else {
                    throw DNSSDError(description: "\(name): DNSServiceProcessResult: error \(error)")
                }
            }
            await Task.yield()
        }
    }
}

/// A service registration; the service stays published while this object lives.
final class DNSSDRegister {
    var name: String?
    var error: DNSServiceErrorType?
    private var operation: DNSSDOperation?

    /// Registers and waits for the confirmation callback (name probing done).
    static func run(name: String, type: String, port: UInt16, txt: [String: String], timeout: Duration) async throws -> DNSSDRegister {
        let box = DNSSDRegister()
        let record = try txtRecord(txt)
        let context = Unmanaged.passUnretained(box).toOpaque()
        box.operation = try DNSSDOperation(name: "DNSServiceRegister \(name)") { ref in
            record.withUnsafeBytes { bytes in
                DNSServiceRegister(&ref, 0, 0, name, type, nil, nil, port.bigEndian, UInt16(bytes.count), bytes.baseAddress,
                                   registerReply, context)
            }
        }
        try await box.operation?.run(timeout: timeout) {
            if let error = box.error {
                throw DNSSDError(description: "register callback: error \(error)")
            }
            return box.name != nil
        }
        return box
    }

    /// Builds TXT bytes with the TXTRecord API, keys in order.
    private static func txtRecord(_ entries: [String: String]) throws -> [UInt8] {
        var record = TXTRecordRef()
        TXTRecordCreate(&record, 0, nil)
        defer { TXTRecordDeallocate(&record) }
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            let bytes = Array(value.utf8)
            let error = TXTRecordSetValue(&record, key, UInt8(bytes.count), bytes)
            guard error == DNSServiceErrorType(kDNSServiceErr_NoError) else {
                throw DNSSDError(description: "TXTRecordSetValue \(key): error \(error)")
            }
        }
        let length = Int(TXTRecordGetLength(&record))
        return Array(UnsafeRawBufferPointer(start: TXTRecordGetBytesPtr(&record), count: length))
    }
}

private let registerReply: DNSServiceRegisterReply = { _, _, error, name, _, _, context in
    let box = Unmanaged<DNSSDRegister>.fromOpaque(context!).takeUnretainedValue()
    guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let name else {
        box.error = error
        return
    }
    box.name = String(cString: name)
}

/// Collects browse callbacks (through an Unmanaged context pointer).
final class DNSSDBrowse {
    var added: [BrowsedService] = []
    var error: DNSServiceErrorType?

    /// Browses for `type` until an instance named `name` appears.
    static func first(type: String, named name: String, timeout: Duration) async throws -> BrowsedService {
        let box = DNSSDBrowse()
        let context = Unmanaged.passUnretained(box).toOpaque()
        let operation = try DNSSDOperation(name: "DNSServiceBrowse \(type)") { ref in
            DNSServiceBrowse(&ref, 0, 0, type, nil, browseReply, context)
        }
        defer { withExtendedLifetime(box) {} } // the C library holds `context` until the ref is deallocated
        try await operation.run(timeout: timeout) {
            if let error = box.error {
                throw DNSSDError(description: "browse callback: error \(error)")
            }
            return box.added.contains { $0.name == name }
        }
        return box.added.first { $0.name == name }!
    }
}

private let browseReply: DNSServiceBrowseReply = { _, flags, interfaceIndex, error, name, type, domain, context in
    let box = Unmanaged<DNSSDBrowse>.fromOpaque(context!).takeUnretainedValue()
    guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let name, let type, let domain else {
        box.error = error
        return
    }
    if flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0 {
        box.added.append(BrowsedService(name: String(cString: name), type: String(cString: type),
                                        domain: String(cString: domain), interfaceIndex: interfaceIndex))
    }
}

/// Collects the resolve callback (through an Unmanaged context pointer).
final class DNSSDResolve {
    var result: ResolvedService?
    var error: DNSServiceErrorType?

    static func run(_ service: BrowsedService, timeout: Duration) async throws -> ResolvedService {
        let box = DNSSDResolve()
        let context = Unmanaged.passUnretained(box).toOpaque()
        let operation = try DNSSDOperation(name: "DNSServiceResolve \(service.name)") { ref in
            DNSServiceResolve(&ref, 0, service.interfaceIndex, service.name, service.type, service.domain, resolveReply, context)
        }
        defer { withExtendedLifetime(box) {} } // the C library holds `context` until the ref is deallocated
        try await operation.run(timeout: timeout) {
            if let error = box.error {
                throw DNSSDError(description: "resolve callback: error \(error)")
            }
            return box.result != nil
        }
        return box.result!
    }
}

private let resolveReply: DNSServiceResolveReply = { _, _, _, error, _, hostTarget, port, txtLength, txtRecord, context in
    let box = Unmanaged<DNSSDResolve>.fromOpaque(context!).takeUnretainedValue()
    guard error == DNSServiceErrorType(kDNSServiceErr_NoError), let hostTarget else {
        box.error = error
        return
    }
    var txt: [String: String] = [:]
    let count = TXTRecordGetCount(txtLength, txtRecord)
    for index in 0..<count {
        var key = [CChar](repeating: 0, count: 256)
        var valueLength: UInt8 = 0
        var value: UnsafeRawPointer?
        guard TXTRecordGetItemAtIndex(txtLength, txtRecord, index, UInt16(key.count), &key, &valueLength, &value)
                == DNSServiceErrorType(kDNSServiceErr_NoError) else { continue }
        let bytes = value.map { UnsafeRawBufferPointer(start: $0, count: Int(valueLength)) }
        txt[key.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }] = bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
    box.result = ResolvedService(hostTarget: String(cString: hostTarget), port: UInt16(bigEndian: port), txt: txt)
}
