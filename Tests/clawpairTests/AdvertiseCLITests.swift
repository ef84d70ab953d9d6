import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair advertise` through a real avahi-daemon in lab host A: python-zeroconf and
/// `clawpair discover` in host B see the beacon, `avahi-browse` in A lists it, and after
/// SIGTERM it is withdrawn and `discover --watch` reports the removal.
@Suite("clawpair advertise", .serialized, .networkLab)
struct AdvertiseCLITests {
    static let pin = String(repeating: "c0", count: 32)

    @Test("registers, is seen by zeroconf, avahi-browse and discover, and withdraws on SIGTERM")
    func advertiseAndWithdraw() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            let zeroconf = try await lab.startZeroconfBrowser(in: b)
            let watcher = try b.spawn([ClawpairBinary.path, "discover", "--backend", "native", "--watch", "--json",
                                       "--timeout", "30000"], label: "discover --watch")

            let advertiser = try a.spawn(
                [ClawpairBinary.path, "advertise", "--port", "18790", "--name", "Clawpair Test Gateway",
                 "--tls-fingerprint", Self.pin, "--mode", "full", "--ssh-port", "2222", "--txt", "role=gateway"],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], label: "advertise")
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(10))
            // As gateways do, " (OpenClaw)" is appended to a name that does not mention OpenClaw.
            #expect(line == "Advertising \"Clawpair Test Gateway (OpenClaw)\" (_openclaw-gw._tcp, port 18790) until interrupted.")

            let seen = try await zeroconf.waitForService(instance: "Clawpair Test Gateway (OpenClaw)", timeout: .seconds(10))
            #expect(seen.port == 18790)
            #expect(seen.txt["gatewayTls"] == "1")
            #expect(seen.txt["gatewayTlsSha256"] == Self.pin)
            #expect(seen.txt["sshPort"] == "2222")
            #expect(seen.txt["displayName"] == "Clawpair Test Gateway")

            let browse = try await a.run(["avahi-browse", "-rpt", "_openclaw-gw._tcp"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(15))
            let resolvedLines = browse.stdout.split(separator: "\n").filter { $0.hasPrefix("=") }
            #expect(resolvedLines.contains { $0.contains("Clawpair Test Gateway") && $0.contains(";18790;") }, "\(browse.stdout)")

            let added = try await watcher.waitForLine(containing: "\"event\":\"added\"", timeout: .seconds(10))
            #expect(added.contains("\"wsUrl\":\"wss://"), "TLS is advertised, so discover offers wss://: \(added)")

            let ending = await advertiser.terminate()
            #expect(ending == .exited(0), "advertise exits cleanly on SIGTERM: \(advertiser.stderr)")
            let withdrawn = try await advertiser.waitForLine(containing: "Withdrawn", on: .stderr, timeout: .seconds(5))
            #expect(withdrawn == "Withdrawn \"Clawpair Test Gateway (OpenClaw)\".")
            _ = try await watcher.waitForLine(containing: "\"event\":\"removed\"", timeout: .seconds(10))
            _ = await watcher.terminate()
        }
    }

    @Test("a taken name is reported with the name avahi-daemon chose instead")
    func nameConflict() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Taken OpenClaw", port: 18789, txt: ["role": "gateway"],
                                                  server: "taken.local.")
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--port", "18791", "--name", "Taken OpenClaw"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], label: "advertise")
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            #expect(!line.contains("\"Taken OpenClaw\""), "the registered name differs: \(line)")
            // stderr is read by its own thread: wait for the warning rather than peeking at it.
            let warning = try await advertiser.waitForLine(containing: "warning:", on: .stderr, timeout: .seconds(5))
            #expect(warning.hasPrefix("warning: the name \"Taken OpenClaw\" is taken on this network"), "\(warning)")
            _ = await advertiser.terminate()
        }
    }
}
