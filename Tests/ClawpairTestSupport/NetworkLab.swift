import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// A throwaway network of Linux network namespaces for integration tests.
//
//     try await withNetworkLab { lab in
//         let a = try await lab.addHost("A"), b = try await lab.addHost("B")
//         let link = try await lab.link(a, b)                   // veth, 10.250.k.1|2/24, fd00:c1a0:0:k::1|2/64
//         let bus = try await lab.startDBus(in: a)             // private bus on a unix path socket
//         let avahi = try await lab.startAvahi(in: a, bus: bus)
//         try await lab.startZeroconfAdvertiser(in: b, instance: "Test", port: 18789)
//         try await b.run(["ping", "-c1", link.a.ipv4]).requireSuccess()
//     }
//
// Safety rules it enforces (see the repository's network rule):
// - all addresses and routes live inside namespaces the lab created; the host namespace gets none;
//   veth pairs are created directly inside the namespaces, never in the host namespace;
// - commands run inside a namespace with `ip netns exec`; only `ip` itself, the D-Bus socket (a
//   unix path, not a network endpoint) and file system operations are used from the host namespace;
// - namespace names are `cpt-<pid>-<lab>-<host>`, so parallel labs and parallel test processes
//   never collide, and a later run can sweep what a crashed run (dead pid) left behind.
//
// Teardown always runs (also when the body throws or the test is cancelled): spawned processes are
// stopped newest first (SIGTERM, then SIGKILL), anything else still inside a namespace is killed,
// the namespaces are deleted and the temporary directory removed. Then the lab verifies that no
// namespace with its prefix, no process it spawned and no process inside one of its namespaces is
// left, and no output pipe is open; a leak makes `withNetworkLab` throw, which fails the test.

/// Runs `body` in a fresh ``NetworkLab`` and always tears the lab down afterwards.
///
/// Throws the body's error if it threw; otherwise throws a ``HarnessError`` if teardown found a
/// leak. When both happen the error names both. Refuses to start (throws) when the machine cannot
/// run namespace tests; see ``Harness``.
public func withNetworkLab<T>(_ body: (NetworkLab) async throws -> T) async throws -> T {
    try Harness.requireCapable()
    let lab = try await NetworkLab.create()
    let outcome: Result<T, any Error>
    do {
        outcome = .success(try await body(lab))
    } catch {
        outcome = .failure(error)
    }
    // An unstructured task is not cancelled with the test, so teardown waits for real.
    let leaks = await Task { await lab.teardown() }.value
    switch (outcome, leaks.isEmpty) {
    case (.success(let value), true):
        return value
    case (.success, false):
        throw HarnessError("network lab \(lab.id) leaked:\n  " + leaks.joined(separator: "\n  "))
    case (.failure(let error), true):
        throw error
    case (.failure(let error), false):
        throw HarnessError("\(error)\n(and network lab \(lab.id) leaked:\n  " + leaks.joined(separator: "\n  ") + ")")
    }
}

/// A set of network namespaces ("hosts"), the veth links between them and the processes running
/// in them, all owned by one test. Create it with ``withNetworkLab(_:)``.
///
/// Thread-safe; hosts can be added and commands run from concurrent tasks.
public final class NetworkLab: Sendable {
    /// Prefix of every namespace and temporary directory the harness creates.
    public static let namePrefix = "cpt"
    /// IPv4 addresses of link `k` are `10.250.k.1` and `10.250.k.2`.
    public static let ipv4Base = "10.250"
    /// IPv6 addresses of link `k` are `fd00:c1a0:0:k::1` and `::2` (k in hex).
    public static let ipv6Base = "fd00:c1a0:0"

    /// `cpt-<pid>-<n>`: the prefix of this lab's namespace names.
    public let id: String
    /// A private directory for configs, sockets and logs; removed at teardown.
    public let temporaryDirectory: URL

    private static let labCounter = Mutex(0)
    private static let staleSweepDone = Mutex(false)

    private struct HostRecord {
        let host: LabHost
        var interfaces: [String] = []
        var namespaceInode: UInt64?
    }

    private struct State {
        var hosts: [HostRecord] = []
        var links: [LabLink] = []
        var linkCount = 0
        var processes: [ChildProcess] = []
        var tornDown = false
    }

    private let state = Mutex(State())

    private init(id: String, temporaryDirectory: URL) {
        self.id = id
        self.temporaryDirectory = temporaryDirectory
    }

