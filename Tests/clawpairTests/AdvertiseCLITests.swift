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
            let (a, b, bus, avahi) = try await lab.startAvahiLink()
            let zeroconf = try await lab.startZeroconfBrowser(in: b)
            let watcher = try b.spawn([ClawpairBinary.path, "discover", "--backend", "native", "--watch", "--json",
                                       "--timeout", "30000"], label: "discover --watch")

            let advertiser = try a.spawn(
                [ClawpairBinary.path, "advertise", "--port", "18790", "--name", "Clawpair Test Gateway",
                 "--tls-fingerprint", Self.pin, "--mode", "full", "--ssh-port", "2222", "--txt", "role=gateway"],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], label: "advertise")
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(10))
            // As gateways do, " (OpenClaw)" is appended to a name that does not mention OpenClaw.
            #expect(line == "Advertising \"Clawpair Test Gateway (OpenClaw)\" (_openclaw-gw._tcp, port 18790, host \(avahi.hostName), "
                    + "every interface) until interrupted.")

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

    @Test("a name another host holds is reported as a rename (issue 25.7: the compat layer renamed silently)")
    func nameConflict() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, avahi) = try await lab.startAvahiLink()
            try await lab.startZeroconfAdvertiser(in: b, instance: "Taken OpenClaw", port: 18789, txt: ["role": "gateway"],
                                                  server: "taken.local.")
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--port", "18791", "--name", "Taken OpenClaw"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], label: "advertise")
            // stderr is read by its own thread: wait for the warning rather than peeking at it.
            let warning = try await advertiser.waitForLine(containing: "warning:", on: .stderr, timeout: .seconds(15))
            #expect(warning == "warning: the name \"Taken OpenClaw\" is taken on this network; renamed to \"Taken OpenClaw #2\" "
                    + "(rename 1 of at most 32)", "\(warning)")
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            #expect(line == "Advertising \"Taken OpenClaw #2\" (_openclaw-gw._tcp, port 18791, host \(avahi.hostName), "
                    + "every interface) until interrupted.")
            #expect(await advertiser.terminate() == .exited(0))
        }
    }

    @Test("a host that claims every name stops the advertiser after --max-renames renames, each reported")
    func squatterStopsAtTheLimit() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            for name in ["Squat OpenClaw", "Squat OpenClaw #2", "Squat OpenClaw #3", "Squat OpenClaw #4"] {
                try await lab.startZeroconfAdvertiser(in: b, instance: name, port: 18789, txt: ["role": "gateway"],
                                                      server: "squatter.local.")
            }
            let result = try await a.run([ClawpairBinary.path, "advertise", "--json", "--port", "18791", "--name", "Squat OpenClaw",
                                          "--max-renames", "3"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(60))
            #expect(result.status == .exited(1), "\(result)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(result.stdout)")
            #expect(lines.prefix(3) == [
                #"{"event":"renamed","name":"Squat OpenClaw","newName":"Squat OpenClaw #2","renames":1,"maxRenames":3}"#,
                #"{"event":"renamed","name":"Squat OpenClaw #2","newName":"Squat OpenClaw #3","renames":2,"maxRenames":3}"#,
                #"{"event":"renamed","name":"Squat OpenClaw #3","newName":"Squat OpenClaw #4","renames":3,"maxRenames":3}"#,
            ], "\(result.stdout)")
            #expect(lines.last?.hasPrefix(#"{"ok":false,"error":{"code":"name-conflict","message":"every name up to \"Squat OpenClaw #4\" is taken on this network; gave up renaming""#) == true,
                    "\(result.stdout)")
            #expect(result.stderr.hasPrefix("error: every name up to \"Squat OpenClaw #4\" is taken on this network; gave up renaming\n"
                                            + "hint: choose another name with --name"), "\(result.stderr)")
        }
    }

    @Test("--interface registers on that link only; OPENCLAW_MDNS_HOSTNAME is the SRV target, with its address")
    func interfaceAndHostName() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let b = try await lab.addHost("B")
            let c = try await lab.addHost("C")
            let toB = try await lab.link(a, b)
            try await lab.link(a, c)
            let bus = try await lab.startDBus(in: a)
            try await lab.startAvahi(in: a, bus: bus)
            let environment: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "OPENCLAW_MDNS_HOSTNAME": "gw-lab.local"]
            let zeroconf = try await lab.startZeroconfBrowser(in: b)
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--port", "18793", "--name", "Iface OpenClaw",
                                          "--interface", "veth0"], environment: environment, label: "advertise")
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            #expect(line == "Advertising \"Iface OpenClaw\" (_openclaw-gw._tcp, port 18793, host gw-lab.local, interface veth0) "
                    + "until interrupted.")
            let seen = try await zeroconf.waitForService(instance: "Iface OpenClaw", timeout: .seconds(10))
            #expect(seen.server == "gw-lab.local.", "the SRV target: \(seen)")
            #expect(seen.addresses.contains(toB.a.ipv4), "the host's address record on the link: \(seen)")
            #expect(seen.txt["lanHost"] == "gw-lab.local")
            let browse = try await a.run(["avahi-browse", "-pt", "_openclaw-gw._tcp"], environment: environment, timeout: .seconds(15))
            let lines = browse.stdout.split(separator: "\n").filter { $0.contains("Iface\\032OpenClaw") }
            #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("+;veth0;") }, "registered on veth0 only: \(browse.stdout)")
            #expect(await advertiser.terminate() == .exited(0))
        }
    }

    @Test("a name already registered on this daemon moves to Avahi's next name, and says so")
    func localNameConflict() async throws {
        try await withNetworkLab { lab in
            let (a, _, bus, _) = try await lab.startAvahiLink()
            let environment: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
            let publisher = try a.spawn(["avahi-publish", "-s", "Taken OpenClaw", "_openclaw-gw._tcp", "18789"],
                                        environment: environment, label: "avahi-publish")
            _ = try await publisher.waitForLine(containing: "Established", timeout: .seconds(15))
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--port", "18791", "--name", "Taken OpenClaw"],
                                         environment: environment, label: "advertise")
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            #expect(line.hasPrefix("Advertising \"Taken OpenClaw #2\" (_openclaw-gw._tcp, port 18791, host "), "\(line)")
            let warning = try await advertiser.waitForLine(containing: "warning:", on: .stderr, timeout: .seconds(5))
            #expect(warning == "warning: the name \"Taken OpenClaw\" is taken on this network; renamed to \"Taken OpenClaw #2\" "
                    + "(rename 1 of at most 32)")
            let browse = try await a.run(["avahi-browse", "-pt", "_openclaw-gw._tcp"], environment: environment, timeout: .seconds(15))
            // avahi-browse -p escapes the name as DNS-SD presentation: space \032, # \035.
            #expect(browse.stdout.contains(";Taken\\032OpenClaw\\032\\0352;"), "\(browse.stdout)")
            #expect(await advertiser.terminate() == .exited(0))
            _ = await publisher.terminate()
        }
    }

    @Test("avahi-daemon going away ends advertise with exit 1 and says so")
    func daemonLeaves() async throws {
        try await withNetworkLab { lab in
            let (a, _, bus, avahi) = try await lab.startAvahiLink()
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--port", "18794", "--name", "Leaving OpenClaw"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], label: "advertise")
            _ = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            avahi.process.signal(SIGKILL)
            #expect(try await advertiser.waitForExit(timeout: .seconds(15)) == .exited(1))
            let error = try await advertiser.waitForLine(containing: "error:", on: .stderr, timeout: .seconds(5))
            #expect(error == "error: avahi-daemon is not running (or the system D-Bus is not reachable), and advertising needs it")
        }
    }

    @Test("OPENCLAW_MDNS_HOSTNAME naming another host's name stops with host-name-taken")
    func hostNameTaken() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, _) = try await lab.startAvahiLink()
            // B's own avahi-daemon owns taken-host.local.
            let busB = try await lab.startDBus(in: b)
            var options = AvahiOptions()
            options.hostName = "taken-host"
            try await lab.startAvahi(in: b, bus: busB, options: options)
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--json", "--port", "18795", "--name", "Host OpenClaw"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "OPENCLAW_MDNS_HOSTNAME": "taken-host"],
                                         label: "advertise")
            let status = try await advertiser.waitForExit(timeout: .seconds(30))
            let result = (status: status, stdout: advertiser.stdout, stderr: advertiser.stderr)
            #expect(result.status == .exited(1), "\(result)")
            #expect(result.stdout.contains(#""code": "host-name-taken""#), "\(result.stdout)")
            #expect(result.stderr == """
                error: the host name taken-host.local is taken by another machine on this network
                hint: set OPENCLAW_MDNS_HOSTNAME to a name no other host uses, or unset it

                """, "\(result.stderr)")
        }
    }

    @Test("OPENCLAW_MDNS_HOSTNAME on an interface without an address is refused, not advertised unresolvable")
    func hostNameWithoutAddress() async throws {
        try await withNetworkLab { lab in
            let (a, _, bus, _) = try await lab.startAvahiLink()
            // A link that exists but is down: it has an index and no address.
            _ = try await a.ip("link", "add", "dummy7", "type", "veth", "peer", "name", "dummy8")
            let result = try await a.run([ClawpairBinary.path, "advertise", "--port", "18795", "--interface", "dummy7"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "OPENCLAW_MDNS_HOSTNAME": "gw-7"],
                                         timeout: .seconds(20))
            #expect(result.status == .exited(1), "\(result)")
            #expect(result.stderr.hasPrefix("error: no address to publish for gw-7.local: the interfaces advertised on have none\n"),
                    "\(result.stderr)")
        }
    }

    @Test("avahi-daemon renaming its own host after a conflict: the beacon is registered again and stays")
    func daemonHostRename() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, avahi) = try await lab.startAvahiLink()
            let environment: [String: String?] = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--port", "18798", "--name", "Stay OpenClaw"],
                                         environment: environment, label: "advertise")
            _ = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            // B announces A's host name with another address: A's daemon renames itself (S_COLLISION,
            // S_REGISTERING, S_RUNNING) and the advertiser adds its records again.
            try await lab.startZeroconfAdvertiser(in: b, instance: "Host Thief", type: "_http._tcp.local.", port: 80,
                                                  addresses: ["10.99.0.9"], server: "\(avahi.hostName).")
            let label = String(avahi.hostName.dropLast(".local".count))
            _ = try await avahi.process.waitForLine(containing: "\(label)-2.local", on: .stderr, timeout: .seconds(20))
            // avahi-browse resolves from the daemon's cache, where the old records linger a moment:
            // polled (the daemon's cache tells no one when they go).
            var last = ""
            let moved = try await eventually(within: .seconds(60)) {
                let browse = try await a.run(["avahi-browse", "-rpt", "_openclaw-gw._tcp"], environment: environment, timeout: .seconds(15))
                last = browse.stdout
                return browse.stdout.split(separator: "\n").contains {
                    $0.hasPrefix("=") && $0.contains("Stay\\032OpenClaw") && $0.contains(";\(label)-2.local;")
                }
            }
            #expect(moved, "registered again under the daemon's new name: \(last)\n\(advertiser.stderr)")
            #expect(!advertiser.hasExited, "\(advertiser.stderr)")
            // And it says where it is now.
            let again = try await advertiser.waitForLine(containing: "host \(label)-2.local", timeout: .seconds(10))
            #expect(again == "Advertising \"Stay OpenClaw\" (_openclaw-gw._tcp, port 18798, host \(label)-2.local, every interface) "
                    + "until interrupted.")
            #expect(await advertiser.terminate() == .exited(0))
        }
    }

    @Test("without avahi-daemon it says how to install and start it")
    func noDaemon() async throws {
        try await withNetworkLab { lab in
            let a = try await lab.addHost("A")
            let bus = try await lab.startDBus(in: a)
            let result = try await a.run([ClawpairBinary.path, "advertise", "--port", "18789"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], timeout: .seconds(20))
            #expect(result.status == .exited(1))
            #expect(result.stdout == "")
            #expect(result.stderr == """
                error: avahi-daemon is not running (or the system D-Bus is not reachable), and advertising needs it
                hint: install and start it: sudo apt-get install avahi-daemon && sudo systemctl enable --now avahi-daemon

                """)
        }
    }

    @Test("--from-openclaw-config advertises the gateway's beacon only while it answers")
    func healthGatedFromConfig() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, avahi) = try await lab.startAvahiLink()
            let certificate = try await TestCertificate.make()
            let options = TestGatewayOptions(hosts: ["127.0.0.1"], port: 18795, certificate: certificate)
            let config = try lab.writeFile("openclaw.json", contents: """
                // The gateway's config, JSON5 as OpenClaw writes it.
                { gateway: { port: 18795, bind: 'lan', tls: { enabled: true } },
                  plugins: { entries: { bonjour: { config: { instanceName: 'Lab Gateway' } } } } }
                """)
            let zeroconf = try await lab.startZeroconfBrowser(in: b)
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--from-openclaw-config", config],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "OPENCLAW_GATEWAY_PORT": nil],
                                         label: "advertise")
            let waiting = try await advertiser.waitForLine(containing: "Waiting", on: .stderr, timeout: .seconds(10))
            #expect(waiting == "Waiting for the gateway at wss://127.0.0.1:18795 to answer before advertising.")
            #expect(!advertiser.stdout.contains("Advertising"), "nothing is advertised before the gateway answers")

            var gateway = try await startTestGateway(options, in: a)
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(20))
            // Issue 24.16: the registration is said, with where it is advertised.
            #expect(line == "Advertising \"Lab Gateway (OpenClaw)\" (_openclaw-gw._tcp, port 18795, host \(avahi.hostName), "
                    + "every interface) until interrupted.")
            let seen = try await zeroconf.waitForService(instance: "Lab Gateway (OpenClaw)", timeout: .seconds(10))
            #expect(seen.port == 18795)
            #expect(seen.txt["gatewayTls"] == "1")
            #expect(seen.txt["gatewayTlsSha256"] == certificate.fingerprint, "the served certificate's fingerprint")
            #expect(seen.txt["gatewayDirectReachable"] == "1")
            #expect(seen.txt["canvasPort"] == nil)

            await gateway.stop()
            let down = try await advertiser.waitForLine(containing: "stopped answering", on: .stderr, timeout: .seconds(30))
            #expect(down.hasPrefix("warning: the gateway stopped answering ("), "\(down)")
            #expect(down.hasSuffix("); withdrew \"Lab Gateway (OpenClaw)\" until it answers"), "\(down)")

            gateway = try await startTestGateway(options, in: a)
            var announcements = 0
            _ = try await advertiser.waitForLine(on: .stdout, timeout: .seconds(20), describing: "a second announcement") {
                if $0.hasPrefix("Advertising \"Lab Gateway (OpenClaw)\"") { announcements += 1 }
                return announcements == 2
            }
            #expect(await advertiser.terminate() == .exited(0))
            await gateway.stop()
        }
    }

    @Test("--from-openclaw-config beside a beacon of the same name reports the rename, suggests turning the other off, and registers")
    func fromConfigBesideItsOwnBeacon() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, avahi) = try await lab.startAvahiLink()
            // The gateway's own advertiser (here on B) holds the name the config gives.
            try await lab.startZeroconfAdvertiser(in: b, instance: "Dup Gateway (OpenClaw)", port: 18796, txt: ["role": "gateway"],
                                                  server: "dup.local.")
            let config = try lab.writeFile("openclaw.json", contents: """
                { gateway: { port: 18796, bind: 'lan' }, plugins: { entries: { bonjour: { config: { instanceName: 'Dup Gateway' } } } } }
                """)
            let gateway = try await startTestGateway(TestGatewayOptions(hosts: ["127.0.0.1"], port: 18796), in: a)
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--from-openclaw-config", config],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "OPENCLAW_GATEWAY_PORT": nil],
                                         label: "advertise")
            let warning = try await advertiser.waitForLine(containing: "warning:", on: .stderr, timeout: .seconds(20))
            #expect(warning == "warning: the name \"Dup Gateway (OpenClaw)\" is taken on this network; renamed to "
                    + "\"Dup Gateway (OpenClaw) #2\" (rename 1 of at most 32)")
            _ = try await advertiser.waitForLine(containing: "OPENCLAW_DISABLE_BONJOUR=1", on: .stderr, timeout: .seconds(5))
            let line = try await advertiser.waitForLine(containing: "Advertising", timeout: .seconds(15))
            #expect(line == "Advertising \"Dup Gateway (OpenClaw) #2\" (_openclaw-gw._tcp, port 18796, host \(avahi.hostName), "
                    + "every interface) until interrupted.")
            #expect(await advertiser.terminate() == .exited(0))
            await gateway.stop()
        }
    }

    @Test("--json prints one object per event, the withdrawal with its reason")
    func jsonEvents() async throws {
        try await withNetworkLab { lab in
            let (a, _, bus, avahi) = try await lab.startAvahiLink()
            let advertiser = try a.spawn([ClawpairBinary.path, "advertise", "--json", "--port", "18792", "--name", "Json OpenClaw"],
                                         environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], label: "advertise --json")
            let line = try await advertiser.waitForLine(containing: "\"event\":\"registered\"", timeout: .seconds(15))
            #expect(line.hasPrefix("{\"event\":\"registered\",\"name\":\"Json OpenClaw\",\"requestedName\":\"Json OpenClaw\",\"type\":\"_openclaw-gw._tcp\",\"port\":18792,\"host\":\"\(avahi.hostName)\",\"interfaces\":[],\"txt\":{\"role\":\"gateway\",\"transport\":\"gateway\",\"displayName\":\"Json OpenClaw\","), "\(line)")
            #expect(await advertiser.terminate() == .exited(0))
            let withdrawn = try await advertiser.waitForLine(containing: "withdrawn", timeout: .seconds(5))
            #expect(withdrawn == "{\"event\":\"withdrawn\",\"name\":\"Json OpenClaw\",\"reason\":\"stopped\"}")
            #expect(advertiser.stderr.isEmpty, "\(advertiser.stderr)")
        }
    }
}

/// `advertise --from-openclaw-config` refusals that need no daemon.
@Suite struct AdvertiseConfigCLITests {
    @Test func optionsTheConfigGivesAreRefused() throws {
        let result = try ClawpairBinary.run(["advertise", "--from-openclaw-config", "--port", "18789"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: --port cannot be combined with --from-openclaw-config\nhint: set it in the config file\n"),
                "\(result)")
    }

    @Test func aMissingConfigIsNamed() throws {
        let result = try ClawpairBinary.run(["advertise", "--from-openclaw-config", "/nonexistent/openclaw.json"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            error: no OpenClaw config at /nonexistent/openclaw.json
            hint: give the path of the gateway's openclaw.json (or set OPENCLAW_CONFIG_PATH or OPENCLAW_STATE_DIR)

            """, "\(result)")
    }

    @Test func anUnknownInterfaceIsAUsageError() throws {
        let result = try ClawpairBinary.run(["advertise", "--port", "18789", "--interface", "clawpair-nope0"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            error: --interface: no network interface is called "clawpair-nope0"
            hint: list this machine's interfaces with: ip -brief link

            """, "\(result)")
    }

    @Test func anInvalidMDNSHostNameIsAUsageError() throws {
        let result = try ClawpairBinary.run(["advertise", "--port", "18789"],
                                            environment: ["OPENCLAW_MDNS_HOSTNAME": "no_good\u{1B}[2J"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: OPENCLAW_MDNS_HOSTNAME \"no_good"), "\(result)")
        #expect(!result.stderr.contains("\u{1B}"), "sanitized: \(result)")
        #expect(result.stderr.hasSuffix("is not a DNS host label\nhint: use 1-63 letters, digits and hyphens (e.g. gateway-1), or unset it\n"),
                "\(result)")
    }

    @Test func mdnsOffIsRespected() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawpair-mdns-off-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "{ discovery: { mdns: { mode: 'off' } } }".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try ClawpairBinary.run(["advertise", "--from-openclaw-config", path])
        #expect(result.status == 1)
        #expect(result.stderr == """
            error: discovery.mdns.mode is "off" in \(path): the gateway's owner asked for no mDNS
            hint: set discovery.mdns.mode to "minimal" or "full"; to turn off only the gateway's own advertiser, set OPENCLAW_DISABLE_BONJOUR=1 in the gateway's environment

            """, "\(result)")
    }
}
