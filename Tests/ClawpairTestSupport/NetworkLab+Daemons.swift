import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The daemons a discovery test needs, each private to one lab: a D-Bus system bus on a unix path
// socket in the lab directory (libdbus honours DBUS_SYSTEM_BUS_ADDRESS, so the machine's own bus
// is never involved), a real avahi-daemon inside a namespace with its own mount namespace (its
// /run/avahi-daemon is a lab directory), and python-zeroconf as an independent advertiser.

/// A private D-Bus system bus started by ``NetworkLab/startDBus(in:timeout:)``.
public struct DBusBus: Sendable {
    /// The host whose namespace the daemon runs in (the socket is a path, reachable from any
    /// namespace on the machine, including the test process's).
    public let host: LabHost
    /// The socket's file system path, in the lab directory.
    public let socketPath: String
    /// The D-Bus address, `unix:path=…`.
    public let address: String
    /// The dbus-daemon process.
    public let process: ChildProcess

    /// The variables a child process needs to use this bus (the harness passes them to the
    /// daemons it starts), with the Avahi compat library's warning switched off.
    public var environment: [String: String] {
        ["DBUS_SYSTEM_BUS_ADDRESS": address, "AVAHI_COMPAT_NOWARN": "1"]
    }

    /// Runs `body` with the test process's system bus pointing at this bus, for C libraries in
    /// the test process (Avahi's compat library through libdbus). Serialized process-wide and
    /// undone afterwards; see ``ProcessEnvironment/withSystemBus(socketPath:_:)`` for why the
    /// address is a stable symlink rather than ``address``.
    public func withSystemBusEnvironment<T>(_ body: () async throws -> T) async throws -> T {
        try await ProcessEnvironment.withSystemBus(socketPath: socketPath, body)
    }
}

/// Settings for ``NetworkLab/startAvahi(in:bus:options:timeout:)``.
public struct AvahiOptions: Sendable {
    /// The mDNS host name (without `.local`); nil uses the namespace name, unique per lab host.
    public var hostName: String?
    /// Interfaces avahi may use (`allow-interfaces`); nil means all lab interfaces of the host.
    public var interfaces: [String]?
    public var useIPv4 = true
    public var useIPv6 = true
    /// Publish A/AAAA records for the host's addresses (needed to resolve services it registers).
    public var publishAddresses = true
    /// Publish `_workstation._tcp` and HINFO for the host: off, tests see only their own services.
    public var publishWorkstation = false
    /// More lines for the `[server]` section, e.g. `"ratelimit-burst=1000"`.
    public var extraServerSettings: [String] = []

    public init() {}
}

/// A running avahi-daemon started by ``NetworkLab/startAvahi(in:bus:options:timeout:)``.
public struct AvahiDaemon: Sendable {
    public let host: LabHost
    /// The bus it registered `org.freedesktop.Avahi` on.
    public let bus: DBusBus
    /// The host name it claimed, e.g. `cpt-123-0-0.local`.
    public let hostName: String
    /// The lab directory mounted over its `/run/avahi-daemon` (holds `pid` and `socket`).
    public let runDirectory: String
    /// The generated `avahi-daemon.conf`.
    public let configPath: String
    /// The avahi-daemon process.
    public let process: ChildProcess
}

/// A python-zeroconf advertiser started by ``NetworkLab/startZeroconfAdvertiser(in:instance:type:port:txt:addresses:interfaceAddresses:server:timeout:)``.
public struct ZeroconfAdvertiser: Sendable {
    public let host: LabHost
    /// `<instance>.<type>`, e.g. `Test Gateway (clawpair)._openclaw-gw._tcp.local.`
    public let fullName: String
    public let instance: String
    public let type: String
    public let port: UInt16
    public let process: ChildProcess

    /// Unregisters the service (sends goodbye packets) and waits for the script to exit.
    public func stop(timeout: Duration = .seconds(10)) async throws(HarnessError) {
        process.signal(SIGTERM)
        _ = try await process.waitForLine(containing: "GOODBYE", on: .stdout, timeout: timeout)
        let status = try await process.waitForExit(timeout: timeout)
        guard status.isSuccess else {
            throw HarnessError("\(process) exited with \(status) after goodbye\(process.outputExcerpt)")
        }
    }
}

/// A python-zeroconf browser started by ``NetworkLab/startZeroconfBrowser(in:type:interfaceAddresses:timeout:)``.
public struct ZeroconfBrowser: Sendable {
    /// A service as the browser resolved it.
    public struct Service: Sendable, Hashable, Decodable {
        /// The full service name, `<instance>.<type>`.
        public let name: String
        public let type: String
        /// The SRV target, e.g. `cpt-123-0-0.local.`
        public let server: String?
        public let port: UInt16?
        public let addresses: [String]
        /// TXT entries; nil values are boolean attributes (a key without `=`).
        public let txt: [String: String?]
    }

    public let host: LabHost
    public let type: String
    public let process: ChildProcess

