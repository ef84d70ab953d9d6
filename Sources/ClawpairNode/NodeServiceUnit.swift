// The systemd unit that runs a node as a service. Upstream writes
// `~/.config/systemd/user/openclaw-node.service` with Restart=always, RestartSec=5 and
// RestartPreventExitStatus=78 and no hardening (`upstream-2026-10.md` §3); this one adds
// Type=notify (readiness and a watchdog, which ``NodeServiceReporter`` feeds) and a sandbox
// scoring ≤ 2.0 in `systemd-analyze security`. A system unit runs under a dynamic user with its
// own state directory (which systemd creates, so it is never missing); a user unit keeps the
// user's store writable, if it exists, and the rest of the home read-only.

/// A systemd service unit for a node: what runs (``execStart``), for the whole system or one
/// user (``scope``), and its rendering (``text``).
public struct NodeServiceUnit: Sendable, Equatable {
    /// Where the unit runs.
    public enum Scope: String, Sendable, CaseIterable {
        /// A system service under a dynamic user, from boot.
        case system
        /// A user service, while the user is logged in (or always, with lingering).
        case user
    }

    /// The state directory a system unit gets (`StateDirectory=`, under /var/lib).
    public static let systemStateDirectory = "clawpair-node"
    /// The clawpair home of a system unit: its state directory.
    public static let systemHome = "/var/lib/" + systemStateDirectory

    /// System or user.
    public var scope: Scope
    /// The `ExecStart=` command line, as systemd reads it (no shell).
    public var execStart: String
    /// `Description=`.
    public var summary: String
    /// `Documentation=`, when there is one.
    public var documentation: String?
    /// Comment lines put before the unit (each gets `# `).
    public var comment: [String]
    /// For a user unit: the clawpair home when it is not the default one (`~/.config/clawpair`),
    /// named in `Environment=CLAWPAIR_HOME` and made writable; nil: the default home.
    public var userHome: String?

    /// A unit running `execStart` in `scope`.
    public init(scope: Scope, execStart: String, summary: String, documentation: String? = nil, comment: [String] = [],
                userHome: String? = nil) {
        self.scope = scope
        self.execStart = execStart
        self.summary = summary
        self.documentation = documentation
        self.comment = comment
        self.userHome = userHome
    }

    /// A path for a unit file line: `%` doubled (systemd specifiers). Spaces, quotes and
    /// backslashes are not escaped: refuse such paths before.
    public static func escape(_ path: String) -> String {
        var out = ""
        for character in path { if character == "%" { out += "%%" } else { out.append(character) } }
        return out
    }

    /// The unit file.
    public var text: String {
        var service = """
            Type=notify
            NotifyAccess=main
            ExecStart=\(execStart)
            Restart=always
            RestartSec=5
            RestartPreventExitStatus=78
            WatchdogSec=60
            TimeoutStartSec=30
            TimeoutStopSec=10

            """
        let unitSection: String
        let home: String
        let install: String
        // ProtectProc= only works for system services (systemd.exec(5): "not supported for services
        // running in per-user instances of the service manager"; a user manager cannot mount a
        // procfs with hidepid=): a user unit would only claim it.
        var proc = ""
        switch scope {
        case .system:
            proc = "ProtectProc=invisible\n"
            unitSection = "Wants=network-online.target\nAfter=network-online.target\n"
            service += "DynamicUser=yes\nStateDirectory=\(Self.systemStateDirectory)\nStateDirectoryMode=0700\n"
                + "Environment=CLAWPAIR_HOME=%S/\(Self.systemStateDirectory)\n"
            home = "ProtectHome=yes"
            install = "multi-user.target"
        case .user:
            unitSection = ""
            // The store with systemd's "-" prefix ("ignored when they do not exist", systemd.exec(5)):
            // without it a store removed after installing fails every start with 226/NAMESPACE, a
            // restart loop that never says why; with it the node starts, finds no pairing, says so
            // and exits 78, which the unit does not restart.
            if let userHome {
                service += "Environment=CLAWPAIR_HOME=\(Self.escape(userHome))\n"
                home = "ProtectHome=read-only\nReadWritePaths=-\(Self.escape(userHome))"
            } else {
                home = "ProtectHome=read-only\nReadWritePaths=-%h/.config/clawpair"
            }
            install = "default.target"
        }
        let head = comment.map { $0.isEmpty ? "#\n" : "# \($0)\n" }.joined()
        return head + """
            [Unit]
            Description=\(summary)
            \(documentation.map { "Documentation=\($0)\n" } ?? "")\(unitSection)StartLimitBurst=10
            StartLimitIntervalSec=300

            [Service]
            \(service)UMask=0077
            NoNewPrivileges=yes
            ProtectSystem=strict
            \(home)
            PrivateTmp=yes
            PrivateDevices=yes
            PrivateUsers=yes
            PrivateIPC=yes
            PrivateMounts=yes
            ProtectHostname=yes
            ProtectClock=yes
            ProtectKernelTunables=yes
            ProtectKernelModules=yes
            ProtectKernelLogs=yes
            ProtectControlGroups=yes
            \(proc)RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK
            RestrictNamespaces=yes
            RestrictRealtime=yes
            RestrictSUIDSGID=yes
            LockPersonality=yes
            MemoryDenyWriteExecute=yes
            RemoveIPC=yes
            CapabilityBoundingSet=
            AmbientCapabilities=
            SystemCallFilter=@system-service
            SystemCallFilter=~@privileged @resources
            SystemCallErrorNumber=EPERM
            SystemCallArchitectures=native
            DevicePolicy=closed
            KeyringMode=private

            [Install]
            WantedBy=\(install)

            """
    }
}
