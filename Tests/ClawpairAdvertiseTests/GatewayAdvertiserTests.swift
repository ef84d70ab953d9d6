import ClawpairAdvertise
import ClawpairCore
import Testing

/// The advertiser loop on a ManualClock with a scripted gateway and a fake daemon: no sockets,
/// no waiting.
@Suite struct GatewayAdvertiserTests {
    /// Seconds since the start of the run.
    final class Script {
        let clock = ManualClock()
        let start: Monotonic.Instant
        init() { start = clock.now }
        var seconds: Double { Double((clock.now - start).nanoseconds) / 1e9 }
    }

    /// Answers except during the given windows (seconds).
    struct ScriptedGateway: GatewayHealthCheck {
        let script: Script
        let down: [ClosedRange<Double>]
        func check(_ settings: AdvertiseSettings) -> GatewayHealth {
            down.contains { $0.contains(script.seconds) }
                ? GatewayHealth(answering: false, detail: "connection refused")
                : GatewayHealth(answering: true, fingerprint: settings.tls ? "fp" : nil)
        }
    }

    final class FakeRegistration: ServiceRegistration {
        let state: RegistrationState
        let onWithdraw: () -> Void
        init(_ state: RegistrationState, onWithdraw: @escaping () -> Void) {
            self.state = state
            self.onWithdraw = onWithdraw
        }
        var descriptor: Int32 { -1 }
        func process() throws(ClawpairErrorBox) {}
        func withdraw() { onWithdraw() }
    }

    /// Registers at once; names in `taken` conflict. Logs "register NAME:PORT@t" and "withdraw@t".
    final class FakeDaemon: ServiceRegistrar {
        let script: Script
        var taken: Set<String>
        var log: [String] = []
        init(_ script: Script, taken: Set<String> = []) {
            self.script = script
            self.taken = taken
        }
        func register(name: String, type: String, port: UInt16, txt: [[UInt8]]) throws(ClawpairErrorBox) -> any ServiceRegistration {
            log.append("register \(name):\(port)@\(Int(script.seconds))")
            let state: RegistrationState = taken.contains(name) ? .conflict : .registered(name)
            var withdrawn = false
            return FakeRegistration(state) { [self] in
                if !withdrawn, !taken.contains(name) { log.append("withdraw@\(Int(script.seconds))") }
                withdrawn = true
            }
        }
    }

