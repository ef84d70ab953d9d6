// The systemd units of `clawpair node` (packaging/systemd/clawpair-node.{system,user}.service are
// this rendering with ExecStart /usr/bin/clawpair and no --gateway: SystemdUnitTests diffs them),
// and installing them: unit file, `systemctl daemon-reload`, `enable --now`. The unit itself
// (Type=notify, the watchdog, the sandbox) is ClawpairNode's NodeServiceUnit; here: its command
// line and comment, where it goes, and running systemctl.

#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import ClawpairNode

enum NodeService {
    typealias Kind = NodeServiceUnit.Scope

    static let unitName = "clawpair-node.service"
    /// The system unit's state directory (StateDirectory=clawpair-node), its CLAWPAIR_HOME.
    static let systemHome = NodeServiceUnit.systemHome

    /// The unit file for `kind`, running `executable node run [--gateway ID]`; a user unit with
    /// a clawpair home other than ~/.config/clawpair names it (Environment= and ReadWritePaths=).
    static func unit(_ kind: Kind, executable: String, gateway: String?, commands: [String] = [], userHome: String? = nil) -> String {
        var exec = "\(executable) node run"
        if let gateway { exec += " --gateway \(gateway)" }
        for command in commands { exec += " --commands \(command)" }
        let comment: [String]
        switch kind {
        case .system:
            comment = ["clawpair node as a system service: this machine online as an OpenClaw node from boot, under a",
                       "dynamic user with its own state directory (/var/lib/clawpair-node, CLAWPAIR_HOME).",
                       "  sudo clawpair node install --system [--gateway NAME]",
                       "copies the node's identity and gateway record there, then enables this unit. Exit status 78",
                       "means \"fix the configuration first\" (no node pairing, or its token was revoked: pair again),",
                       "so no restart."]
        case .user:
            comment = ["clawpair node as a user service: this machine online as an OpenClaw node while you are logged",
                       "in (or always, after `sudo loginctl enable-linger USER`), with your own clawpair store.",
                       "  clawpair node install --user [--gateway NAME]",
                       "Notifications reach your desktop through the session bus. Exit status 78 means \"fix the",
                       "configuration first\" (no node pairing, or its token was revoked: pair again), so no restart."]
        }
        return NodeServiceUnit(scope: kind, execStart: exec, summary: "This machine as an OpenClaw node (clawpair node run)",
                               documentation: "man:clawpair-node(1)", comment: comment, userHome: userHome).text
    }

    /// Where the unit file goes: the system's /etc/systemd/system, or the user's
    /// $XDG_CONFIG_HOME/systemd/user (else ~/.config/systemd/user).
    static func unitPath(_ kind: Kind, environment: [String: String]) throws -> String {
        switch kind {
        case .system:
            return "/etc/systemd/system/\(unitName)"
        case .user:
            if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return "\(config)/systemd/user/\(unitName)" }
            guard let home = environment["HOME"], home.hasPrefix("/") else {
                throw GeneralError("HOME is not set: cannot place the user unit", hint: "set HOME, or install a system unit with --system")
            }
            return "\(home)/.config/systemd/user/\(unitName)"
        }
    }

    /// The container manager this machine runs under, as its systemd records it in
    /// /run/systemd/container (e.g. "systemd-nspawn", "docker"); nil on a machine of its own.
    static func container(path: String = "/run/systemd/container") -> String? {
        guard FileIO.isRegularFile(path: path), let bytes = try? FileIO.read(path: path, limit: 256) else { return nil }
        let name = String(String(decoding: bytes, as: UTF8.self).prefix { !$0.isWhitespace })
        return name.isEmpty ? nil : TerminalText.sanitize(name, maxScalars: 64)
    }

    /// What to do when a user unit does not start inside a systemd-nspawn container: its
    /// /proc/kmsg (nspawn's deleted FIFO) cannot be covered by a user's service manager, so
    /// ProtectKernelLogs= fails with 226/NAMESPACE (a system unit, or a booted machine, is fine).
    static let nspawnUserUnitHint = "inside a systemd-nspawn container a user unit cannot use ProtectKernelLogs=: run "
        + "'systemctl --user edit clawpair-node', add [Service] and ProtectKernelLogs=no, then 'systemctl --user restart clawpair-node'"

    /// The absolute path of the running executable (/proc/self/exe).
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/usr/bin/clawpair" }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `argv` (a program on PATH, no shell), standard input from /dev/null; returns its exit
    /// status and up to 16 KiB of its combined output.
    static func run(_ argv: [String], environment: [String: String]? = nil) -> (status: Int32, output: String) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return (-1, "pipe failed") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let envStrings: [UnsafeMutablePointer<CChar>?]? = environment.map { env in env.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envStrings?.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned: Int32 = arguments.withUnsafeBufferPointer { argvPointer in
            if let envStrings {
                return envStrings.withUnsafeBufferPointer { envp in
                    posix_spawnp(&pid, argv[0], &actions, nil, argvPointer.baseAddress!, envp.baseAddress!)
                }
            }
            return posix_spawnp(&pid, argv[0], &actions, nil, argvPointer.baseAddress!, environ)
        }
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return (-1, "\(argv[0]): \(String(cString: strerror(spawned)))") }
        let bytes = (try? FileIO.read(fd: pipeEnds[0], limit: 16 * 1024, name: argv[0])) ?? []
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, TerminalText.sanitize(String(decoding: bytes, as: UTF8.self), allowNewlines: true, maxScalars: 2048))
    }
}
