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
        func register(name: String, type: String, plan: ServicePlan) throws(ClawpairErrorBox) -> any ServiceRegistration {
            log.append("register \(name):\(plan.port)@\(Int(script.seconds))")
            let state: RegistrationState = taken.contains(name) ? .conflict : .registered(name)
            var withdrawn = false
            return FakeRegistration(state) { [self] in
                if !withdrawn, !taken.contains(name) { log.append("withdraw@\(Int(script.seconds))") }
                withdrawn = true
            }
        }
    }

    func advertiser(_ script: Script, daemon: FakeDaemon, gateway: (any GatewayHealthCheck)?,
                    schedule: AdvertiserSchedule = AdvertiserSchedule(),
                    load: @escaping () throws(ClawpairErrorBox) -> AdvertiseSettings,
                    events: @escaping (AdvertiserEvent) -> Void) throws -> GatewayAdvertiser {
        try GatewayAdvertiser(
            serviceType: "_openclaw-gw._tcp", load: load,
            compose: { (settings, health) throws(ClawpairErrorBox) in
                try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(), osHostname: "lab")
            },
            healthCheck: gateway, registrar: daemon, clock: script.clock, schedule: schedule, events: events)
    }

    func names(_ events: [AdvertiserEvent]) -> [String] {
        events.map {
            switch $0 {
            case .waiting: return "waiting"
            case let .registered(name, _, _): return "registered \(name)"
            case let .renamed(from, to, count, limit): return "renamed \(from) -> \(to) \(count)/\(limit)"
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
        guard case let .registered(_, plan, _) = events[3] else { Issue.record("\(events)"); return }
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

    @Test("a taken name moves to Avahi's next name, and every rename is reported with its count")
    func conflicts() throws {
        let script = Script()
        let daemon = FakeDaemon(script, taken: ["lab (OpenClaw)", "lab (OpenClaw) #2"])
        var events: [AdvertiserEvent] = []
        let subject = try advertiser(script, daemon: daemon, gateway: nil, load: { AdvertiseSettings(port: 18789) },
                                     events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 1 })
        #expect(daemon.log == ["register lab (OpenClaw):18789@0", "register lab (OpenClaw) #2:18789@0",
                               "register lab (OpenClaw) #3:18789@0", "withdraw@1"])
        #expect(names(events) == ["renamed lab (OpenClaw) -> lab (OpenClaw) #2 1/32", "renamed lab (OpenClaw) #2 -> lab (OpenClaw) #3 2/32",
                                  "registered lab (OpenClaw) #3", "withdrawn lab (OpenClaw) #3"])
        guard case let .registered(name, plan, _) = events[2] else { Issue.record("\(events)"); return }
        #expect(name == "lab (OpenClaw) #3")
        #expect(plan.name == "lab (OpenClaw)")
    }

    @Test("gives up after the 32nd rename (the default limit), having reported each")
    func tooManyConflicts() throws {
        let script = Script()
        let taken = Set(["lab (OpenClaw)"] + (2...40).map { "lab (OpenClaw) #\($0)" })
        let daemon = FakeDaemon(script, taken: taken)
        var events: [AdvertiserEvent] = []
        let subject = try advertiser(script, daemon: daemon, gateway: nil, load: { AdvertiseSettings(port: 18789) },
                                     events: { events.append($0) })
        let error = #expect(throws: ClawpairErrorBox.self) { try subject.run(stop: { script.seconds >= 10 }) }
        #expect(error?.message == "every name up to \"lab (OpenClaw) #33\" is taken on this network; gave up renaming")
        #expect(error?.code == "name-conflict")
        #expect(daemon.log.count == 33, "the name and 32 renames were tried: \(daemon.log)")
        let renames = names(events)
        #expect(renames.count == 32)
        #expect(renames.first == "renamed lab (OpenClaw) -> lab (OpenClaw) #2 1/32")
        #expect(renames.last == "renamed lab (OpenClaw) #32 -> lab (OpenClaw) #33 32/32")
    }

    @Test("a smaller limit stops sooner; a limit of 0 never renames")
    func smallerLimit() throws {
        for limit in [0, 3] {
            let script = Script()
            let daemon = FakeDaemon(script, taken: Set(["lab (OpenClaw)"] + (2...9).map { "lab (OpenClaw) #\($0)" }))
            var events: [AdvertiserEvent] = []
            let subject = try advertiser(script, daemon: daemon, gateway: nil, schedule: AdvertiserSchedule(maxRenames: limit),
                                         load: { AdvertiseSettings(port: 18789) }, events: { events.append($0) })
            let error = #expect(throws: ClawpairErrorBox.self) { try subject.run(stop: { script.seconds >= 10 }) }
            let last = limit == 0 ? "lab (OpenClaw)" : "lab (OpenClaw) #\(limit + 1)"
            #expect(error?.message == "every name up to \"\(last)\" is taken on this network; gave up renaming")
            #expect(events.count == limit)
        }
    }

    @Test("a collision after the name was established renames too (another host claimed it later)")
    func laterCollision() throws {
        let script = Script()
        final class Flipping: ServiceRegistration {
            let clock: ManualClock
            let flipAt: Monotonic.Instant
            init(clock: ManualClock, flipAt: Monotonic.Instant) {
                self.clock = clock
                self.flipAt = flipAt
            }
            var state: RegistrationState { clock.now >= flipAt ? .conflict : .registered("lab (OpenClaw)") }
            func withdraw() {}
        }
        final class Daemon: ServiceRegistrar {
            let script: Script
            var names: [String] = []
            init(_ script: Script) { self.script = script }
            func register(name: String, type: String, plan: ServicePlan) throws(ClawpairErrorBox) -> any ServiceRegistration {
                names.append(name)
                if names.count == 1 { return Flipping(clock: script.clock, flipAt: script.start + .seconds(2)) }
                return FakeRegistration(.registered(name)) {}
            }
        }
        let daemon = Daemon(script)
        var events: [AdvertiserEvent] = []
        let subject = try GatewayAdvertiser(
            serviceType: "_openclaw-gw._tcp", load: { AdvertiseSettings(port: 18789) },
            compose: { (settings, health) throws(ClawpairErrorBox) in
                try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(), osHostname: "lab")
            },
            healthCheck: nil, registrar: daemon, clock: script.clock, events: { events.append($0) })
        try subject.run(stop: { script.seconds >= 4 })
        #expect(daemon.names == ["lab (OpenClaw)", "lab (OpenClaw) #2"])
        #expect(names(events) == ["registered lab (OpenClaw)", "renamed lab (OpenClaw) -> lab (OpenClaw) #2 1/32",
                                  "registered lab (OpenClaw) #2", "withdrawn lab (OpenClaw) #2"])
    }

    @Test("a host name taken by another host stops the advertiser with its own error")
    func hostConflict() throws {
        let script = Script()
        final class Daemon: ServiceRegistrar {
            func register(name: String, type: String, plan: ServicePlan) throws(ClawpairErrorBox) -> any ServiceRegistration {
                FakeRegistration(.hostConflict) {}
            }
        }
        let subject = try GatewayAdvertiser(
            serviceType: "_openclaw-gw._tcp", load: { AdvertiseSettings(port: 18789) },
            compose: { (settings, health) throws(ClawpairErrorBox) in
                try ServicePlan.beacon(settings, health: health, overrides: BeaconOverrides(hostLabel: "gw-1"), osHostname: "lab")
            },
            healthCheck: nil, registrar: Daemon(), clock: script.clock, events: { _ in })
        let error = #expect(throws: ClawpairErrorBox.self) { try subject.run(stop: { script.seconds >= 4 }) }
        #expect(error?.code == "host-name-taken")
        #expect(error?.message == "the host name gw-1.local is taken by another machine on this network")
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