    func advertiser(_ script: Script, daemon: FakeDaemon, gateway: (any GatewayHealthCheck)?,
                    load: @escaping () throws(ClawpairErrorBox) -> AdvertiseSettings,
                    events: @escaping (AdvertiserEvent) -> Void) throws -> GatewayAdvertiser {
        try GatewayAdvertiser(
            serviceType: "_openclaw-gw._tcp", load: load,
            compose: { (settings, health) throws(ClawpairErrorBox) in
                try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(), osHostname: "lab")
            },
            healthCheck: gateway, registrar: daemon, clock: script.clock, events: events)
    }

    func names(_ events: [AdvertiserEvent]) -> [String] {
        events.map {
            switch $0 {
            case .waiting: return "waiting"
            case let .registered(name, _): return "registered \(name)"
            case .gatewayDown(let name, let detail): return "down \(name): \(detail)"
            case .configChanged(let name): return "changed \(name)"
            case .configUnreadable(let message): return "unreadable: \(message)"
            case .withdrawn(let name): return "withdrawn \(name)"
            }
        }
    }

    @Test("advertises while the gateway answers, withdraws after two failed checks, returns with it")
    func healthGated() throws {
        let script = Script()
        let daemon = FakeDaemon(script)
        var events: [AdvertiserEvent] = []
        let settings = AdvertiseSettings(port: 18789)
        let subject = try advertiser(script, daemon: daemon, gateway: ScriptedGateway(script: script, down: [18...37]),
                                     load: { settings }, events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 47 })
        // Checks every 5 s: down at 20 (one failure, kept) and 25 (withdrawn), up again at 40.
        #expect(daemon.log == ["register lab (OpenClaw):18789@0", "withdraw@25", "register lab (OpenClaw):18789@40", "withdraw@47"])
        #expect(names(events) == ["waiting", "registered lab (OpenClaw)", "down lab (OpenClaw): connection refused",
                                  "registered lab (OpenClaw)", "withdrawn lab (OpenClaw)"])
    }

    @Test("waits for a gateway that is not up yet")
    func waitsForTheGateway() throws {
        let script = Script()
        let daemon = FakeDaemon(script)
        var events: [AdvertiserEvent] = []
        let subject = try advertiser(script, daemon: daemon, gateway: ScriptedGateway(script: script, down: [0...12]),
                                     load: { AdvertiseSettings(port: 18789) }, events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 20 })
        #expect(daemon.log == ["register lab (OpenClaw):18789@15", "withdraw@20"])
        #expect(names(events) == ["waiting", "registered lab (OpenClaw)", "withdrawn lab (OpenClaw)"])
    }

    @Test("a changed config replaces the beacon; an unreadable one keeps the last good one")
    func followsTheConfig() throws {
        let script = Script()
        let daemon = FakeDaemon(script)
        var events: [AdvertiserEvent] = []
        let subject = try advertiser(script, daemon: daemon, gateway: ScriptedGateway(script: script, down: []), load: {
            () throws(ClawpairErrorBox) -> AdvertiseSettings in
            switch script.seconds {
            case ..<12: return AdvertiseSettings(port: 18789)
            case ..<22: return AdvertiseSettings(port: 19000, tls: true)
            default: throw ClawpairErrorBox(AdvertiseSettingsError.noConfig(path: "/etc/openclaw.json"))
            }
        }, events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 31 })
        #expect(daemon.log == ["register lab (OpenClaw):18789@0", "withdraw@15", "register lab (OpenClaw):19000@15", "withdraw@31"])
        #expect(names(events) == ["waiting", "registered lab (OpenClaw)", "changed lab (OpenClaw)", "registered lab (OpenClaw)",
                                  "unreadable: no OpenClaw config at /etc/openclaw.json", "withdrawn lab (OpenClaw)"])
        guard case let .registered(_, plan) = events[3] else { Issue.record("\(events)"); return }
        #expect(plan.txt.contains(TXTPair("gatewayTlsSha256", "fp")), "the observed fingerprint is advertised")
    }

    @Test("a reload request re-reads the config at once")
    func reloadOnRequest() throws {
        let script = Script()
        let daemon = FakeDaemon(script)
        var port = 18789
        var reloads = 0
        let subject = try advertiser(script, daemon: daemon, gateway: nil, load: { AdvertiseSettings(port: port) }, events: { _ in })
        try subject.run(stop: { script.seconds >= 3 }, reload: {
            // One reload request at 1 s, after the port changed.
            guard script.seconds >= 1, reloads == 0 else { return false }
            reloads += 1
            port = 19001
            return true
        })
        #expect(daemon.log == ["register lab (OpenClaw):18789@0", "withdraw@1", "register lab (OpenClaw):19001@1", "withdraw@3"])
    }

    @Test("a name taken on this daemon moves to Avahi's next name")
    func conflicts() throws {
        let script = Script()
        let daemon = FakeDaemon(script, taken: ["lab (OpenClaw)", "lab (OpenClaw) #2"])
        var events: [AdvertiserEvent] = []
        let subject = try advertiser(script, daemon: daemon, gateway: nil, load: { AdvertiseSettings(port: 18789) },
                                     events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 1 })
        #expect(daemon.log == ["register lab (OpenClaw):18789@0", "register lab (OpenClaw) #2:18789@0",
                               "register lab (OpenClaw) #3:18789@0", "withdraw@1"])
        guard case let .registered(name, plan) = events.first else { Issue.record("\(events)"); return }
        #expect(name == "lab (OpenClaw) #3")
        #expect(plan.name == "lab (OpenClaw)")
    }

    @Test("gives up after too many conflicts")
    func tooManyConflicts() throws {
        let script = Script()
        let taken = Set(["lab (OpenClaw)"] + (2...40).map { "lab (OpenClaw) #\($0)" })
        let daemon = FakeDaemon(script, taken: taken)
        let subject = try advertiser(script, daemon: daemon, gateway: nil, load: { AdvertiseSettings(port: 18789) }, events: { _ in })
        let error = #expect(throws: ClawpairErrorBox.self) { try subject.run(stop: { script.seconds >= 10 }) }
        #expect(error?.message == "every name up to \"lab (OpenClaw) #33\" is taken on this network")
    }

    @Test("a stop request reported once (a signal taken from the queue) is not lost")
    func stopReportedOnce() throws {
        let script = Script()
        let daemon = FakeDaemon(script)
        var fired = false
        var calls = 0
        let subject = try advertiser(script, daemon: daemon, gateway: ScriptedGateway(script: script, down: [0...1000]),
                                     load: { AdvertiseSettings(port: 18789) }, events: { _ in })
        try subject.run(stop: {
            // Asked at the top of each round and again by the clock's sleep: fire on a sleep's question.
            calls += 1
            if script.seconds >= 7, !fired, calls % 2 == 0 {
                fired = true
                return true
            }
            return script.seconds >= 1000 // a lost request would end the run only here
        })
        #expect(script.seconds < 8, "the run ended at \(script.seconds) s")
    }
}
