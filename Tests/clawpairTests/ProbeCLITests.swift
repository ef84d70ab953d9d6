import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair probe` through the built binary: command-line handling on the host (no network, or
/// loopback only), and real races inside network namespaces.
///
/// Link emulation: this kernel has no `sch_netem` (`tc qdisc add … netem` fails with "Specified
/// qdisc kind is unknown"), so delay and loss come from `Tests/Fixtures/delay_bridge.py`, a
/// user-space Ethernet bridge running in a "router" namespace between the client and a gateway:
/// it forwards every frame between its two interfaces after a fixed delay per direction and drops
/// a given share of them (AF_PACKET with PACKET_VNET_HDR). A blackholed route is an address on the
/// client's link that nobody owns, given a permanent neighbor entry with a MAC that nobody has:
/// SYNs leave and are silently dropped by the peer, so connect hangs as behind a firewall that
/// drops. Nothing is sent from the host namespace or out of a real interface.
@Suite struct ProbeCLITests {
    static let fixture = Harness.fixturesDirectory.appendingPathComponent("test_gateway_ws.py").path
    static let bridge = Harness.fixturesDirectory.appendingPathComponent("delay_bridge.py").path

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    func routes(_ object: [String: Any]) -> [[String: Any]] {
        object["routes"] as? [[String: Any]] ?? []
    }

    // MARK: Host namespace (no network, or loopback)

    @Test("--all runs every route to its end: a later route shows its own outcome, not 'cancelled'; the first to pass wins")
    func allShowsRealOutcomes() async throws {
        try await withTestGateway(TestGatewayOptions(token: "probe-all-token")) { gateway in
            try await withFixtureServer(mode: "stall") { stalled in
                let routes = [gateway.url, "ws://127.0.0.1:\(stalled)"]
                let all = try ClawpairBinary.run(["probe", "--all", "--json", "--stagger", "0", "--timeout", "1500"] + routes)
                #expect(all.status == 0, "\(all)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])
                let results = try #require(object["routes"] as? [[String: Any]], "\(all)")
                #expect(results.map { $0["outcome"] as? String } == ["reachable", "timeout"], "\(all)")
                #expect(object["mode"] as? String == "all")
                #expect(object["url"] as? String == gateway.url, "\(all)")
                // Without --all the race stops at the winner and the other route is cancelled.
                let first = try ClawpairBinary.run(["probe", "--json", "--stagger", "0", "--timeout", "1500"] + routes)
                let firstObject = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
                let firstResults = try #require(firstObject["routes"] as? [[String: Any]], "\(first)")
                #expect(firstResults.map { $0["outcome"] as? String } == ["reachable", "cancelled"], "\(first)")
            }
        }
    }

    @Test func usageErrors() throws {
        let none = try ClawpairBinary.run(["probe"])
        #expect(none.status == 2 && none.stderr.contains("give at least one candidate"), "\(none)")
        let badTimeout = try ClawpairBinary.run(["probe", "--timeout", "0", "ws://127.0.0.1:1"])
        #expect(badTimeout.status == 2 && badTimeout.stderr.contains("invalid --timeout: 0"), "\(badTimeout)")
        let badPin = try ClawpairBinary.run(["probe", "--tls-fingerprint", "abc", "wss://127.0.0.1:1"])
        #expect(badPin.status == 2 && badPin.stderr.contains("not a SHA-256 fingerprint"), "\(badPin)")
        let twoStdin = try ClawpairBinary.run(["probe", "-", "-"], stdin: "")
        #expect(twoStdin.status == 2, "\(twoStdin)")
        let nonsense = try ClawpairBinary.run(["probe", "ftp://example.com"])
        #expect(nonsense.status == 2 && nonsense.stderr.contains("is not a ws:// or wss:// URL"), "\(nonsense)")
        let backend = try ClawpairBinary.run(["probe", "--discover-backend", "native", "ws://127.0.0.1:1"])
        #expect(backend.status == 2 && backend.stderr.contains("--discover-backend needs --discover"), "\(backend)")
        let badBackend = try ClawpairBinary.run(["probe", "--discover", "--discover-backend", "bonjour"])
        #expect(badBackend.status == 2 && badBackend.stderr.contains("invalid --discover-backend"), "\(badBackend)")
    }

    @Test func helpDocumentsReasonsAndJSON() throws {
        let help = try ClawpairBinary.run(["probe", "--help"])
        #expect(help.status == 0)
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for word in ["--stagger", "--timeout", "--fastest", "--all", "--tls-fingerprint", "--trust", "--allow-insecure",
                     "--discover", "--discover-backend", "connect.challenge", "man clawpair-probe"] {
            #expect(text.contains(word), "\(word) missing from --help")
        }
        // The rules in full live once, in the man page's sections, where --help points.
        let man = try String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("Man/clawpair-probe.1"), encoding: .utf8)
        #expect(man.contains("never becomes a pin"), "the man page says a beacon's fingerprint never becomes a pin")
    }

    @Test func refusedLoopbackAndNeedsWSSWithoutDialing() throws {
        let result = try ClawpairBinary.run(["probe", "--json", "ws://127.0.0.1:1", "ws://198.51.100.7:18789"])
        #expect(result.status == 3, "\(result)")
        let object = try json(result.stdout)
        #expect(object["ok"] as? Bool == false)
        #expect(object["url"] is NSNull)
        #expect(Set(object.keys) == ["ok", "url", "winner", "mode", "timeoutMs", "staggerMs", "elapsedMs", "timedOut", "routes", "error"])
        let list = routes(object)
        #expect(list.map { $0["outcome"] as? String } == ["refused", "needs-wss"])
        #expect(list[1]["address"] is NSNull)
        #expect(Set(list[0].keys) == ["index", "url", "input", "source", "outcome", "phase", "message", "address", "timings",
                                      "tls", "trustCommand"])
        #expect(result.stderr.contains("error: no route is reachable"))
    }

    @Test func setupCodesFromStdinAndArgv() throws {
        let payload = #"{"url":"ws://127.0.0.1:1","urls":["ws://127.0.0.1:1","ws://127.0.0.1:2"],"bootstrapToken":"secret-token"}"#
        let fromStdin = try ClawpairBinary.run(["probe", "--all", "-"], stdin: payload)
        #expect(fromStdin.status == 3, "\(fromStdin)")
        #expect(!fromStdin.stderr.contains("warning:"), "\(fromStdin)")
        #expect(fromStdin.stdout.contains("setup code #1 route 2"), "\(fromStdin)")
        #expect(!(fromStdin.stdout + fromStdin.stderr).contains("secret-token"))
        let onArgv = try ClawpairBinary.run(["probe", payload])
        #expect(onArgv.stderr.contains("warning: a setup code was given on the command line"), "\(onArgv)")
        #expect(!(onArgv.stdout + onArgv.stderr).contains("secret-token"))
    }

    // MARK: Network namespaces

    /// Starts the fixture server in `host` and waits until it listens.
    func serve(_ host: LabHost, mode: String, ip: String, port: Int, certificate: (String, String)? = nil) async throws -> ChildProcess {
        var command = [Harness.python3, Self.fixture, "--mode", mode, "--host", ip, "--port", String(port)]
        if let certificate { command += ["--cert", certificate.0, "--key", certificate.1] }
        let child = try host.spawn(command, label: "\(mode):\(port)@\(host.label)")
        _ = try await child.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(20))
        return child
    }

    /// A self-signed certificate in the lab directory and its SHA-256 fingerprint.
    func certificate(_ lab: NetworkLab, _ name: String, on host: LabHost) async throws -> (cert: String, key: String, fingerprint: String) {
        let directory = try lab.makeDirectory("cert-\(name)")
        let cert = directory + "/cert.pem", key = directory + "/key.pem"
        try await host.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
                            "-subj", "/CN=openclaw-gateway", "-keyout", key, "-out", cert]).requireSuccess()
        let output = try await host.run(["openssl", "x509", "-in", cert, "-noout", "-fingerprint", "-sha256"]).requireSuccess().stdout
        let fingerprint = output.split(separator: "=").last.map { $0.filter(\.isHexDigit).lowercased() } ?? ""
        return (cert, key, fingerprint)
    }

    /// Makes `address` on `host`'s `interface` a black hole: a permanent neighbor entry with a MAC
    /// nobody has, so packets leave and vanish.
    func blackhole(_ host: LabHost, _ address: String, interface: String) async throws {
        let family = address.contains(":") ? "-6" : "-4"
        try await host.ip(family, "neigh", "replace", address, "lladdr", "02:00:00:00:0b:0b", "dev", interface, "nud", "permanent")
    }

    /// Runs `clawpair probe` in `host`, checking it ends within its time limit.
    func probe(_ host: LabHost, _ arguments: [String], timeoutMs: Int) async throws -> (ProcessResult, [String: Any]) {
        let started = ContinuousClock.now
        let result = try await host.run([ClawpairBinary.path, "probe", "--json", "--timeout", String(timeoutMs)] + arguments,
                                        timeout: .seconds(30))
        let wall = ContinuousClock.now - started
        // Process start-up under `ip netns exec` is included; the run itself is checked in elapsedMs.
        #expect(wall < .milliseconds(timeoutMs + Harness.hangSlackMs), "the run took \(wall)")
        let object = try json(result.stdout)
        let elapsed = object["elapsedMs"] as? Double ?? .infinity
        // The run stops at its deadline; the slack is for a loaded machine scheduling the process late, not a speed claim.
        #expect(elapsed <= Double(timeoutMs) + 1000, "elapsedMs \(elapsed) exceeds --timeout \(timeoutMs)")
        return (result, object)
    }

    @Test("every failure reason, each route's phase, and the run ends within --timeout", .networkLab)
    func reasons() async throws {
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let gateway = try await lab.addHost("gateway")
            let link = try await lab.link(client, gateway)
            let g = link.b.ipv4
            let good = try await certificate(lab, "good", on: gateway)
            let other = try await certificate(lab, "other", on: gateway)
            _ = try await serve(gateway, mode: "gateway", ip: g, port: 18801, certificate: (good.cert, good.key))
            _ = try await serve(gateway, mode: "gateway", ip: g, port: 18802, certificate: (other.cert, other.key))
            _ = try await serve(gateway, mode: "http", ip: g, port: 18803)
            _ = try await serve(gateway, mode: "silent", ip: g, port: 18804)
            _ = try await serve(gateway, mode: "stall", ip: g, port: 18805)
            _ = try await serve(gateway, mode: "wrong-event", ip: g, port: 18807)
            let hole = "10.250.0.99"
            try await blackhole(client, hole, interface: link.a.interface)

            let wrongPin = #"{"url":"wss://\#(g):18801","bootstrapToken":"t","tlsFingerprint":"\#(String(repeating: "0", count: 64))"}"#
            let candidates = [
                "ws://\(hole):18789",          // 0 blackhole: timeout in tcp
                "ws://\(g):18806",             // 1 closed port: refused
                wrongPin,                      // 2 pin-mismatch
                "wss://\(g):18802",            // 3 untrusted self-signed: tls-untrusted
                "ws://\(g):18803",             // 4 plain HTTP: not-websocket
                "ws://\(g):18804",             // 5 WebSocket that never sends the challenge: timeout in challenge
                "ws://\(g):18805",             // 6 accepts TCP, then stalls: timeout in ws
                "ws://\(g):18807",             // 7 a first event that is not connect.challenge: not-gateway
                "ws://203.0.113.5:18789",      // 8 public host over ws://: needs-wss, never dialed
                "wss://\(g):18801",            // 9 TLS to the good gateway with no pin: tls-untrusted
            ]
            let (result, object) = try await probe(client, ["--all", "--stagger", "100"] + candidates, timeoutMs: 2000)
            #expect(result.status == .exited(4), "nothing passed and TLS trust failed: \(result.stderr)")
            let list = routes(object)
            #expect(list.map { $0["outcome"] as? String } == [
                "timeout", "refused", "pin-mismatch", "tls-untrusted", "not-websocket", "timeout", "timeout",
                "not-gateway", "needs-wss", "tls-untrusted",
            ], "\(result.stdout)")
            #expect(list.map { $0["phase"] as? String } == [
                "tcp", "tcp", "tls", "tls", "ws", "challenge", "ws", "challenge", "queued", "tls",
            ], "\(result.stdout)")
            #expect(object["timedOut"] as? Bool == true)
            let tls3 = list[3]["tls"] as? [String: Any]
            #expect(tls3?["fingerprint"] as? String == other.fingerprint)
            #expect(list[3]["trustCommand"] as? String == "clawpair probe --trust \(other.fingerprint) wss://\(g):18802")
            #expect((list[2]["tls"] as? [String: Any])?["fingerprint"] as? String == good.fingerprint)
            #expect(result.stderr.contains("warning: a setup code was given on the command line"))

            // The same routes plus the good gateway with its pin (as a setup code would carry it):
            // it wins although it is last, and what still ran is cancelled.
            let rightPin = #"{"url":"wss://\#(g):18801","bootstrapToken":"t","tlsFingerprint":"\#(good.fingerprint)"}"#
            let (won, wonObject) = try await probe(client, ["--stagger", "100"] + candidates + [rightPin], timeoutMs: 3000)
            #expect(won.status == .exited(0), "\(won.stderr)")
            #expect(wonObject["winner"] as? Int == 10)
            #expect(wonObject["url"] as? String == "wss://\(g):18801")
            let wonList = routes(wonObject)
            let winnerTLS = wonList[10]["tls"] as? [String: Any]
            #expect(winnerTLS?["trust"] as? String == "pinned")
            #expect(winnerTLS?["pinSource"] as? String == "setup-code")
            #expect(wonList[0]["outcome"] as? String == "cancelled")
            #expect(wonList[5]["outcome"] as? String == "cancelled")
            #expect(wonObject["timedOut"] as? Bool == false)

            // --trust accepts the certificate the failed run reported.
            let (trusted, trustedObject) = try await probe(client, ["--trust", good.fingerprint, "wss://\(g):18801"], timeoutMs: 2000)
            #expect(trusted.status == .exited(0), "\(trusted.stderr)")
            #expect((routes(trustedObject).first?["tls"] as? [String: Any])?["pinSource"] as? String == "trust")
        }
    }

    @Test("a nearby gateway beats an earlier route over a slow, lossy link; --fastest waits", .networkLab)
    func delayAndLoss() async throws {
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let router = try await lab.addHost("router")
            let far = try await lab.addHost("far")
            let near = try await lab.addHost("near")
            let toRouter = try await lab.link(client, router)   // 10.250.0.1 — 10.250.0.2
            let fromRouter = try await lab.link(router, far)    // 10.250.1.1 — 10.250.1.2
            let direct = try await lab.link(client, near)       // 10.250.2.1 — 10.250.2.2
            // The far gateway joins the client's subnet through the delaying bridge.
            let farAddress = "10.250.0.3"
            try await far.ip("addr", "add", "\(farAddress)/24", "dev", fromRouter.b.interface)
            let bridge = try router.spawn([Harness.python3, Self.bridge, toRouter.b.interface, fromRouter.a.interface,
                                           "--delay-ms", "150", "--loss", "0.02", "--seed", "7"], label: "delay-bridge@router")
            _ = try await bridge.waitForLine(containing: "ready", on: .stdout, timeout: .seconds(20))
            _ = try await serve(far, mode: "gateway", ip: farAddress, port: 18789)
            _ = try await serve(near, mode: "gateway", ip: direct.b.ipv4, port: 18789)
            let hole = "10.250.2.99"
            try await blackhole(client, hole, interface: direct.a.interface)

            // The emulated link really is slow: a ping takes about 300 ms there and back.
            let ping = try await client.run(["ping", "-n", "-c", "3", "-W", "5", farAddress]).requireSuccess().stdout
            let times = ping.split(separator: "\n").compactMap { line in
                line.range(of: "time=").flatMap { Double(line[$0.upperBound...].prefix { $0 == "." || $0.isNumber }) }
            }
            // The bridge delays each way by ~150 ms: a ping takes at least that, however loaded the machine.
            #expect(times.min().map { $0 >= 290 } == true, "\(ping)")

            let candidates = ["ws://\(hole):18789", "ws://\(farAddress):18789", "ws://\(direct.b.ipv4):18789"]
            let (first, firstObject) = try await probe(client, ["--all"] + candidates, timeoutMs: 3000)
            #expect(first.status == .exited(0), "\(first.stderr)")
            #expect(firstObject["winner"] as? Int == 2, "\(first.stdout)")
            let firstList = routes(firstObject)
            // --all runs every route to its end (each outcome is real) and the first to pass still wins: the
            // near gateway, although the far one answers too, later.
            #expect(firstList.map { $0["outcome"] as? String } == ["timeout", "reachable", "reachable"], "\(first.stdout)")
            let started = (firstList[2]["timings"] as? [String: Any])?["startedMs"] as? Double ?? 0
            // Two staggers in at the earliest; the upper bound is the run's own limit (a loaded machine starts it late).
            #expect(started >= 500 && started < 3000, "the third route starts two staggers in: \(started)")

            let (fastest, fastestObject) = try await probe(client, ["--fastest", "--all"] + candidates, timeoutMs: 5000)
            #expect(fastest.status == .exited(0), "\(fastest.stderr)")
            #expect(fastestObject["winner"] as? Int == 2)
            let list = routes(fastestObject)
            #expect(list.map { $0["outcome"] as? String } == ["timeout", "reachable", "reachable"], "\(fastest.stdout)")
            let farTimings = list[1]["timings"] as? [String: Any]
            #expect((farTimings?["tcpMs"] as? Double ?? 0) >= 280, "TCP over the slow link takes a round trip: \(String(describing: farTimings))")
            #expect((farTimings?["wsMs"] as? Double ?? 0) >= 280)
            #expect(fastestObject["timedOut"] as? Bool == true, "the blackholed route keeps the run to its limit")
        }
    }

    @Test("--discover races what mDNS finds; the advertised fingerprint is not a pin", .networkLab)
    func discover() async throws {
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let gateway = try await lab.addHost("gateway")
            let link = try await lab.link(client, gateway)
            let good = try await certificate(lab, "good", on: gateway)
            _ = try await serve(gateway, mode: "gateway", ip: link.b.ipv4, port: 18801, certificate: (good.cert, good.key))
            // The beacon advertises TLS with a *different* fingerprint: an unauthenticated hint.
            let advertised = String(repeating: "ab", count: 32)
            _ = try await lab.startZeroconfAdvertiser(in: gateway, instance: "Lab Gateway", port: 18801,
                                                      txt: ["role": "gateway", "transport": "gateway", "gatewayPort": "18801",
                                                            "gatewayTls": "1", "gatewayTlsSha256": advertised],
                                                      server: "gw-lab.local.")
            let (untrusted, object) = try await probe(client, ["--discover", "--discover-backend", "native", "--all"],
                                                       timeoutMs: 4000)
            #expect(untrusted.status == .exited(4), "no pin, self-signed: \(untrusted.stdout)\(untrusted.stderr)")
            let route = try #require(routes(object).first)
            #expect(route["url"] as? String == "wss://gw-lab.local:18801")
            #expect(route["source"] as? String == "discovered")
            #expect(route["outcome"] as? String == "tls-untrusted")
            let tls = route["tls"] as? [String: Any]
            #expect(tls?["expected"] is NSNull, "the TXT fingerprint did not become the pin")
            #expect(tls?["fingerprint"] as? String == good.fingerprint)

            let (trusted, trustedObject) = try await probe(client, ["--discover", "--discover-backend", "native",
                                                                    "--trust", good.fingerprint], timeoutMs: 4000)
            #expect(trusted.status == .exited(0), "\(trusted.stderr)")
            #expect(trustedObject["url"] as? String == "wss://gw-lab.local:18801")
            #expect(routes(trustedObject).first?["address"] as? String == "\(link.b.ipv4):18801")
        }
    }

    @Test("Happy Eyeballs by name: a blackholed IPv6 address is overtaken by IPv4 after 250 ms", .networkLab)
    func happyEyeballsByName() async throws {
        try await withNetworkLab { lab in
            let client = try await lab.addHost("client")
            let gateway = try await lab.addHost("gateway")
            let link = try await lab.link(client, gateway)
            let good = try await certificate(lab, "good", on: gateway)
            _ = try await serve(gateway, mode: "gateway", ip: link.b.ipv4, port: 18801, certificate: (good.cert, good.key))
            let hole6 = "fd00:c1a0:0:0::99"
            try await blackhole(client, hole6, interface: link.a.interface)
            // `ip netns exec` bind-mounts /etc/netns/<namespace>/hosts over /etc/hosts.
            let directory = "/etc/netns/\(client.namespace)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try "127.0.0.1 localhost\n\(hole6) gw-dual.test\n\(link.b.ipv4) gw-dual.test\n"
                .write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)

            let (result, object) = try await probe(client, ["--tls-fingerprint", good.fingerprint, "wss://gw-dual.test:18801"],
                                                   timeoutMs: 3000)
            #expect(result.status == .exited(0), "\(result.stderr)")
            let route = try #require(routes(object).first)
            #expect(route["address"] as? String == "\(link.b.ipv4):18801")
            // The documented pinSource of a --tls-fingerprint pin (the CLI's word, not the library's).
            #expect((route["tls"] as? [String: Any])?["pinSource"] as? String == "tls-fingerprint")
            let timings = route["timings"] as? [String: Any]
            let tcp = timings?["tcpMs"] as? Double ?? 0
            // Not a speed claim: the dialer measures from the instant it armed the 250 ms stagger, and
            // its timers never fire early, so IPv4 can't have connected sooner unless IPv6 wasn't
            // tried first. (That IPv4 came at all, within --timeout, is the exit status above.)
            #expect(tcp >= 250, "IPv6 was tried first and IPv4 250 ms later: \(tcp)")
        }
    }
}
