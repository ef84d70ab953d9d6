import Foundation

#if canImport(Glibc)
import Glibc
#endif

// A real systemd booted as PID 1 of a throw-away container (Tests/Fixtures/systemd_container.sh:
// systemd-nspawn --boot on an overlay of this machine's own root), inside a lab host's network
// namespace. The machine the tests run on does not boot systemd, so this is where a unit file
// meets a service manager: `systemctl enable --now`, Type=notify readiness, the sandbox settings,
// `systemctl stop`.
//
//     try await withSystemdContainer(in: lab.nodeHost, binds: [home]) { container in
//         let result = try await container.run(["clawpair", "node", "install", "--system"])
//         let state = try await container.run(["systemctl", "is-active", "clawpair-node"])
//     }
//
// Inside, the clawpair under test is /usr/local/bin/clawpair. Teardown always runs: the container
// is halted (SIGTERM to systemd-nspawn, which asks systemd to power off), killed if it does not
// end, and its cgroup removed; its mounts lived in a private mount namespace and are gone with
// it; the lab's own teardown then checks that nothing is left in the namespace.

/// A container running systemd as PID 1; see ``withSystemdContainer(in:binds:_:)``.
public final class SystemdContainer: Sendable {
    /// The machine name (also its cgroup's name).
    public let name: String
    /// systemd-nspawn.
    public let process: ChildProcess
    /// The pid of the container's systemd, as this machine sees it.
    public let leader: pid_t

    /// The PATH commands run with inside.
    public static let path = "/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"

    init(name: String, process: ChildProcess, leader: pid_t) {
        self.name = name
        self.process = process
        self.leader = leader
    }

    /// `command` run inside the container (all its namespaces, a clean environment with PATH,
    /// HOME and `environment`), as root or, with `user`, as that user with its groups.
    public func command(_ command: [String], user: String? = nil, environment: [String: String] = [:]) -> [String] {
        var env = ["PATH": Self.path, "HOME": "/root", "LANG": "C.UTF-8"]
        for (key, value) in environment { env[key] = value }
        let assignments = env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let identity = user.map { ["setpriv", "--reuid=\($0)", "--regid=\($0)", "--init-groups"] } ?? []
        return ["nsenter", "--target", String(leader), "--all"] + identity + ["env", "-i"] + assignments + command
    }

    /// Runs `command` inside the container to completion (see ``command(_:user:environment:)``).
    public func run(_ command: [String], user: String? = nil, environment: [String: String] = [:],
                    timeout: Duration = .seconds(60)) async throws(HarnessError) -> ProcessResult {
        try await Subprocess.run(self.command(command, user: user, environment: environment), timeout: timeout)
    }

    /// Runs `command` inside the container; throws with its output unless it exits 0.
    @discardableResult
    public func require(_ command: [String], user: String? = nil, environment: [String: String] = [:],
                        timeout: Duration = .seconds(60)) async throws(HarnessError) -> ProcessResult {
        try await run(command, user: user, environment: environment, timeout: timeout).requireSuccess()
    }

    /// The container's journal for `unit` (a user manager's unit with `userUnit`), for failure messages.
    public func journal(_ unit: String, userUnit: Bool = false) async -> String {
        // Not --user-unit: as root it only matches root's own user manager (_UID=0).
        let selector = userUnit ? ["_SYSTEMD_USER_UNIT=\(unit)", "+", "USER_UNIT=\(unit)"] : ["--unit", unit]
        let result = try? await run(["journalctl", "--no-pager", "-o", "short-monotonic", "-n", "60"] + selector)
        return result.map { $0.stdout + $0.stderr } ?? "(no journal)"
    }
}

/// Boots a container with systemd as PID 1 in `host`'s network namespace, runs `body`, and always
/// halts it and removes what it made (also when `body` throws). `binds` are host directories seen
/// at the same path inside, read-write (a clawpair home made before). Boot and halt are bounded
/// by minutes: a container that does not come up fails the test with its console output.
public func withSystemdContainer<T>(in host: LabHost, binds: [String] = [],
                                    _ body: (SystemdContainer) async throws -> T) async throws -> T {
    try Harness.requireCapable()
    for tool in ["systemd-nspawn", "nsenter", "setpriv"] where Subprocess.resolveExecutable(tool) == nil {
        throw HarnessError("cannot boot a systemd container: \(tool) is missing; run scripts/install-deps (systemd-container, util-linux)")
    }
    let name = "\(SystemdContainerBoot.prefix)\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
    let scratch = try host.lab.makeDirectory("container-\(name)")
    let script = Harness.fixturesDirectory.appendingPathComponent("systemd_container.sh").path
    await SystemdContainerBoot.sweepStale(script: script)
    var arguments = [script, name, scratch, ClawpairBinary.path, "--netns", host.namespace]
    for bind in binds { arguments += ["--bind", bind] }
    let process = try Subprocess.spawn(arguments, label: "systemd-nspawn \(name)")
    try host.lab.adopt(process)

    var outcome: Result<T, any Error>
    do {
        let leader = try await SystemdContainerBoot.waitForLeader(of: process, timeout: .seconds(120))
        let container = SystemdContainer(name: name, process: process, leader: leader)
        try await SystemdContainerBoot.waitUntilBooted(container, timeout: .seconds(180))
        outcome = .success(try await body(container))
    } catch {
        outcome = .failure(error)
    }
    let leaks = await Task { await SystemdContainerBoot.halt(process, name: name, script: script) }.value
    switch (outcome, leaks.isEmpty) {
    case (.success(let value), true):
        return value
    case (.success, false):
        throw HarnessError("systemd container \(name) leaked:\n  " + leaks.joined(separator: "\n  "))
    case (.failure(let error), true):
        throw error
    case (.failure(let error), false):
        throw HarnessError("\(error)\n(and systemd container \(name) leaked:\n  " + leaks.joined(separator: "\n  ") + ")")
    }
}

