import ClawpairTestSupport
import Testing
@testable import ClawpairNode

/// The node's systemd unit as a library value: what systemd needs to supervise a node that
/// speaks sd_notify, and the sandbox.
@Suite struct NodeServiceUnitRenderingTests {
    static func lines(_ unit: NodeServiceUnit) -> [Substring] { unit.text.split(separator: "\n", omittingEmptySubsequences: false) }

    @Test("both scopes: notify with a watchdog, restart except after 78, the command as given, the comment first")
    func common() {
        for scope in NodeServiceUnit.Scope.allCases {
            let unit = NodeServiceUnit(scope: scope, execStart: "/usr/bin/x node run --gateway gw1", summary: "A node",
                                       documentation: "man:x(1)", comment: ["first", "", "second"])
            let lines = Self.lines(unit)
            #expect(Array(lines.prefix(4)) == ["# first", "#", "# second", "[Unit]"], "\(scope)")
            for line in ["Description=A node", "Documentation=man:x(1)", "Type=notify", "ExecStart=/usr/bin/x node run --gateway gw1",
                         "Restart=always", "RestartPreventExitStatus=78", "WatchdogSec=60", "NoNewPrivileges=yes", "ProtectSystem=strict",
                         "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK", "SystemCallFilter=@system-service"] {
                #expect(lines.contains(Substring(line)), "\(scope): \(line)")
            }
        }
    }

    @Test("a system unit runs under a dynamic user in its state directory; a user unit writes only its store (if it exists), a custom one escaped")
    func scopes() {
        let system = Self.lines(NodeServiceUnit(scope: .system, execStart: "x", summary: "s"))
        #expect(system.contains("DynamicUser=yes") && system.contains("StateDirectory=clawpair-node")
                && system.contains("Environment=CLAWPAIR_HOME=%S/clawpair-node") && system.contains("WantedBy=multi-user.target"))
        #expect(!system.contains { $0.hasPrefix("Documentation=") })
        let user = Self.lines(NodeServiceUnit(scope: .user, execStart: "x", summary: "s"))
        // "-": a store removed after installing must not fail the start with 226/NAMESPACE (node run says it is missing, exit 78).
        #expect(user.contains("ReadWritePaths=-%h/.config/clawpair") && user.contains("WantedBy=default.target"))
        #expect(!user.contains("DynamicUser=yes"))
        let custom = Self.lines(NodeServiceUnit(scope: .user, execStart: "x", summary: "s", userHome: "/srv/100%/clawpair"))
        #expect(custom.contains("Environment=CLAWPAIR_HOME=/srv/100%%/clawpair") && custom.contains("ReadWritePaths=-/srv/100%%/clawpair"))
    }

    @Test("ProtectProc= only in the system unit: a user's service manager cannot apply it (systemd.exec(5))")
    func protectProcSystemOnly() {
        let system = Self.lines(NodeServiceUnit(scope: .system, execStart: "x", summary: "s"))
        #expect(system.contains("ProtectProc=invisible"))
        let user = Self.lines(NodeServiceUnit(scope: .user, execStart: "x", summary: "s"))
        #expect(!user.contains { $0.hasPrefix("ProtectProc=") })
        // The rest of the sandbox is the same in both (NodeServiceBootLabTests sees it enforced under a booted systemd).
        for line in ["PrivateDevices=yes", "ProtectKernelTunables=yes", "ProtectKernelLogs=yes", "PrivateUsers=yes"] {
            #expect(system.contains(Substring(line)) && user.contains(Substring(line)), "\(line)")
        }
    }
}
