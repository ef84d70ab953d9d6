import ClawpairTestSupport
import Foundation
import Testing

/// `clawpair node install` under a real service manager: systemd booted as PID 1 of a container
/// (``withSystemdContainer(in:binds:_:)``: systemd-nspawn on an overlay of this machine's root) in
/// the pairing lab's node host. The node is paired outside, then inside the container `node install`
/// writes and enables the unit, systemd starts it (Type=notify: `enable --now` returns once READY=1
/// arrived), the stand-in gateway sees the node connect, `node status` reports it, `systemctl stop`
/// ends it with exit status 0 after a close 1000, and `node uninstall` removes the unit. A unit
/// whose store was removed after installing starts, and `node run` says what is missing and exits
/// 78 (no restart loop).
///
/// Both units run exactly as `node install` writes them, every sandbox setting enforced by systemd
/// (checked in the service's own mount table). One thing here belongs to the container, not to
/// the unit: systemd-nspawn makes the container's /proc/kmsg a bind mount of a FIFO it has already
/// deleted (its kmsg bridge to journald). A user manager cannot mount a fresh procfs (PrivateUsers=,
/// and nspawn's overmounts of /proc forbid it), so for ProtectKernelLogs= it bind-mounts the
/// container's /proc and then fails to cover that dead /proc/kmsg: "Failed to mount
/// /run/user/UID/systemd/inaccessible/fifo to /run/systemd/unit-root/proc/kmsg: No such file or
/// directory", 226/NAMESPACE. (A system manager mounts a fresh procfs and is not affected.) On a
/// machine booted with systemd /proc/kmsg is procfs' own file. The user test sees that failure
/// (and `node install`'s hint for it), then unmounts nspawn's FIFO inside the container: the
/// unchanged user unit starts and its /proc/kmsg is covered. (In a container one keeps the
/// bridge and adds a drop-in with ProtectKernelLogs=no instead, as the hint and
/// docs/running-nodes.md say.)
@Suite("clawpair node install under a booted systemd (network lab)", .serialized, .networkLab)
struct NodeServiceBootLabTests {
    typealias Pairing = GatewayPairingLabTests
    static let unit = "clawpair-node.service"

