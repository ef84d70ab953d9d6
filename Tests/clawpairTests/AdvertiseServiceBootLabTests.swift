import ClawpairTestSupport
import Foundation
import Testing

/// packaging/systemd/clawpair-advertise.service, the user unit of `clawpair advertise`, under a
/// real user service manager: systemd booted as PID 1 of a container (``withSystemdContainer(in:binds:_:)``)
/// in the pairing lab's node host, with the container's own avahi-daemon. The unit runs as
/// packaged (ExecStart pointed at the binary under test, as `make install-units` does), with one
/// drop-in that belongs to the container, not to the unit: ProtectKernelLogs=no (a user manager
/// cannot cover systemd-nspawn's deleted /proc/kmsg FIFO; NodeServiceBootLabTests). The gateway's
/// config binds the lab's stand-in gateway (`bind: custom`), which the advertiser's health probe
/// dials: it starts, registers the beacon with avahi-daemon, and `systemctl --user stop` ends it
/// with exit status 0.
@Suite("clawpair-advertise.service under a booted systemd (network lab)", .serialized, .networkLab)
struct AdvertiseServiceBootLabTests {
    typealias Pairing = GatewayPairingLabTests
    static let unit = "clawpair-advertise.service"

    @Test("the advertise user unit starts, registers the gateway's beacon with avahi-daemon, and stops with exit status 0")
    func userUnit() async throws {
        try await Pairing.withPairingLab { lab in
            // The packaged unit (ExecStart at the binary under test) and the gateway's config, bound into the container.
            let files = try lab.nodeHost.lab.makeDirectory("advertise-unit")
            let packaged = try String(contentsOf: SpecFiles.packageRoot.appendingPathComponent("packaging/systemd/\(Self.unit)"),
                                      encoding: .utf8)
            #expect(packaged.contains("ExecStart=/usr/bin/clawpair advertise --from-openclaw-config\n"))
            try packaged.replacingOccurrences(of: "ExecStart=/usr/bin/clawpair ", with: "ExecStart=/usr/local/bin/clawpair ")
                .write(toFile: "\(files)/\(Self.unit)", atomically: true, encoding: .utf8)
            try "[Service]\nProtectKernelLogs=no\n".write(toFile: "\(files)/nspawn.conf", atomically: true, encoding: .utf8)
            try "{ gateway: { port: \(Pairing.port), bind: 'custom', customBindHost: '\(lab.gatewayIP)' } }\n"
                .write(toFile: "\(files)/openclaw.json", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: files)

            try await withSystemdContainer(in: lab.nodeHost, binds: [files]) { container in
                // The container's own avahi-daemon (its system bus, the lab's network namespace).
                try await container.require(["systemctl", "start", "avahi-daemon.service"])
                let user = "gatewayuser"
                try await container.require(["useradd", "--create-home", "--user-group", "--shell", "/bin/sh", user])
                let home = "/home/\(user)"
                try await container.require(["install", "-d", "-o", user, "-g", user, "\(home)/.openclaw", "\(home)/.config",
                                             "\(home)/.config/systemd", "\(home)/.config/systemd/user",
                                             "\(home)/.config/systemd/user/\(Self.unit).d"])
                try await container.require(["install", "-o", user, "-g", user, "-m", "0600", "\(files)/openclaw.json", "\(home)/.openclaw/"])
                try await container.require(["install", "-o", user, "-g", user, "-m", "0644", "\(files)/\(Self.unit)",
                                             "\(home)/.config/systemd/user/"])
                try await container.require(["install", "-o", user, "-g", user, "-m", "0644", "\(files)/nspawn.conf",
                                             "\(home)/.config/systemd/user/\(Self.unit).d/"])
                let uid = try await container.require(["id", "-u", user]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                try await container.require(["loginctl", "enable-linger", user])
                try await container.require(["systemctl", "start", "user@\(uid).service"], timeout: .seconds(120))
                let environment = ["HOME": home, "USER": user, "XDG_RUNTIME_DIR": "/run/user/\(uid)"]
                func systemctl(_ arguments: [String]) async throws -> ProcessResult {
                    try await container.require(["systemctl", "--user"] + arguments, user: user, environment: environment)
                }
                func show(_ properties: [String]) async throws -> [String: String] {
                    let result = try await systemctl(["show", Self.unit, "--property=" + properties.joined(separator: ",")])
                    var values: [String: String] = [:]
                    for line in result.stdout.split(separator: "\n") {
                        guard let eq = line.firstIndex(of: "=") else { continue }
                        values[String(line[..<eq])] = String(line[line.index(after: eq)...])
                    }
                    return values
                }

                try await systemctl(["daemon-reload"])
                try await systemctl(["start", Self.unit])
                // It probes the gateway, then registers: "Advertising …" in its journal.
                var journal = ""
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    journal = await container.journal(Self.unit, userUnit: true)
                    if journal.contains("Advertising \"") { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(journal.contains("Advertising \"") && journal.contains("(_openclaw-gw._tcp, port \(Pairing.port)"), "\(journal)")
                let running = try await show(["ActiveState", "SubState", "NRestarts", "MainPID"])
                let pid = try #require(running["MainPID"])
                #expect(running == ["ActiveState": "active", "SubState": "running", "NRestarts": "0", "MainPID": pid], "\(running)\n\(journal)")
                // The user manager's sandbox is in force (unprivileged, a seccomp filter, a private /dev), and its /proc
                // has no hidepid=: what ProtectProc= would have claimed, a user manager does not do (systemd.exec(5)).
                let process = try await container.require(["cat", "/proc/\(pid)/status"]).stdout
                #expect(process.contains("Uid:\t\(uid)\t") && process.contains("NoNewPrivs:\t1\n") && process.contains("Seccomp:\t2\n"), "\(process)")
                let table = try await container.require(["cat", "/proc/\(pid)/mountinfo"]).stdout.split(separator: "\n")
                let mounted = { (path: String) in table.last { $0.split(separator: " ").dropFirst(4).first.map(String.init) == path } }
                #expect(mounted("/dev")?.contains(" - tmpfs ") == true, "PrivateDevices: \(table)")
                #expect(mounted("/proc").map { !$0.contains("hidepid=") } == true, "\(table)")

                // avahi-daemon holds the registration: its own browser lists the beacon, with the unit's TXT.
                let browse = try await container.require(["avahi-browse", "--parsable", "--terminate", "--resolve", "--no-db-lookup",
                                                          "_openclaw-gw._tcp"])
                let resolved = browse.stdout.split(separator: "\n").filter { $0.hasPrefix("=") }
                #expect(resolved.contains { $0.contains(";\(Pairing.port);") && $0.contains("\"gatewayPort=\(Pairing.port)\"")
                            && $0.contains("\"gatewayDirectReachable=1\"") }, "\(browse)")

                // systemctl --user stop: SIGTERM, the registration is withdrawn, exit status 0 (no failure, no restart).
                try await systemctl(["stop", Self.unit])
                let stopped = try await show(["ActiveState", "Result", "ExecMainStatus"])
                let ended = await container.journal(Self.unit, userUnit: true)
                #expect(stopped == ["ActiveState": "inactive", "Result": "success", "ExecMainStatus": "0"], "\(stopped)\n\(ended)")
                #expect(ended.contains("Withdrawn \""), "\(ended)")
                // Gone from the network too: the goodbye (TTL 0) empties avahi's cache within a second (RFC 6762 §10.1).
                var after = try await container.require(["avahi-browse", "--parsable", "--terminate", "--no-db-lookup", "_openclaw-gw._tcp"])
                let gone = ContinuousClock.now + .seconds(20)
                while after.stdout.split(separator: "\n").contains(where: { $0.hasPrefix("+") }) && ContinuousClock.now < gone {
                    try await Task.sleep(for: .milliseconds(250))
                    after = try await container.require(["avahi-browse", "--parsable", "--terminate", "--no-db-lookup", "_openclaw-gw._tcp"])
                }
                #expect(!after.stdout.split(separator: "\n").contains { $0.hasPrefix("+") }, "\(after)")
            }
        }
    }
}