    /// Waits until the browser reports (ADD or UPDATE) a service whose full name starts with
    /// `instance` followed by `.`, and returns the first such report.
    public func waitForService(instance: String, timeout: Duration = .seconds(10)) async throws(HarnessError) -> Service {
        let line = try await process.waitForLine(on: .stdout, timeout: timeout, describing: "ADD/UPDATE of \"\(instance)\"") {
            Self.service(in: $0).map { $0.name.hasPrefix("\(instance).") } ?? false
        }
        guard let service = Self.service(in: line) else {
            throw HarnessError("\(process): unreadable line \(line)")
        }
        return service
    }

    /// Decodes an `ADD <json>` or `UPDATE <json>` line.
    static func service(in line: String) -> Service? {
        guard line.hasPrefix("ADD ") || line.hasPrefix("UPDATE "),
              let json = line.split(separator: " ", maxSplits: 1).last else { return nil }
        return try? JSONDecoder().decode(Service.self, from: Data(json.utf8))
    }

    /// Stops the browser and waits for it to exit.
    public func stop(timeout: Duration = .seconds(10)) async throws(HarnessError) {
        process.signal(SIGTERM)
        let status = try await process.waitForExit(timeout: timeout)
        guard status.isSuccess else {
            throw HarnessError("\(process) exited with \(status)\(process.outputExcerpt)")
        }
    }
}

extension NetworkLab {
    /// Starts a private dbus-daemon (system bus type, everything allowed for root) in `host`,
    /// listening on a unix path socket in the lab directory, and waits until it prints its address.
    @discardableResult
    public func startDBus(in host: LabHost, timeout: Duration = .seconds(20)) async throws(HarnessError) -> DBusBus {
        try await withContext("starting dbus-daemon in \(host)") { () async throws(HarnessError) -> DBusBus in
            let name = "dbus-\(host.namespace)"
            let socketPath = temporaryDirectory.appendingPathComponent("\(name).sock").path
            let config = try writeFile("\(name).conf", contents: Self.dbusConfig(socketPath: socketPath))
            let process = try host.spawn(
                ["dbus-daemon", "--config-file=\(config)", "--nofork", "--nopidfile", "--print-address=1"],
                label: "dbus-daemon@\(host.label)"
            )
            let address = try await process.waitForLine(containing: "unix:path=", on: .stdout, timeout: timeout)
            return DBusBus(host: host, socketPath: socketPath, address: address.trimmingCharacters(in: .whitespaces), process: process)
        }
    }

    /// Starts avahi-daemon in `host` on `bus`, in a private mount namespace whose
    /// `/run/avahi-daemon` is a lab directory, with a generated config limited to the host's lab
    /// interfaces and without wide-area DNS. Waits for "Server startup complete" (host name probed,
    /// D-Bus object registered).
    /// The set-up most Avahi tests share: hosts A and B on one link, dbus-daemon and avahi-daemon
    /// (default options) in A.
    public func startAvahiLink() async throws(HarnessError)
        -> (a: LabHost, b: LabHost, bus: DBusBus, avahi: AvahiDaemon) {
        let a = try await addHost("A")
        let b = try await addHost("B")
        try await link(a, b)
        let bus = try await startDBus(in: a)
        let avahi = try await startAvahi(in: a, bus: bus)
        return (a, b, bus, avahi)
    }

    @discardableResult
    public func startAvahi(
        in host: LabHost,
        bus: DBusBus,
        options: AvahiOptions = AvahiOptions(),
        timeout: Duration = .seconds(20)
    ) async throws(HarnessError) -> AvahiDaemon {
        try await withContext("starting avahi-daemon in \(host)") { () async throws(HarnessError) -> AvahiDaemon in
            let interfaces = options.interfaces ?? host.interfaces
            guard !interfaces.isEmpty else {
                throw HarnessError("the host has no lab interface: link it before starting avahi")
            }
            guard let avahi = Subprocess.resolveExecutable("avahi-daemon") else {
                throw HarnessError("avahi-daemon not found; run scripts/install-deps")
            }
            let name = "avahi-\(host.namespace)"
            let runDirectory = try makeDirectory("\(name).run")
            let config = try writeFile("\(name).conf", contents: Self.avahiConfig(
                hostName: options.hostName ?? host.namespace, interfaces: interfaces, options: options))
            // The mount point must exist on the host file system; avahi's package normally creates it.
            if mkdir("/run/avahi-daemon", 0o755) != 0 && errno != EEXIST {
                throw HarnessError("mkdir /run/avahi-daemon: \(String(cString: strerror(errno)))")
            }
            let script = #"mount --bind "$1" /run/avahi-daemon && exec "$2" --no-drop-root --no-chroot --no-rlimits -f "$3""#
            let process = try host.spawn(
                ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", runDirectory, avahi, config],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
                label: "avahi-daemon@\(host.label)"
            )
            let ready = try await process.waitForLine(containing: "Server startup complete", timeout: timeout)
            // "Server startup complete. Host name is NAME.local. Local service cookie is N."
            let claimed = ready.components(separatedBy: "Host name is ").dropFirst().first?
                .split(separator: " ").first.map { String($0.hasSuffix(".") ? $0.dropLast() : $0) }
            let hostName = claimed ?? "\(options.hostName ?? host.namespace).local"
            return AvahiDaemon(host: host, bus: bus, hostName: hostName, runDirectory: runDirectory, configPath: config, process: process)
        }
    }

