import CAvahiBus
@testable import ClawpairAvahi
import ClawpairCore
import ClawpairDBus
import ClawpairTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Our own D-Bus connection to avahi-daemon (AvahiBusSession) against a real dbus-daemon and
/// avahi-daemon in a lab namespace: what libavahi-client used to handle for us.
@Suite("Avahi backend: our D-Bus connection", .serialized, .networkLab)
struct AvahiBusTests {
    static let type = "_openclaw-gw._tcp"

    @Test("a bus without avahi-daemon: the browse's ServiceUnknown is daemonNotRunning")
    func busWithoutDaemon() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let bus = try await lab.startDBus(in: a)
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type)
                #expect(browser.session != nil, "the bus is a Unix socket: no compat fallback")
                #expect(throws: AvahiError.daemonNotRunning) {
                    try browser.run(until: Monotonic.now + .seconds(10)) { _ in true }
                }
            }
        }
    }

    @Test("avahi-daemon going away ends a browse with daemonNotRunning")
    func daemonLeaves() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, avahi) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type)
                try browser.run(until: Monotonic.now + .milliseconds(300)) { _ in true }
                #expect(browser.session?.browserPath != nil, "the daemon answered the browse")
                _ = await avahi.process.terminate()
                #expect(throws: AvahiError.daemonNotRunning) {
                    try browser.run(until: Monotonic.now + .seconds(10)) { _ in true }
                }
            }
        }
    }

    @Test("signals from another bus client are ignored: only avahi-daemon's count")
    func spoofedSignalsAreIgnored() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, _) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let browser = try AvahiBrowser(type: Self.type)
                try browser.run(until: Monotonic.now + .milliseconds(300)) { _ in true }
                let session = try #require(browser.session)
                let me = try #require(session.uniqueName)
                let path = try #require(session.browserPath)
                // Another client of the bus sends us an ItemNew for our browser's object.
                let hello = DBusMessage.methodCall(serial: 1, destination: "org.freedesktop.DBus",
                                                   path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                                   member: "Hello")
                let fake = DBusMessage(type: .signal, serial: 2, path: path, interface: "org.freedesktop.Avahi.ServiceBrowser",
                                       member: "ItemNew", destination: me,
                                       body: [.int32(2), .int32(0), .string("Rogue Gateway"), .string(Self.type),
                                              .string("local"), .uint32(0)])
                let bytes = try DBusWire.encode(hello) + DBusWire.encode(fake)
                let rogue = bytes.withUnsafeBufferPointer { CAvahiBus_connect($0.baseAddress, $0.count) }
                #expect(rogue >= 0)
                defer { if rogue >= 0 { close(rogue) } }
                var events: [AvahiEvent] = []
                try browser.run(until: Monotonic.now + .milliseconds(700)) { event in
                    events.append(event)
                    return true
                }
                #expect(events.isEmpty, "\(events)")
                #expect(session.ignoredSignals >= 1, "the fake signal arrived and was dropped")
            }
        }
    }
}