enum SystemdContainerBoot {
    /// Container (and cgroup) names are `cpt-sd-<test process pid>-<random>`.
    static let prefix = "cpt-sd-"
    static let cgroupRoots = ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"]

    /// The containers of test processes that died before their teardown (killed, crashed): their
    /// processes are killed and their cgroups removed, as the lab sweeps stale namespaces.
    static func sweepStale(script: String) async {
        var stale: Set<String> = []
        for root in cgroupRoots {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where entry.hasPrefix(prefix) {
                guard let pid = pid_t(entry.dropFirst(prefix.count).prefix { $0 != "-" }), kill(pid, 0) != 0, errno == ESRCH else { continue }
                stale.insert(entry)
            }
        }
        for name in stale {
            _ = await killLeftovers(name: name)
            _ = try? await Subprocess.run([script, "--remove-cgroup", name], timeout: .seconds(30))
        }
    }

    /// Kills what is still in the container's cgroup; returns the pids it found.
    static func killLeftovers(name: String) async -> [pid_t] {
        var pids: [pid_t] = []
        for root in cgroupRoots {
            let base = "\(root)/\(name)"
            guard let enumerator = FileManager.default.enumerator(atPath: base) else { continue }
            for case let entry as String in enumerator where entry.hasSuffix("cgroup.procs") {
                let text = (try? String(contentsOfFile: "\(base)/\(entry)", encoding: .utf8)) ?? ""
                pids += text.split(separator: "\n").compactMap { pid_t($0) }
            }
        }
        if !pids.isEmpty {
            for pid in Set(pids) { kill(pid, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(500))
        }
        return pids
    }

    /// The container's systemd: the child of systemd-nspawn whose command is systemd.
    static func waitForLeader(of process: ChildProcess, timeout: Duration) async throws -> pid_t {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if process.hasExited {
                _ = await process.waitForOutputClosed(timeout: .seconds(5))
                throw HarnessError("systemd-nspawn ended before the container booted (\(process.exitStatus.map { "\($0)" } ?? "")):\(process.outputExcerpt)")
            }
            let children = (try? String(contentsOfFile: "/proc/\(process.pid)/task/\(process.pid)/children", encoding: .utf8)) ?? ""
            for word in children.split(separator: " ") {
                guard let pid = pid_t(word.trimmingCharacters(in: .whitespacesAndNewlines)) else { continue }
                let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                if command == "systemd" { return pid }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("no systemd started in the container within \(timeout):\(process.outputExcerpt)")
    }

    /// `systemctl is-system-running --wait` inside, until the manager answers and start-up is
    /// over ("running", or "degraded" when one of the machine's own units failed there).
    static func waitUntilBooted(_ container: SystemdContainer, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            if container.process.hasExited {
                _ = await container.process.waitForOutputClosed(timeout: .seconds(5))
                throw HarnessError("the container stopped while booting:\(container.process.outputExcerpt)")
            }
            let result = try await container.run(["systemctl", "is-system-running", "--wait"], timeout: timeout)
            let state = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            switch state {
            case "running", "degraded":
                // Degraded: some unit of this machine's own failed in the container; the manager runs.
                return
            default:
                last = "\(state) \(result.stderr)"
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        throw HarnessError("the container's systemd did not finish booting within \(timeout) (last: \(last)):\(container.process.outputExcerpt)")
    }

    /// Halts the container (SIGTERM: systemd-nspawn asks systemd to power off), kills it after
    /// two minutes, and removes its cgroup. Returns what it could not clean up.
    static func halt(_ process: ChildProcess, name: String, script: String) async -> [String] {
        var leaks: [String] = []
        if !process.hasExited {
            process.signal(SIGTERM)
            if (try? await process.waitForExit(timeout: .seconds(120))) == nil {
                leaks.append("systemd-nspawn \(name) did not halt within 2 minutes; killed it")
                _ = await process.terminate(grace: .zero)
            }
        }
        // What is still in the container's cgroup (it is empty once systemd-nspawn is gone).
        let left = await killLeftovers(name: name)
        if !left.isEmpty { leaks.append("processes \(left) were left in the cgroup of \(name); killed them") }
        if let removal = try? await Subprocess.run([script, "--remove-cgroup", name], timeout: .seconds(30)), !removal.status.isSuccess {
            leaks.append("cgroup \(name): \(removal.stderr)")
        }
        return leaks
    }
}