    /// Runs `Tests/Fixtures/zeroconf_advertise.py` with Debian's python3 in `host` and waits until
    /// the service is registered.
    ///
    /// - Parameters:
    ///   - txt: TXT entries, written in key order.
    ///   - addresses: addresses for the A/AAAA records; nil uses `interfaceAddresses`.
    ///   - interfaceAddresses: addresses whose interfaces python-zeroconf binds to; nil means every
    ///     lab address (IPv4 and IPv6) of the host.
    ///   - server: the SRV target host name; nil lets the script derive one.
    @discardableResult
    public func startZeroconfAdvertiser(
        in host: LabHost,
        instance: String,
        type: String = "_openclaw-gw._tcp.local.",
        port: UInt16,
        txt: [String: String] = [:],
        addresses: [String]? = nil,
        interfaceAddresses: [String]? = nil,
        server: String? = nil,
        timeout: Duration = .seconds(20)
    ) async throws(HarnessError) -> ZeroconfAdvertiser {
        try await withContext("starting the zeroconf advertiser in \(host)") { () async throws(HarnessError) -> ZeroconfAdvertiser in
            let bindTo = interfaceAddresses ?? linkAddresses(of: host)
            guard !bindTo.isEmpty else {
                throw HarnessError("the host has no lab address: link it before advertising")
            }
            let script = Harness.fixturesDirectory.appendingPathComponent("zeroconf_advertise.py").path
            var command = [Harness.python3, script, "--instance", instance, "--type", type, "--port", String(port)]
            for (key, value) in txt.sorted(by: { $0.key < $1.key }) {
                command += ["--txt", "\(key)=\(value)"]
            }
            for address in bindTo {
                command += ["--interface-address", address]
            }
            for address in addresses ?? [] {
                command += ["--address", address]
            }
            if let server {
                command += ["--server", server]
            }
            let process = try host.spawn(command, label: "zeroconf-advertiser@\(host.label)")
            let ready = try await process.waitForLine(containing: "READY ", on: .stdout, timeout: timeout)
            return ZeroconfAdvertiser(host: host, fullName: String(ready.dropFirst("READY ".count)), instance: instance,
                                      type: type, port: port, process: process)
        }
    }

    /// Runs `Tests/Fixtures/zeroconf_browse.py` with Debian's python3 in `host`, browsing `type`, and
    /// waits until it is running. `interfaceAddresses` defaults to every lab address of the host.
    public func startZeroconfBrowser(
        in host: LabHost,
        type: String = "_openclaw-gw._tcp.local.",
        interfaceAddresses: [String]? = nil,
        timeout: Duration = .seconds(20)
    ) async throws(HarnessError) -> ZeroconfBrowser {
        try await withContext("starting the zeroconf browser in \(host)") { () async throws(HarnessError) -> ZeroconfBrowser in
            let bindTo = interfaceAddresses ?? linkAddresses(of: host)
            guard !bindTo.isEmpty else {
                throw HarnessError("the host has no lab address: link it before browsing")
            }
            let script = Harness.fixturesDirectory.appendingPathComponent("zeroconf_browse.py").path
            var command = [Harness.python3, script, "--type", type]
            for address in bindTo {
                command += ["--interface-address", address]
            }
            let process = try host.spawn(command, label: "zeroconf-browser@\(host.label)")
            _ = try await process.waitForLine(containing: "READY ", on: .stdout, timeout: timeout)
            return ZeroconfBrowser(host: host, type: type, process: process)
        }
    }

    /// Every lab address of `host`, IPv4 first.
    func linkAddresses(of host: LabHost) -> [String] {
        let ends = linkEnds(of: host)
        return ends.map(\.ipv4) + ends.map(\.ipv6)
    }

    // MARK: Generated configuration

    static func dbusConfig(socketPath: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <!-- Generated by clawpair's test harness: a private system bus for one test lab. -->
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socketPath)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="root"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow receive_sender="*"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>

        """
    }

    static func avahiConfig(hostName: String, interfaces: [String], options: AvahiOptions) -> String {
        func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }
        return """
        # Generated by clawpair's test harness: avahi-daemon for one test namespace.
        [server]
        host-name=\(hostName)
        domain-name=local
        use-ipv4=\(yesNo(options.useIPv4))
        use-ipv6=\(yesNo(options.useIPv6))
        allow-interfaces=\(interfaces.joined(separator: ","))
        enable-dbus=yes
        ratelimit-interval-usec=1000000
        ratelimit-burst=1000
        \(options.extraServerSettings.joined(separator: "\n"))

        [wide-area]
        enable-wide-area=no

        [publish]
        publish-addresses=\(yesNo(options.publishAddresses))
        publish-hinfo=\(yesNo(options.publishWorkstation))
        publish-workstation=\(yesNo(options.publishWorkstation))
        publish-aaaa-on-ipv4=no
        publish-a-on-ipv6=no

        [reflector]
        enable-reflector=no

        [rlimits]

        """
    }
}