    static func create() async throws(HarnessError) -> NetworkLab {
        let runSweep = staleSweepDone.withLock { done in
            defer { done = true }
            return !done
        }
        if runSweep {
            await sweepStaleLabs()
        }
        let number = labCounter.withLock { counter in
            defer { counter += 1 }
            return counter
        }
        let id = "\(namePrefix)-\(getpid())-\(number)"
        var template = Array("/tmp/\(id).XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw HarnessError("mkdtemp /tmp/\(id).XXXXXX: \(String(cString: strerror(errno)))")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return NetworkLab(id: id, temporaryDirectory: URL(fileURLWithPath: path, isDirectory: true))
    }

    /// The hosts added so far.
    public var hosts: [LabHost] { state.withLock { $0.hosts.map(\.host) } }

    // MARK: Hosts and links

    /// Creates a network namespace `<id>-<n>` with `lo` up and IPv6 duplicate address detection
    /// off (so addresses are usable at once). `label` is for messages only ("A", "gateway").
    public func addHost(_ label: String? = nil) async throws(HarnessError) -> LabHost {
        let host = try state.withLock { state throws(HarnessError) -> LabHost in
            guard !state.tornDown else { throw HarnessError("network lab \(id) is already torn down") }
            let index = state.hosts.count
            let host = LabHost(label: label ?? "h\(index)", namespace: "\(id)-\(index)", lab: self)
            state.hosts.append(HostRecord(host: host))
            return host
        }
        try await withContext("creating host \(host)") { () async throws(HarnessError) in
            try await Subprocess.run(["ip", "netns", "add", host.namespace]).requireSuccess()
            let inode = Self.namespaceInode(host.namespace)
            state.withLock { state in
                if let index = state.hosts.firstIndex(where: { $0.host == host }) {
                    state.hosts[index].namespaceInode = inode
                }
            }
            try await host.ip("link", "set", "lo", "up")
            try await host.run(["sysctl", "-q", "-w",
                                "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]).requireSuccess()
        }
        return host
    }

    /// The lab interfaces of `host`, in link order.
    public func interfaces(of host: LabHost) -> [String] {
        state.withLock { $0.hosts.first(where: { $0.host == host })?.interfaces ?? [] }
    }

    /// The links made so far, in order.
    public var links: [LabLink] { state.withLock { $0.links } }

    /// The ends of every link that touch `host`, in link order.
    public func linkEnds(of host: LabHost) -> [LabLink.End] {
        links.compactMap { $0.end(on: host) }
    }

    /// Connects two hosts with a veth pair created directly inside their namespaces, addresses
    /// both ends (IPv4 /24 and IPv6 ULA /64, `nodad`), brings them up, and waits until the link has
    /// carrier and usable link-local addresses. The first link of a host also gets the IPv4
    /// multicast route (224.0.0.0/4), so multicast works without choosing an interface.
    @discardableResult
    public func link(_ a: LabHost, _ b: LabHost) async throws(HarnessError) -> LabLink {
        guard a != b else { throw HarnessError("link: cannot link \(a) to itself") }
        let (index, nameA, nameB, firstA, firstB) = try state.withLock { state throws(HarnessError) in
            guard !state.tornDown else { throw HarnessError("network lab \(id) is already torn down") }
            guard state.linkCount < 255 else { throw HarnessError("link: at most 255 links per lab") }
            guard let ia = state.hosts.firstIndex(where: { $0.host == a }),
                  let ib = state.hosts.firstIndex(where: { $0.host == b }) else {
                throw HarnessError("link: \(a) or \(b) is not a host of lab \(id)")
            }
            let index = state.linkCount
            state.linkCount += 1
            let nameA = "veth\(state.hosts[ia].interfaces.count)"
            let nameB = "veth\(state.hosts[ib].interfaces.count)"
            let firstA = state.hosts[ia].interfaces.isEmpty, firstB = state.hosts[ib].interfaces.isEmpty
            state.hosts[ia].interfaces.append(nameA)
            state.hosts[ib].interfaces.append(nameB)
            return (index, nameA, nameB, firstA, firstB)
        }
        let link = LabLink(
            index: index,
            a: LabLink.End(host: a, interface: nameA, ipv4: "\(Self.ipv4Base).\(index).1",
                           ipv6: "\(Self.ipv6Base):\(String(index, radix: 16))::1"),
            b: LabLink.End(host: b, interface: nameB, ipv4: "\(Self.ipv4Base).\(index).2",
                           ipv6: "\(Self.ipv6Base):\(String(index, radix: 16))::2")
        )
        try await withContext("linking \(a) and \(b)") { () async throws(HarnessError) in
            try await a.ip("link", "add", nameA, "type", "veth", "peer", "name", nameB, "netns", b.namespace)
            for (end, first) in [(link.a, firstA), (link.b, firstB)] {
                try await end.host.ip("addr", "add", end.ipv4CIDR, "dev", end.interface)
                try await end.host.ip("-6", "addr", "add", end.ipv6CIDR, "dev", end.interface, "nodad")
                try await end.host.ip("link", "set", end.interface, "multicast", "on", "up")
                if first {
                    try await end.host.ip("route", "add", "224.0.0.0/4", "dev", end.interface)
                }
            }
            for end in [link.a, link.b] {
                try await waitUntilReady(end)
            }
        }
        state.withLock { $0.links.append(link) }
        return link
    }

    /// Waits until the interface has carrier and a non-tentative link-local address: polled
    /// (``eventually(within:_:)``), as the kernel announces no end of duplicate address detection.
    private func waitUntilReady(_ end: LabLink.End) async throws(HarnessError) {
        var last = ""
        let ready = try await eventually(within: .seconds(60)) { () async throws(HarnessError) -> Bool in
            let linkState = try await end.host.ip("-o", "link", "show", "dev", end.interface).stdout
            let addresses = try await end.host.ip("-o", "-6", "addr", "show", "dev", end.interface, "scope", "link").stdout
            last = linkState + addresses
            return linkState.contains("LOWER_UP") && addresses.contains("fe80::") && !addresses.contains("tentative")
        }
        guard ready else { throw HarnessError("\(end.interface) in \(end.host) not ready after 60 s:\n\(last)") }
    }

    // MARK: Processes

    /// Registers a process so teardown stops it and checks it was reaped.
    func adopt(_ process: ChildProcess) throws(HarnessError) {
        let accepted = state.withLock { state in
            guard !state.tornDown else { return false }
            state.processes.append(process)
            return true
        }
        if !accepted {
            process.signal(SIGKILL)
            throw HarnessError("network lab \(id) is already torn down; killed \(process)")
        }
    }

    /// Writes `contents` to a file in ``temporaryDirectory`` and returns its path.
    public func writeFile(_ name: String, contents: String) throws(HarnessError) -> String {
        let url = temporaryDirectory.appendingPathComponent(name)
        do {
            try contents.write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw HarnessError("writing \(url.path): \(error)")
        }
        return url.path
    }

    /// Creates a directory in ``temporaryDirectory`` and returns its path.
    public func makeDirectory(_ name: String) throws(HarnessError) -> String {
        let path = temporaryDirectory.appendingPathComponent(name).path
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw HarnessError("mkdir \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }

    // MARK: Teardown

    /// Stops everything, deletes the namespaces and the temporary directory, and returns the
    /// leaks it found afterwards (empty when clean). Idempotent.
    func teardown() async -> [String] {
        let (hosts, processes, alreadyDone) = state.withLock { state in
            defer { state.tornDown = true }
            return (state.hosts, state.processes, state.tornDown)
        }
        if alreadyDone {
            return []
        }
        var leaks: [String] = []

        for process in processes.reversed() where !process.hasExited {
            if await process.terminate(grace: .seconds(3)) == nil {
                leaks.append("\(process) survived SIGKILL")
            }
        }
        for record in hosts {
            let namespace = record.host.namespace
            let stragglers = await Self.killEverything(in: namespace)
            if !stragglers.isEmpty {
                leaks.append("processes \(stragglers) in \(namespace) survived SIGKILL")
            }
            if Self.namespaceExists(namespace) {
                if let result = try? await Subprocess.run(["ip", "netns", "delete", namespace]), !result.status.isSuccess {
                    leaks.append("ip netns delete \(namespace): \(result.stderr)")
                }
            }
        }
        for process in processes where !(await process.waitForOutputClosed(timeout: .seconds(5))) {
            process.abandonOutput()
            leaks.append("\(process): output pipe still open (a descendant outlived its group?)")
        }
        do {
            try FileManager.default.removeItem(at: temporaryDirectory)
        } catch {
            leaks.append("cannot remove \(temporaryDirectory.path): \(error)")
        }

        // Verification.
        if let names = try? await Self.namespaceNames() {
            for name in names where name.hasPrefix("\(id)-") {
                leaks.append("namespace \(name) still exists")
            }
        }
        for process in processes where !process.hasExited {
            leaks.append("\(process) was not reaped")
        }
        // A deleted namespace's inode number can be reused at once by another lab's new
        // namespace (tests run in parallel). A namespace a leaked process keeps alive cannot be
        // reused, so an inode that now names another live namespace is not ours: skip it.
        // A reused inode can also be seen before it is named: `ip netns add` of another lab runs
        // in its new namespace for a moment before bind-mounting it under /run/netns. So a suspect
        // counts only if it still holds an unnamed one of our inodes after a settling second.
        let liveBefore = Self.liveNamespaceInodes()
        let inodes = Set(hosts.compactMap(\.namespaceInode)).subtracting(liveBefore)
        var suspects = Self.processesReferencing(namespaceInodes: inodes, path: temporaryDirectory.path)
        // Polled (``eventually(within:_:)``): nothing announces another lab's `ip netns add` naming its namespace.
        _ = await eventually(within: .seconds(1)) {
            guard suspects.contains(where: { $0.2 != nil }) else { return true }
            let named = Self.liveNamespaceInodes()
            let remaining = inodes.subtracting(named)
            suspects = Self.processesReferencing(namespaceInodes: remaining, path: temporaryDirectory.path)
            return !suspects.contains(where: { $0.2 != nil })
        }
        for (pid, description, _) in suspects {
            leaks.append("process \(pid) (\(description)) still runs in a lab namespace or uses the lab directory")
        }
        if FileManager.default.fileExists(atPath: temporaryDirectory.path) {
            leaks.append("\(temporaryDirectory.path) still exists")
        }
        return leaks
    }

    // MARK: Namespace bookkeeping

    static func namespaceExists(_ name: String) -> Bool {
        access("/run/netns/\(name)", F_OK) == 0
    }

    /// The inode of a namespace's bind mount, which is its identity in `/proc/<pid>/ns/net`.
    static func namespaceInode(_ name: String) -> UInt64? {
        var info = stat()
        guard stat("/run/netns/\(name)", &info) == 0 else { return nil }
        return UInt64(info.st_ino)
    }

    /// The names `ip netns list` prints (first word of each line).
    static func namespaceNames() async throws(HarnessError) -> [String] {
        try await Subprocess.run(["ip", "netns", "list"]).requireSuccess().stdout
            .split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// SIGKILLs every process in `namespace` until none is left (bounded); returns survivors.
    /// Polled (``eventually(within:_:)``): they are no children of ours, whose end we could wait for.
    static func killEverything(in namespace: String) async -> [Int32] {
        var pids: [Int32] = []
        let gone = await eventually(within: .seconds(5)) {
            guard namespaceExists(namespace),
                  let result = try? await Subprocess.run(["ip", "netns", "pids", namespace], timeout: .seconds(10)) else {
                return true
            }
            pids = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
            for pid in pids {
                _ = kill(pid, SIGKILL)
            }
            return pids.isEmpty
        }
        return gone ? [] : pids
    }

    /// Scans /proc for processes whose network namespace is one of `namespaceInodes`, or whose
    /// command line or working directory mentions `path`.
    /// The inodes of the network namespaces named in /run/netns now (any lab's, or the machine's).
    static func liveNamespaceInodes() -> Set<UInt64> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/run/netns") else { return [] }
        var inodes = Set<UInt64>()
        for name in names {
            var info = stat()
            if stat("/run/netns/\(name)", &info) == 0 { inodes.insert(UInt64(info.st_ino)) }
        }
        return inodes
    }

    /// Processes in one of `namespaceInodes` (with that inode) or using `path` (inode nil).
    static func processesReferencing(namespaceInodes: Set<UInt64>, path: String) -> [(Int32, String, UInt64?)] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: [(Int32, String, UInt64?)] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid() else { continue }
            let commandLine = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")))
                .map { String(decoding: $0.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self) } ?? ""
            if commandLine.isEmpty { continue } // kernel thread or already gone
            var namespaceInode: UInt64?
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/net"),
               let inode = UInt64(link.dropFirst("net:[".count).dropLast()), namespaceInodes.contains(inode) {
                namespaceInode = inode
            }
            let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? ""
            let usesPath = commandLine.contains(path) || cwd.hasPrefix(path)
            if namespaceInode != nil || usesPath {
                found.append((pid, commandLine.trimmingCharacters(in: .whitespaces), usesPath ? nil : namespaceInode))
            }
        }
        return found
    }

    /// Deletes namespaces (and temporary directories) named `cpt-<pid>-…` whose pid is dead: what a
    /// crashed earlier run left. Live pids belong to a concurrent test process and are left alone.
    static func sweepStaleLabs() async {
        func isStale(_ name: Substring) -> Bool {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, parts[0] == namePrefix, let pid = Int32(parts[1]) else { return false }
            return pid != getpid() && kill(pid, 0) == -1 && errno == ESRCH
        }
        if let names = try? await namespaceNames() {
            for name in names where isStale(name[...]) {
                _ = await killEverything(in: name)
                _ = try? await Subprocess.run(["ip", "netns", "delete", name])
            }
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/tmp") {
            for entry in entries where entry.hasPrefix("\(namePrefix)-") && entry.contains(".") {
                if isStale(entry.split(separator: ".")[0]) {
                    try? FileManager.default.removeItem(atPath: "/tmp/\(entry)")
                }
            }
        }
    }
}

/// One network namespace of a ``NetworkLab``.
public struct LabHost: Sendable, Hashable, CustomStringConvertible {
    /// The name given to ``NetworkLab/addHost(_:)`` (for messages).
    public let label: String
    /// The namespace name, `cpt-<pid>-<lab>-<n>`.
    public let namespace: String
    /// The lab that owns it.
    public let lab: NetworkLab

    public var description: String { "\(label) [\(namespace)]" }

    public static func == (lhs: LabHost, rhs: LabHost) -> Bool { lhs.namespace == rhs.namespace }
    public func hash(into hasher: inout Hasher) { hasher.combine(namespace) }

    /// The lab interfaces of this host (`veth0`, `veth1`, …), in link order.
    public var interfaces: [String] { lab.interfaces(of: self) }

    /// `command` wrapped to run inside this namespace, argv[0] resolved to an absolute path.
    public func wrap(_ command: [String]) throws(HarnessError) -> [String] {
        guard let first = command.first else { throw HarnessError("\(self): empty command") }
        guard let executable = Subprocess.resolveExecutable(first) else {
            throw HarnessError("\(self): `\(first)` not found; run scripts/install-deps")
        }
        return ["ip", "netns", "exec", namespace, executable] + command.dropFirst()
    }

    /// Runs `command` inside the namespace to completion. Does not throw for a non-zero exit (see
    /// ``ProcessResult/requireSuccess()``); throws if it cannot start or outlives `timeout` (then
    /// its process group is killed).
    public func run(
        _ command: [String],
        environment: [String: String?] = [:],
        timeout: Duration = .seconds(30)
    ) async throws(HarnessError) -> ProcessResult {
        let child = try spawn(command, environment: environment)
        return try await child.collect(timeout: timeout)
    }

    /// Starts a long-running `command` inside the namespace. The lab stops it at teardown if the
    /// test did not (SIGTERM, SIGKILL after a grace period) and checks it was reaped.
    public func spawn(
        _ command: [String],
        environment: [String: String?] = [:],
        label: String? = nil
    ) throws(HarnessError) -> ChildProcess {
        let name = label ?? "\(((command.first ?? "") as NSString).lastPathComponent)@\(self.label)"
        let child = try Subprocess.spawn(try wrap(command), environment: environment, label: name)
        try lab.adopt(child)
        return child
    }

    /// `ip -n <namespace> <arguments>`, which must succeed.
    @discardableResult
    public func ip(_ arguments: String...) async throws(HarnessError) -> ProcessResult {
        try await Subprocess.run(["ip", "-n", namespace] + arguments).requireSuccess()
    }

    /// `tc <arguments>` inside the namespace, which must succeed; e.g.
    /// `tc("qdisc", "add", "dev", "veth0", "root", "netem", "delay", "100ms", "loss", "5%")`.
    @discardableResult
    public func tc(_ arguments: String...) async throws(HarnessError) -> ProcessResult {
        try await run(["tc"] + arguments).requireSuccess()
    }
}

/// A veth pair between two lab hosts, with the addresses of both ends.
public struct LabLink: Sendable, Hashable {
    /// One end of a link.
    public struct End: Sendable, Hashable, CustomStringConvertible {
        public let host: LabHost
        /// The interface name inside `host`'s namespace.
        public let interface: String
        /// e.g. `10.250.0.1`.
        public let ipv4: String
        /// e.g. `fd00:c1a0:0:0::1`.
        public let ipv6: String
        public var ipv4CIDR: String { "\(ipv4)/24" }
        public var ipv6CIDR: String { "\(ipv6)/64" }
        public var description: String { "\(host.label):\(interface) \(ipv4) \(ipv6)" }
    }

    /// The link number `k` in 10.250.k.0/24.
    public let index: Int
    /// The end on the first host passed to ``NetworkLab/link(_:_:)`` (addresses `.1`/`::1`).
    public let a: End
    /// The end on the second host (addresses `.2`/`::2`).
    public let b: End

    /// The end that lives on `host`, if any.
    public func end(on host: LabHost) -> End? {
        a.host == host ? a : (b.host == host ? b : nil)
    }
}
