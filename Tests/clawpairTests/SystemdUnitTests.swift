import ClawpairTestSupport
import Foundation
import Testing

/// The systemd units of packaging/systemd: installed by `make install-units` and accepted by
/// `systemd-analyze verify`; and, since systemd is not PID 1 here, the unit file's own
/// `ExecStart` and `ExecReload` (parsed from the file, specifiers expanded) run in a lab host
/// against a stand-in gateway that is started and stopped under it.
@Suite("systemd units", .serialized)
struct SystemdUnitTests {
    static let systemUnit = SpecFiles.packageRoot.appendingPathComponent("packaging/systemd/clawpair-advertise@.service").path
    static let userUnit = SpecFiles.packageRoot.appendingPathComponent("packaging/systemd/clawpair-advertise.service").path

    /// Runs `make install-units PREFIX=<a fresh temporary directory>` and puts the binary under test
    /// at `<prefix>/bin/clawpair`, where the installed units' ExecStart points; returns the prefix
    /// (the caller removes it).
    static func installUnits(name: String) throws -> String {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())-\(UUID())").path
        let make = try ClawpairBinary.runProgram("/usr/bin/make", ["-s", "-C", SpecFiles.packageRoot.path, "install-units",
                                                                   "PREFIX=\(prefix)"])
        #expect(make.status == 0 && make.stderr.isEmpty, "\(make)")
        try FileManager.default.createDirectory(atPath: "\(prefix)/bin", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ClawpairBinary.path, toPath: "\(prefix)/bin/clawpair")
        return prefix
    }

    @Test("make install-units installs both units, and systemd-analyze verify accepts them")
    func installAndVerify() throws {
        let prefix = try Self.installUnits(name: "clawpair-units")
        defer { try? FileManager.default.removeItem(atPath: prefix) }

        let system = "\(prefix)/lib/systemd/system/clawpair-advertise@.service"
        let user = "\(prefix)/lib/systemd/user/clawpair-advertise.service"
        for path in [system, user] {
            let unit = try SystemdUnit(path: path)
            #expect(unit.value("Service", "ExecStart") == "\(prefix)/bin/clawpair advertise --from-openclaw-config", "\(path)")
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o644, "\(path)")
        }
        let runtime = "\(prefix)/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let env = ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime]
        let verifySystem = try ClawpairBinary.runProgram("/usr/bin/systemd-analyze", ["verify", "--man=no", system], environment: env)
        #expect(verifySystem.status == 0 && verifySystem.stderr.isEmpty, "\(verifySystem)")
        let verifyUser = try ClawpairBinary.runProgram("/usr/bin/systemd-analyze", ["--user", "verify", "--man=no", user], environment: env)
        #expect(verifyUser.status == 0 && verifyUser.stderr.isEmpty, "\(verifyUser)")
    }

    @Test("both units run the advertiser from the gateway's config, reload with SIGHUP and install into targets")
    func unitContents() throws {
        let system = try SystemdUnit(path: Self.systemUnit)
        let user = try SystemdUnit(path: Self.userUnit)
        for unit in [system, user] {
            #expect(try unit.command("ExecStart") == ["/usr/bin/clawpair", "advertise", "--from-openclaw-config"], "\(unit.path)")
            #expect(try unit.command("ExecReload", mainPID: 42) == ["/bin/kill", "-HUP", "42"], "\(unit.path)")
            #expect(unit.value("Service", "Restart") == "on-failure")
        }
        #expect(system.value("Service", "User") == "%i", "the instance names the gateway's user")
        #expect(system.value("Unit", "After")?.contains("avahi-daemon.service") == true)
        #expect(system.value("Install", "WantedBy") == "multi-user.target")
        #expect(user.value("Install", "WantedBy") == "default.target")
    }

    /// The overall exposure `systemd-analyze security --offline=true` gives the unit file at
    /// `path`, installed as `name` (with `--user` for a user unit), and its report.
    static func exposure(_ path: String, as name: String, user: Bool) throws -> (score: Double?, report: String) {
        let scratch = NSTemporaryDirectory() + "clawpair-advertise-exposure-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: scratch + "/run", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.copyItem(atPath: path, toPath: scratch + "/" + name)
        // A user manager's analysis needs a runtime directory (any will do offline).
        let result = try ClawpairBinary.runProgram("/usr/bin/systemd-analyze",
                                                   (user ? ["--user"] : []) + ["security", "--offline=true", "--no-pager", scratch + "/" + name],
                                                   environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": scratch + "/run"])
        let line = result.stdout.split(separator: "\n").first { $0.contains("Overall exposure level") }.map(String.init) ?? ""
        let score = (line.components(separatedBy: ".service: ").dropFirst().first ?? "").split(separator: " ").first.flatMap { Double($0) }
        return (score, "\(line)\n\(result)")
    }

    @Test("the system unit's exposure in systemd-analyze security --offline=true is at most 2.0")
    func systemUnitExposure() throws {
        // An instance of the template, as `systemctl enable clawpair-advertise@alice` makes it.
        let (score, report) = try Self.exposure(Self.systemUnit, as: "clawpair-advertise@alice.service", user: false)
        #expect(score != nil, "\(report)")
        #expect((score ?? 10) <= 2.0, "\(report)")
        // What it needs: the network, D-Bus, and netlink for the interface addresses.
        let unit = try SystemdUnit(path: Self.systemUnit)
        #expect(unit.value("Service", "RestrictAddressFamilies") == "AF_UNIX AF_INET AF_INET6 AF_NETLINK")
    }

    @Test("the user unit's exposure in systemd-analyze --user security --offline=true is at most 2.0 (1.7: no User=, no ProtectProc= in a user unit)")
    func userUnitExposure() throws {
        let (score, report) = try Self.exposure(Self.userUnit, as: "clawpair-advertise.service", user: true)
        #expect(score != nil, "\(report)")
        #expect((score ?? 10) <= 2.0, "\(report)")
        let unit = try SystemdUnit(path: Self.userUnit)
        // A user's service manager cannot apply ProtectProc= (systemd.exec(5): "not supported for services
        // running in per-user instances of the service manager"): the unit does not claim it. The system unit does.
        #expect(unit.value("Service", "ProtectProc") == nil, "a user unit cannot apply ProtectProc=")
        #expect(try SystemdUnit(path: Self.systemUnit).value("Service", "ProtectProc") == "invisible")
        #expect(unit.value("Service", "RestrictAddressFamilies") == "AF_UNIX AF_INET AF_INET6 AF_NETLINK")
        #expect(unit.value("Service", "ProtectHome") == "read-only", "it reads ~/.openclaw/openclaw.json")
    }

    @Test("the system unit's ExecStart advertises a stand-in gateway while it runs and withdraws it when it stops",
          .networkLab)
    func unitRunsTheAdvertiser() async throws {
        try await withNetworkLab { lab in
            let (a, b, bus, avahi) = try await lab.startAvahiLink()
            let home = try lab.makeDirectory("home-alice")
            try FileManager.default.createDirectory(atPath: "\(home)/.openclaw", withIntermediateDirectories: true)
            let config = "\(home)/.openclaw/openclaw.json"
            try "{ gateway: { port: 18796, bind: 'lan' } }\n".write(toFile: config, atomically: true, encoding: .utf8)

            let unit = try SystemdUnit(path: Self.systemUnit)
            var command = try unit.command("ExecStart", instance: "alice", user: "alice", home: home)
            // The package's path of the binary is the only thing replaced: the binary under test.
            #expect(command.first == "/usr/bin/clawpair")
            command[0] = ClawpairBinary.path
            // systemd gives User= its HOME; the config path comes from there.
            let environment: [String: String?] = ["HOME": home, "DBUS_SYSTEM_BUS_ADDRESS": bus.address,
                                                  "OPENCLAW_CONFIG_PATH": nil, "OPENCLAW_STATE_DIR": nil, "OPENCLAW_GATEWAY_PORT": nil]
            let service = try a.spawn(command, environment: environment, label: "clawpair-advertise@alice")
            _ = try await service.waitForLine(containing: "Waiting for the gateway at ws://127.0.0.1:18796", on: .stderr, timeout: .seconds(10))

            let zeroconf = try await lab.startZeroconfBrowser(in: b)
            let gateway = try await startTestGateway(TestGatewayOptions(hosts: ["127.0.0.1"], port: 18796), in: a)
            let line = try await service.waitForLine(containing: "Advertising", timeout: .seconds(20))
            #expect(line.hasSuffix("(_openclaw-gw._tcp, port 18796, host \(avahi.hostName), every interface) until interrupted."), "\(line)")
            let instance = String(line.dropFirst("Advertising \"".count).prefix { $0 != "\"" })
            let seen = try await zeroconf.waitForService(instance: instance, timeout: .seconds(10))
            #expect(seen.port == 18796 && seen.txt["gatewayDirectReachable"] == "1")

            // systemctl reload: the unit's ExecReload, with $MAINPID the service's pid. It keeps running.
            try "{ gateway: { port: 18796, bind: 'lan' }, plugins: { entries: { bonjour: { config: { instanceName: 'Alice Gateway' } } } } }\n"
                .write(toFile: config, atomically: true, encoding: .utf8)
            let reload = try await a.run(try unit.command("ExecReload", mainPID: service.pid))
            #expect(reload.status == .exited(0), "\(reload.stderr)")
            let renamed = try await service.waitForLine(containing: "Advertising \"Alice Gateway (OpenClaw)\"", timeout: .seconds(10))
            #expect(renamed == "Advertising \"Alice Gateway (OpenClaw)\" (_openclaw-gw._tcp, port 18796, host \(avahi.hostName), "
                    + "every interface) until interrupted.")
            #expect(!service.hasExited)

            await gateway.stop()
            let down = try await service.waitForLine(containing: "stopped answering", on: .stderr, timeout: .seconds(30))
            #expect(down.hasSuffix("withdrew \"Alice Gateway (OpenClaw)\" until it answers"), "\(down)")

            // systemctl stop: SIGTERM (KillSignal's default); the service ends cleanly, so Restart=on-failure does not fire.
            let ending = await service.terminate()
            #expect(ending == .exited(0), "\(String(describing: ending)): \(service.stderr)")
        }
    }
}
