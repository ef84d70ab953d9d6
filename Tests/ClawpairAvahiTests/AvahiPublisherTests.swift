import ClawpairAvahi
import ClawpairCore
import ClawpairTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Publishing through avahi-client entry groups against a real avahi-daemon (host A, private
/// D-Bus), seen by the library's own browser and by python-zeroconf in host B; collisions come
/// back to the caller instead of being renamed silently.
@Suite("Avahi publisher", .serialized, .networkLab)
struct AvahiPublisherTests {
    static let type = "_openclaw-gw._tcp"

    /// Runs the publisher until `publication` leaves `registering`: each run returns when a
    /// publication's state changes (a hang bound of 60 s only, not a timing assertion).
    static func settle(_ publisher: AvahiPublisher, _ publication: AvahiPublication) throws {
        let deadline = Monotonic.now + .seconds(60)
        while publication.state == .registering, Monotonic.now < deadline {
            try publisher.run(until: deadline)
        }
    }

    @Test("a service is established with its TXT in order; the same name again collides at once; withdraw removes it")
    func publishCollideWithdraw() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, avahi) = try await lab.startAvahiLink()
            let zeroconf = try await lab.startZeroconfBrowser(in: b)
            try await bus.withSystemBusEnvironment {
                let publisher = try AvahiPublisher()
                #expect(publisher.hostName == avahi.hostName)
                let txt = [Array("role=gateway".utf8), Array("transport=gateway".utf8), Array("b=2".utf8), Array("a=1".utf8)]
                let first = try publisher.publish(AvahiService(name: "Pub OpenClaw", type: Self.type, port: 18797, txt: txt))
                try Self.settle(publisher, first)
                #expect(first.state == .established)

                let second = try publisher.publish(AvahiService(name: "Pub OpenClaw", type: Self.type, port: 18798, txt: txt))
                #expect(second.state == .collision, "a name registered on this daemon is refused at add time")
                #expect(AvahiPublisher.alternativeServiceName(after: "Pub OpenClaw") == "Pub OpenClaw #2")

                let browser = try AvahiBrowser(type: Self.type)
                var found: ResolvedInstance?
                try browser.run(until: Monotonic.now + .seconds(10)) { event in
                    if case .resolved(let instance) = event, instance.instance.name == "Pub OpenClaw" { found = instance; return false }
                    return true
                }
                let resolved = try #require(found)
                #expect(resolved.port == 18797)
                #expect(AvahiBrowserTests.strings(resolved.txtRecord) == txt, "TXT in the order given")

                first.withdraw()
                try publisher.run(until: Monotonic.now + .milliseconds(300))
            }
            let seen = try await zeroconf.waitForService(instance: "Pub OpenClaw", timeout: .seconds(10))
            #expect(seen.port == 18797)
        }
    }

    @Test("a name another host holds comes back as a collision while probing")
    func remoteCollision() async throws {
        try await withNetworkLab { lab in
            let (_, b, bus, _) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Held OpenClaw", port: 18789, server: "holder.local.")
            try await bus.withSystemBusEnvironment {
                let publisher = try AvahiPublisher()
                let publication = try publisher.publish(AvahiService(name: "Held OpenClaw", type: Self.type, port: 18799, txt: []))
                try Self.settle(publisher, publication)
                #expect(publication.state == .collision)
            }
        }
    }

    @Test("avahi-daemon killed while publishing ends the run with daemonNotRunning")
    func daemonLeaves() async throws {
        try await withNetworkLab { lab in
            let (_, _, bus, avahi) = try await lab.startAvahiLink()
            try await bus.withSystemBusEnvironment {
                let publisher = try AvahiPublisher()
                let publication = try publisher.publish(AvahiService(name: "Gone OpenClaw", type: Self.type, port: 18790, txt: []))
                try Self.settle(publisher, publication)
                avahi.process.signal(SIGKILL)
                #expect(throws: AvahiError.daemonNotRunning) {
                    try publisher.run(until: Monotonic.now + .seconds(10))
                }
                #expect(publication.state == .failed(.daemonNotRunning))
            }
        }
    }
}
