import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair devices list` and `clawpair probe` against the hostile gateway (Tests/Fixtures/
/// hostile_gateway.py) on loopback: numbers from the peer never trap or arm absurd timers, a
/// protocol outside the requested range is refused, and a ping flood from a peer that never
/// reads keeps the command under ``memoryBoundKiB`` of peak RSS and inside its --timeout.
@Suite("clawpair against a hostile gateway (loopback)", .serialized)
struct GatewayHostileTests {
    /// The memory bound docs/operating-a-gateway.md's security section promises for every command (64 MB).
    static let memoryBoundKiB = 64 * 1024
    static let timeoutMs = 4000

    /// A private clawpair home for one run, removed afterwards.
    static func withHome<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = NSTemporaryDirectory() + "clawpair-hostile-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    /// Runs `body` with a started hostile gateway and a private home; the gateway is always stopped.
    static func withGateway<T>(_ scenario: String, _ arguments: [String] = [],
                               _ body: (HostileGateway, String) async throws -> T) async throws -> T {
        // Its own lifetime bound (--max-seconds) is only a safety net, long enough for a loaded
        // suite: the gateway is stopped here, whatever the body did.
        let gateway = try await startHostileGateway(scenario, arguments, maxSeconds: 600)
        do {
            let value = try await withHome { home in try await body(gateway, home) }
            await gateway.stop()
            return value
        } catch {
            await gateway.stop()
            throw error
        }
    }

    /// What one run printed, how it ended and its peak RSS.
    struct Run {
        let result: ProcessResult
        let elapsed: Duration
        /// Peak resident set size in KiB, as GNU time reports it (`wait4`'s `ru_maxrss`). Measured
        /// by /usr/bin/time, a small process that forks and execs clawpair: the test runner's
        /// own posix_spawn shares its (large) address space with the child until exec, and
        /// Linux carries that high-water mark across exec into ru_maxrss.
        let peakRSSKiB: Int?
        var status: ProcessTermination { result.status }
        var stdout: String { result.stdout }
        var stderr: String { result.stderr }
    }

    /// Runs `clawpair arguments…` with a private home and a gateway token in the environment.
    static func clawpair(_ arguments: [String], home: String) async throws -> Run {
        let environment: [String: String?] = ["CLAWPAIR_HOME": home + "/home", "HOME": home, "XDG_CONFIG_HOME": nil,
                                              "OPENCLAW_GATEWAY_TOKEN": "hostile-test-token", "NO_COLOR": "1"]
        let report = home + "/rusage-\(UUID().uuidString.prefix(8))"
        let started = ContinuousClock.now
        let result = try await Subprocess.run(["/usr/bin/time", "-o", report, "-f", "%M", ClawpairBinary.path] + arguments,
                                              environment: environment, timeout: .milliseconds(timeoutMs + Harness.hangSlackMs))
        let elapsed = ContinuousClock.now - started
        let lines = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: "\n")
        return Run(result: result, elapsed: elapsed, peakRSSKiB: lines.last.flatMap { Int($0) })
    }

    static func expectBounded(_ run: Run, _ what: String) {
        let peak = run.peakRSSKiB ?? Int.max
        #expect(peak < memoryBoundKiB, "\(what): peak RSS \(peak) KiB")
        // Only catches a hang: the command must end by itself (its own --timeout), never need killing.
        #expect(run.elapsed < .milliseconds(timeoutMs + Harness.hangSlackMs), "\(what): ran \(run.elapsed)")
    }

    @Test("huge policy numbers (tick 2^62 ms and more): the call succeeds, nothing traps")
    func hugePolicy() async throws {
        for tick in ["4611686018427387904", "9223372036854775807", "9223372036854775"] {
            try await Self.withGateway("huge-policy", ["--tick-ms", tick]) { gateway, home in
                let result = try await Self.clawpair(["devices", "list", "--json", "--url", gateway.url,
                                                                 "--timeout", String(Self.timeoutMs)], home: home)
                #expect(result.status == .exited(0), "tick \(tick): \(result.status)\n\(result.stderr)")
                #expect(result.stdout.contains("\"pending\""), "tick \(tick): \(result.stdout)")
                Self.expectBounded(result, "tick \(tick)")
            }
        }
    }

    @Test("a hello-ok protocol outside 3...4 is refused")
    func protocolOutsideRange() async throws {
        for version in ["99", "0", "-1", "2", "5"] {
            try await Self.withGateway("bad-protocol", ["--protocol", version]) { gateway, home in
                let result = try await Self.clawpair(["devices", "list", "--url", gateway.url,
                                                                 "--timeout", String(Self.timeoutMs)], home: home)
                #expect(result.status == .exited(1), "protocol \(version): \(result.status)\n\(result.stderr)")
                #expect(result.stderr.contains("the gateway chose protocol \(version), outside the requested 3–4"),
                        "protocol \(version): \(result.stderr)")
                #expect(!result.stdout.contains("Pending"), "protocol \(version): \(result.stdout)")
                Self.expectBounded(result, "protocol \(version)")
            }
        }
    }

    @Test("a ping flood from a peer that never reads: bounded memory, within --timeout", arguments: ["challenge", "hello"])
    func pingFloodDevicesList(at phase: String) async throws {
        try await Self.withGateway("ping-flood", ["--flood-at", phase, "--flood-seconds", "30"]) { gateway, home in
            let result = try await Self.clawpair(["devices", "list", "--url", gateway.url,
                                                             "--timeout", String(Self.timeoutMs)], home: home)
            #expect(result.status == .exited(1), "flood at \(phase): \(result.status)\n\(result.stderr)")
            Self.expectBounded(result, "flood at \(phase)")
            let flood = try await gateway.process.waitForLine(on: .stdout, timeout: .seconds(40), describing: "flood log") {
                $0.contains("\"flood\"")
            }
            // The flood really happened: the client read megabytes of pings before it gave up.
            let bytes = (try? JSONSerialization.jsonObject(with: Data(flood.utf8)) as? [String: Any])?["bytes"] as? Int ?? 0
            #expect(bytes >= 4 << 20, "\(flood)")
        }
    }

    @Test("probe against a ping flood before connect.challenge: bounded memory, within --timeout")
    func pingFloodProbe() async throws {
        try await Self.withGateway("ping-flood", ["--flood-at", "upgrade", "--flood-seconds", "30"]) { gateway, home in
            let result = try await Self.clawpair(["probe", "--json", gateway.url, "--timeout", String(Self.timeoutMs)],
                                                            home: home)
            #expect(result.status == .exited(3), "\(result.status)\n\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("\"timedOut\":true") || result.stdout.contains("\"timedOut\": true"), "\(result.stdout)")
            Self.expectBounded(result, "probe")
        }
    }

    @Test("a peer that never reads nor answers: the command ends with its --timeout")
    func neverRead() async throws {
        try await Self.withGateway("never-read") { gateway, home in
            let result = try await Self.clawpair(["devices", "list", "--url", gateway.url, "--timeout", "1500"], home: home)
            #expect(result.status == .exited(1), "\(result.status)\n\(result.stderr)")
            #expect(result.stderr.contains("did not send the connect response within"), "\(result.stderr)")
            Self.expectBounded(result, "never-read")
        }
    }

    @Test("while a command holds a gateway token, its core dumps are off (RLIMIT_CORE 0, soft and hard)")
    func noCoreDumps() async throws {
        try await Self.withGateway("never-read") { gateway, home in
            let environment: [String: String?] = ["CLAWPAIR_HOME": home + "/home", "HOME": home,
                                                  "OPENCLAW_GATEWAY_TOKEN": "hostile-test-token"]
            let child = try Subprocess.spawn([ClawpairBinary.path, "devices", "list", "--url", gateway.url, "--timeout", "3000"],
                                             environment: environment)
            // The gateway saw the connection: the command is past start-up and holds the token.
            _ = try await gateway.process.waitForLine(on: .stdout, timeout: .seconds(10), describing: "connection") {
                $0.contains("\"connection\"")
            }
            let limits = (try? String(contentsOfFile: "/proc/\(child.pid)/limits", encoding: .utf8)) ?? ""
            let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
                .map { $0.split(separator: " ", omittingEmptySubsequences: true) } ?? []
            #expect(core.count >= 6 && core[4] == "0" && core[5] == "0", "\(limits)")
            #expect(try await child.waitForExit(timeout: .seconds(20)) == .exited(1))
        }
    }

    @Test("--json escapes the C1 and bidi controls a gateway sends (exact value, safe terminal); userinfo is redacted")
    func jsonEscapesAndUserinfo() async throws {
        try await Self.withGateway("huge-policy", ["--tick-ms", "15000", "--hostile-names"]) { gateway, home in
            let result = try await Self.clawpair(["devices", "list", "--json", "--url", gateway.url], home: home)
            #expect(result.status == .exited(0), "\(result.status)\n\(result.stderr)")
            #expect(result.stdout.contains(#""displayName": "Evil\u009b31m \u202egnp.exe\u2066""#), "\(result.stdout)")
            let raw = result.stdout.unicodeScalars.filter { (0x80...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value) }
            #expect(raw.isEmpty, "\(result.stdout)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let pending = (object?["pending"] as? [[String: Any]])?.first
            #expect(pending?["displayName"] as? String == "Evil\u{9B}31m \u{202E}gnp.exe\u{2066}")

            for arguments in [["devices", "list", "--json", "--url", "wss://admin:hunter2@gw.example.com"],
                              ["setup-code", "decode", "--json", "wss://admin:hunter2@gw.example.com"],
                              ["probe", "--json", "wss://admin:hunter2@gw.example.com"]] {
                let rejected = try await Self.clawpair(arguments, home: home)
                #expect(rejected.status != .exited(0), "\(arguments)")
                #expect(!(rejected.stdout + rejected.stderr).contains("hunter2"), "\(arguments): \(rejected.stdout)\(rejected.stderr)")
                #expect((rejected.stdout + rejected.stderr).contains("wss://<redacted>@gw.example.com"), "\(arguments): \(rejected.stderr)")
            }
        }
    }

    @Test("a 20 MB answer is refused as too large before it is parsed; a flood of 1 MB events stays bounded")
    func hugeMessagesAndEventFloods() async throws {
        try await Self.withGateway("huge-message") { gateway, home in
            let result = try await Self.clawpair(["devices", "list", "--url", gateway.url, "--timeout", String(Self.timeoutMs)], home: home)
            #expect(result.status == .exited(1), "\(result.status)\n\(result.stderr)")
            #expect(result.stderr.contains("2097152"), "\(result.stderr)")
            Self.expectBounded(result, "huge message")
        }
        try await Self.withGateway("event-flood", ["--flood-seconds", "30"]) { gateway, home in
            let result = try await Self.clawpair(["devices", "list", "--url", gateway.url, "--timeout", String(Self.timeoutMs)], home: home)
            #expect(result.status == .exited(1), "\(result.status)\n\(result.stderr)")
            Self.expectBounded(result, "event flood")
        }
    }
}