    /// `systemctl [--user] show UNIT` as a dictionary of the named properties.
    static func show(_ container: SystemdContainer, _ properties: [String], user: String? = nil,
                     environment: [String: String] = [:]) async throws -> [String: String] {
        let result = try await container.require(["systemctl"] + (user == nil ? [] : ["--user"])
                                                 + ["show", unit, "--property=" + properties.joined(separator: ",")],
                                                 user: user, environment: environment)
        var values: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            values[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return values
    }

    /// The mount table of the unit's main process, as systemd set it up.
    static func mounts(_ container: SystemdContainer, pid: String) async throws -> [String] {
        try await container.require(["cat", "/proc/\(pid)/mountinfo"]).stdout.split(separator: "\n").map(String.init)
    }

    /// The mount table line for `path` that is in effect (the last one mounted there).
    static func mount(_ table: [String], at path: String) -> String? {
        table.last { $0.split(separator: " ").dropFirst(4).first.map(String.init) == path }
    }

    /// `node status --json` until it reports `connected` (the node writes its state on each
    /// change; READY=1 comes before the connection), bounded.
    static func statusConnected(_ container: SystemdContainer, user: String? = nil,
                                environment: [String: String]) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = ""
        while ContinuousClock.now < deadline {
            let result = try await container.run(["clawpair", "node", "status", "--json"], user: user, environment: environment)
            last = "\(result)"
            if result.status.isSuccess, let status = try? Pairing.json(result.stdout), status["state"] as? String == "connected" {
                return status
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestError("node status never said connected: \(last)")
    }

    @Test("node install --system: systemd starts it (READY), it connects sandboxed, node status reports it, stop exits 0 with close 1000, uninstall removes it")
    func systemService() async throws {
        try await Pairing.withPairingLab { lab in
            let home = try await NodeRunLabTests.pairNode(lab, name: "boot-node")
            // A default route through the lab link (to the gateway's host, which routes nowhere):
            // device.status then finds a satisfied network from /proc/net/route inside the sandbox.
            try await lab.nodeHost.ip("route", "add", "default", "via", lab.gatewayIP)
            try await withSystemdContainer(in: lab.nodeHost, binds: [home]) { container in
                let install = try await container.run(["clawpair", "node", "install", "--system", "--json"],
                                                      environment: ["CLAWPAIR_HOME": home])
                let journal = install.status.isSuccess ? "" : await container.journal(Self.unit)
                #expect(install.status.isSuccess, "\(install)\n\(journal)")
                let installed = try Pairing.json(install.stdout)
                #expect(installed["ok"] as? Bool == true && installed["kind"] as? String == "system")
                #expect(installed["unit"] as? String == "/etc/systemd/system/\(Self.unit)")
                #expect(try await container.run(["systemctl", "is-enabled", Self.unit]).stdout == "enabled\n")

                // `enable --now` of a Type=notify unit returns when READY=1 arrived: it is active, never restarted.
                let state = try await Self.show(container, ["Type", "ActiveState", "SubState", "NRestarts", "MainPID", "ExecStart"])
                #expect(state["Type"] == "notify" && state["ActiveState"] == "active" && state["SubState"] == "running", "\(state)")
                #expect(state["NRestarts"] == "0", "\(state)")
                #expect(state["ExecStart"]?.contains("path=/usr/local/bin/clawpair") == true, "\(state)")

                let hello = try await lab.gateway.waitForLog("connect-ok", timeout: .seconds(60)) {
                    $0["role"] as? String == "node" && $0["auth"] as? String == "device-token"
                }
                let deviceId = try #require(hello["deviceId"] as? String)
                let status = try await Self.statusConnected(container, environment: ["CLAWPAIR_HOME": "/var/lib/clawpair-node"])
                #expect(status["running"] as? Bool == true && status["url"] as? String == lab.remoteURL, "\(status)")
                #expect(status["pid"] as? Int == Int(state["MainPID"] ?? ""), "\(status) \(state)")
                #expect((status["units"] as? [String: Any])?["system"] as? String == "/etc/systemd/system/\(Self.unit)")
                let statusText = try await Self.show(container, ["StatusText"])["StatusText"] ?? ""
                #expect(statusText.hasPrefix("connected"), "\(statusText)")

                // The sandbox is in force: a private /dev, read-only /proc/sys, /proc/kmsg covered,
                // /proc with hidepid=invisible; no privileges, a seccomp filter, a dynamic user.
                let pid = try #require(state["MainPID"])
                let table = try await Self.mounts(container, pid: pid)
                #expect(Self.mount(table, at: "/dev")?.contains(" - tmpfs ") == true, "PrivateDevices: \(table)")
                #expect(Self.mount(table, at: "/proc/sys")?.split(separator: " ")[5].hasPrefix("ro") == true, "ProtectKernelTunables: \(table)")
                #expect(Self.mount(table, at: "/proc/kmsg")?.contains("/inaccessible/") == true, "ProtectKernelLogs: \(table)")
                #expect(Self.mount(table, at: "/proc")?.contains("hidepid=invisible") == true, "ProtectProc: \(table)")
                let process = try await container.require(["cat", "/proc/\(pid)/status"]).stdout
                for field in ["NoNewPrivs:\t1", "Seccomp:\t2", "CapEff:\t0000000000000000"] {
                    #expect(process.contains(field + "\n"), "\(field): \(process)")
                }
                #expect(!process.contains("Uid:\t0\t"), "DynamicUser: \(process)")

                // It answers from inside the sandbox: /proc and /sys reads for device.status, the journal for system.notify.
                let invoked = try await lab.asOperator(["nodes", "invoke", "boot-node", "device.status", "--json"])
                #expect(invoked.status.isSuccess, "\(invoked)")
                let payload = try #require(try Pairing.json(invoked.stdout)["payload"] as? [String: Any])
                #expect((payload["network"] as? [String: Any])?["status"] as? String == "satisfied", "\(payload)")
                #expect((payload["uptimeSeconds"] as? Double ?? 0) > 0, "\(payload)")
                let notify = try await lab.asOperator(["nodes", "invoke", "boot-node", "system.notify", "--params",
                                                       #"{"title":"boot","body":"from the lab"}"#, "--json"])
                #expect((try Pairing.json(notify.stdout)["payload"] as? [String: Any])?["deliveredTo"] as? String == "journal", "\(notify)")

                // systemctl stop: SIGTERM, the node closes with 1000 and exits 0 (no failure, no restart).
                try await container.require(["systemctl", "stop", Self.unit])
                let stopped = try await Self.show(container, ["ActiveState", "Result", "ExecMainCode", "ExecMainStatus"])
                #expect(stopped == ["ActiveState": "inactive", "Result": "success", "ExecMainCode": "1", "ExecMainStatus": "0"], "\(stopped)")
                let closed = try await lab.gateway.waitForLog("session-closed", timeout: .seconds(30)) { $0["deviceId"] as? String == deviceId }
                #expect(closed["code"] as? Int == 1000, "\(closed)")

                // The watchdog, fed from inside the sandbox: with WatchdogSec=2 (a drop-in; the unit says 60)
                // systemd would kill a silent node after 2 s; the node's pings keep moving WatchdogTimestamp.
                try await container.require(["sh", "-c", "mkdir -p \"${0%/*}\" && printf '[Service]\\nWatchdogSec=2\\n' > \"$0\"",
                                             "/etc/systemd/system/\(Self.unit).d/watchdog.conf"])
                try await container.require(["systemctl", "daemon-reload"])
                try await container.require(["systemctl", "start", Self.unit])
                var pings: [String] = []
                let deadline = ContinuousClock.now + .seconds(60)
                while pings.count < 3 && ContinuousClock.now < deadline {
                    let stamp = try await Self.show(container, ["WatchdogTimestampMonotonic"])["WatchdogTimestampMonotonic"] ?? ""
                    if stamp != pings.last { pings.append(stamp) }
                    try await Task.sleep(for: .milliseconds(200))
                }
                let fed = try await Self.show(container, ["WatchdogUSec", "ActiveState", "NRestarts"])
                #expect(pings.count == 3 && fed == ["WatchdogUSec": "2s", "ActiveState": "active", "NRestarts": "0"], "\(pings) \(fed)")
                try await container.require(["systemctl", "stop", Self.unit])
                #expect(try await Self.show(container, ["Result"])["Result"] == "success")
                try await container.require(["rm", "-r", "/etc/systemd/system/\(Self.unit).d"])

                // The state directory removed after installing: systemd makes it again (StateDirectory=), empty, so
                // the unit starts; node run finds no pairing, says so and exits 78, and systemd does not restart it.
                try await container.require(["rm", "-rf", "/var/lib/clawpair-node", "/var/lib/private/clawpair-node"])
                let start = try await container.run(["systemctl", "start", Self.unit])
                #expect(!start.status.isSuccess, "\(start)")
                let unpaired = try await Self.show(container, ["ActiveState", "SubState", "Result", "ExecMainStatus"])
                let said = await container.journal(Self.unit)
                #expect(unpaired == ["ActiveState": "failed", "SubState": "failed", "Result": "exit-code", "ExecMainStatus": "78"],
                        "\(unpaired)\n\(said)")
                // (The unit names its gateway: --gateway ID.)
                #expect(said.contains("no paired gateway is called") && said.contains("clawpair pair - < code.txt"), "\(said)")

                let uninstall = try await container.run(["clawpair", "node", "uninstall", "--system", "--json"])
                #expect(uninstall.status.isSuccess, "\(uninstall)")
                #expect(try Pairing.json(uninstall.stdout)["removed"] as? Bool == true)
                #expect(try await container.run(["test", "-e", "/etc/systemd/system/\(Self.unit)"]).status == .exited(1))
                #expect(try await Self.show(container, ["LoadState"])["LoadState"] == "not-found")
            }
        }
    }

    @Test("node install --user with linger: the user's manager starts it (READY), it connects, node status reports it, stop exits 0 with close 1000, uninstall removes it")
    func userService() async throws {
        try await Pairing.withPairingLab { lab in
            let home = try await NodeRunLabTests.pairNode(lab, name: "boot-user-node")
            try await withSystemdContainer(in: lab.nodeHost, binds: [home]) { container in
                let user = "nodeuser"
                // The user's own clawpair store (~/.config/clawpair), made from the pairing.
                try await container.require(["useradd", "--create-home", "--user-group", "--shell", "/bin/sh", user])
                try await container.require(["mkdir", "-p", "/home/\(user)/.config"])
                try await container.require(["cp", "-a", home, "/home/\(user)/.config/clawpair"])
                try await container.require(["chown", "-R", "\(user):\(user)", "/home/\(user)/.config"])
                let uid = try await container.require(["id", "-u", user]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                // Linger: logind starts the user's manager without a login, and keeps it.
                try await container.require(["loginctl", "enable-linger", user])
                try await container.require(["systemctl", "start", "user@\(uid).service"], timeout: .seconds(120))
                let environment = ["HOME": "/home/\(user)", "USER": user, "XDG_RUNTIME_DIR": "/run/user/\(uid)"]

                // In the container as systemd-nspawn leaves it, the user unit cannot start (see above), and install says what to do.
                let refused = try await container.run(["clawpair", "node", "install", "--user"], user: user, environment: environment)
                #expect(refused.status == .exited(1), "\(refused)")
                #expect(refused.stderr.contains("inside a systemd-nspawn container") && refused.stderr.contains("ProtectKernelLogs=no"), "\(refused)")
                let failure = await container.journal(Self.unit, userUnit: true)
                #expect(failure.contains("inaccessible/fifo to /run/systemd/unit-root/proc/kmsg: No such file or directory"), "\(failure)")
                #expect(failure.contains("status=226/NAMESPACE"), "\(failure)")

                // /proc/kmsg as on a booted machine, procfs' own file instead of nspawn's deleted FIFO: the
                // unchanged unit starts (installing again; until then systemd keeps restarting it).
                try await container.require(["umount", "/proc/kmsg"])
                #expect(try await container.require(["stat", "-c", "%F", "/proc/kmsg"]).stdout == "regular empty file\n")
                let install = try await container.run(["clawpair", "node", "install", "--user", "--json"], user: user, environment: environment)
                let journal = install.status.isSuccess ? "" : await container.journal(Self.unit, userUnit: true)
                #expect(install.status.isSuccess, "\(install)\n\(journal)")
                let installed = try Pairing.json(install.stdout)
                #expect(installed["kind"] as? String == "user" && installed["unit"] as? String == "/home/\(user)/.config/systemd/user/\(Self.unit)")
                #expect((installed["warnings"] as? [Any])?.isEmpty == true, "linger is on: \(installed)")

                let state = try await Self.show(container, ["Type", "ActiveState", "SubState", "MainPID"], user: user, environment: environment)
                #expect(state["Type"] == "notify" && state["ActiveState"] == "active" && state["SubState"] == "running", "\(state)")
                let hello = try await lab.gateway.waitForLog("connect-ok", timeout: .seconds(60)) {
                    $0["role"] as? String == "node" && $0["auth"] as? String == "device-token"
                }
                let deviceId = try #require(hello["deviceId"] as? String)
                let status = try await Self.statusConnected(container, user: user, environment: environment)
                #expect(status["running"] as? Bool == true && status["pid"] as? Int == Int(state["MainPID"] ?? ""), "\(status) \(state)")
                #expect((status["units"] as? [String: Any])?["user"] as? String == "/home/\(user)/.config/systemd/user/\(Self.unit)")

                // The user manager's sandbox: a private /dev, a read-only /proc/sys, /proc/kmsg covered, as the user, unprivileged.
                let pid = try #require(state["MainPID"])
                let table = try await Self.mounts(container, pid: pid)
                #expect(Self.mount(table, at: "/dev")?.contains(" - tmpfs ") == true, "PrivateDevices: \(table)")
                #expect(Self.mount(table, at: "/proc/sys")?.split(separator: " ")[5].hasPrefix("ro") == true, "ProtectKernelTunables: \(table)")
                #expect(Self.mount(table, at: "/proc/kmsg")?.contains("/inaccessible/") == true, "ProtectKernelLogs: \(table)")
                let process = try await container.require(["cat", "/proc/\(pid)/status"]).stdout
                #expect(process.contains("Uid:\t\(uid)\t") && process.contains("NoNewPrivs:\t1\n") && process.contains("Seccomp:\t2\n"), "\(process)")

                try await container.require(["systemctl", "--user", "stop", Self.unit], user: user, environment: environment)
                let stopped = try await Self.show(container, ["ActiveState", "Result", "ExecMainStatus"], user: user, environment: environment)
                #expect(stopped == ["ActiveState": "inactive", "Result": "success", "ExecMainStatus": "0"], "\(stopped)")
                let closed = try await lab.gateway.waitForLog("session-closed", timeout: .seconds(30)) { $0["deviceId"] as? String == deviceId }
                #expect(closed["code"] as? Int == 1000, "\(closed)")

                // The store removed after installing: the unit still starts (ReadWritePaths=-…, ignored when
                // missing, instead of 226/NAMESPACE on every start), node run says what is missing and exits 78,
                // and systemd does not restart it: failed, not auto-restart.
                let store = "/home/\(user)/.config/clawpair"
                try await container.require(["mv", store, store + ".saved"])
                let start = try await container.run(["systemctl", "--user", "start", Self.unit], user: user, environment: environment)
                #expect(!start.status.isSuccess, "\(start)")
                let missing = try await Self.show(container, ["ActiveState", "SubState", "Result", "ExecMainStatus"],
                                                  user: user, environment: environment)
                let said = await container.journal(Self.unit, userUnit: true)
                #expect(missing == ["ActiveState": "failed", "SubState": "failed", "Result": "exit-code", "ExecMainStatus": "78"],
                        "\(missing)\n\(said)")
                #expect(said.contains("the clawpair store \(store) does not exist") && said.contains("clawpair pair - < code.txt"), "\(said)")
                try await container.require(["mv", store + ".saved", store])

                let uninstall = try await container.run(["clawpair", "node", "uninstall", "--user", "--json"], user: user, environment: environment)
                #expect(uninstall.status.isSuccess && (try? Pairing.json(uninstall.stdout))?["removed"] as? Bool == true, "\(uninstall)")
                #expect(try await container.run(["test", "-e", "/home/\(user)/.config/systemd/user/\(Self.unit)"]).status == .exited(1))
            }
        }
    }
}
