#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// `clawpair node install [--user|--system] [--gateway NAME]`.
struct NodeInstallCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "install",
        abstract: "Install 'clawpair node run' as a systemd service and start it",
        discussion: [
            "--user (the default) writes ~/.config/systemd/user/clawpair-node.service and runs 'systemctl --user enable --now': "
                + "the node runs while you are logged in, or always after 'sudo loginctl enable-linger USER' (this warns when "
                + "linger is off). --system (as root) copies this machine's identity and the gateway's record into "
                + "/var/lib/clawpair-node, writes /etc/systemd/system/clawpair-node.service (a dynamic user, no access to home "
                + "directories) and enables it.",
            "The unit restarts the node 5 s after it stops (Restart=always), except after exit status 78 (no node pairing, "
                + "or its token was revoked: pair again); it is Type=notify with a watchdog and scores at most 2.0 in 'systemd-analyze security'. "
                + "--print shows the unit instead of installing it.",
            "Inside a systemd-nspawn container a user unit fails with 226/NAMESPACE (the container's /proc/kmsg cannot be "
                + "covered by a user's service manager); install then says so: add a drop-in with 'systemctl --user edit "
                + "clawpair-node' saying [Service] ProtectKernelLogs=no. A system unit needs nothing.",
        ],
        options: [
            .flag("user", help: "A user service (the default)."),
            .flag("system", help: "A system service under a dynamic user (needs root)."),
            NodeCommand.gatewayOption,
            .repeated("commands", "ID", help: "Also declare this optional command (system.which); repeatable, kept in the unit."),
            .flag("print", help: "Print the unit file and change nothing."),
        ],
        examples: [Example("clawpair node install", "Run the node as your user service"),
                   Example("sudo clawpair node install --system", "Run the node from boot as a system service")],
        sections: [DocSection("JSON OUTPUT", ["With --json, {\"ok\": true, \"kind\": \"user\"|\"system\", \"unit\": PATH, "
                                               + "\"gateway\": {\"id\", \"name\"}, \"warnings\": [...]}."])],
        runner: NodeInstallCommand.runner
    )

    let arguments: ParsedArguments

    static func validate(_ arguments: ParsedArguments) throws {
        if arguments.flag("user") && arguments.flag("system") { throw UsageError("--user and --system exclude each other") }
        for command in arguments.values("commands") where !NodeCommand.optionalCommands.contains(command) {
            throw UsageError("unknown optional command '\(TerminalText.sanitize(command, maxScalars: 64))'",
                             hint: "optional commands: \(NodeCommand.optionalCommands.joined(separator: ", "))")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let kind: NodeService.Kind = arguments.flag("system") ? .system : .user
        let home = try GatewayCLI.home(context)
        let registry = GatewayRegistry(home: home)
        let record = try NodeCommand.gateway(arguments.value("gateway"), registry: registry)
        let defaultHome = context.environment["HOME"].map { "\($0)/.config/clawpair" }
        let customHome = kind == .user && home != defaultHome ? home : nil
        if let customHome, customHome.contains(where: { $0 == " " || $0 == "\n" || $0 == "\"" || $0 == "\\" }) {
            throw GeneralError("the clawpair home '\(TerminalText.sanitize(customHome, maxScalars: 200))' cannot be named in a unit file",
                               hint: "use a clawpair home without spaces, quotes or backslashes")
        }
        let text = NodeService.unit(kind, executable: NodeService.executablePath(), gateway: record.id,
                                    commands: arguments.values("commands"), userHome: customHome)
        if arguments.flag("print") {
            context.stdout.write(text)
            return .success
        }
        let path = try NodeService.unitPath(kind, environment: context.environment)
        var warnings: [String] = []
        switch kind {
        case .system:
            guard geteuid() == 0 else {
                throw GeneralError("a system service is installed as root", hint: "run it with sudo, or install a user service with --user",
                                   status: .refused)
            }
            try copyStore(from: home, record: record)
        case .user:
            if let user = context.environment["USER"] ?? context.environment["LOGNAME"],
               !FileIO.isRegularFile(path: "/var/lib/systemd/linger/\(user)") {
                warnings.append("linger is off for \(user): the node stops when you log out; keep it running with: "
                                + "sudo loginctl enable-linger \(user)")
            }
        }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        do {
            try makeDirectories(directory)
            try AtomicFile.write(Array(text.utf8), to: path, mode: 0o644, replacing: true)
        } catch {
            throw GeneralError("cannot write \(path): \((error as? any ClawpairError)?.message ?? "\(error)")", hint: "check the directory's permissions")
        }
        let systemctl = kind == .user ? ["systemctl", "--user"] : ["systemctl"]
        for step in [["daemon-reload"], ["enable", "--now", NodeService.unitName]] {
            let result = NodeService.run(systemctl + step)
            if result.status != 0 {
                let message = "'\((systemctl + step).joined(separator: " "))' failed (exit \(result.status)): "
                    + result.output.split(separator: "\n").prefix(3).joined(separator: " ")
                if kind == .user && step.first == "enable" && NodeService.container() == "systemd-nspawn" {
                    throw GeneralError(message, hint: "the unit is written to \(path); " + NodeService.nspawnUserUnitHint)
                }
                throw GeneralError(message, hint: "the unit is written to \(path); start it by hand once systemd is reachable: "
                                                  + (systemctl + ["enable", "--now", NodeService.unitName]).joined(separator: " "))
            }
        }
        let json: JSONValue = .object([
            ("kind", .string(kind.rawValue)), ("unit", .string(path)),
            ("gateway", .object([("id", .string(record.id)), ("name", .string(record.name))])),
            ("warnings", .array(warnings.map { .string($0) })),
        ])
        for warning in warnings where !context.globals.json { context.warn(warning) }
        let status = (kind == .user ? "systemctl --user" : "systemctl") + " status \(NodeService.unitName)"
        return context.printResult(json, lines: ["Installed \(path) and started it: this machine serves "
                                                 + "\(RecordText.field(record.name, max: 64)) as a node."],
                                   notes: ["Check it: clawpair node status (or \(status))"])
    }

    /// mkdir -p with 0755 for the unit directory.
    func makeDirectories(_ path: String) throws {
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw GeneralError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Copies the identity and the gateway's record into the system service's state directory.
    func copyStore(from home: String, record: PairedGateway) throws {
        let target = NodeService.systemHome
        let store = IdentityStore(directory: home)
        do {
            for directory in [target, "\(target)/identity", "\(target)/gateways"] {
                if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                    throw GeneralError("cannot create \(directory): \(String(cString: strerror(errno)))")
                }
            }
            let identity = try FileIO.read(path: store.identityPath, limit: 64 * 1024, followSymlinks: false)
            try AtomicFile.write(identity, to: "\(target)/identity/device.json", replacing: true)
            try GatewayRegistry(home: target).save(record)
        } catch let error as GeneralError {
            throw error
        } catch {
            throw GeneralError("cannot copy the node's identity into \(target): \((error as? any ClawpairError)?.message ?? "\(error)")",
                               hint: "check that \(store.identityPath) exists ('clawpair identity show')")
        }
    }
}

