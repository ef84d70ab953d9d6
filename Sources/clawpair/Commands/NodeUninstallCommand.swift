#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore

/// `clawpair node uninstall [--user|--system]`.
struct NodeUninstallCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "uninstall",
        abstract: "Stop the node's systemd service and remove its unit",
        discussion: ["Runs 'systemctl [--user] disable --now clawpair-node.service' and removes the unit file 'node install' "
                     + "wrote. The pairing stays: 'clawpair node run' still works. A system service's state directory "
                     + "(/var/lib/clawpair-node) is kept."],
        options: [.flag("user", help: "The user service (the default)."), .flag("system", help: "The system service (needs root).")],
        sections: [DocSection("JSON OUTPUT", ["With --json, {\"ok\": true, \"kind\", \"unit\": PATH, \"removed\": BOOL}."])],
        runner: NodeUninstallCommand.runner
    )

    let arguments: ParsedArguments

    static func validate(_ arguments: ParsedArguments) throws {
        if arguments.flag("user") && arguments.flag("system") { throw UsageError("--user and --system exclude each other") }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let kind: NodeService.Kind = arguments.flag("system") ? .system : .user
        let path = try NodeService.unitPath(kind, environment: context.environment)
        guard FileIO.isRegularFile(path: path) else {
            throw GeneralError("no \(kind.rawValue) unit is installed (\(path) does not exist)",
                               hint: kind == .user ? "a system unit is removed with --system" : nil, status: .notFound)
        }
        if kind == .system && geteuid() != 0 {
            throw GeneralError("a system service is removed as root", hint: "run it with sudo", status: .refused)
        }
        let systemctl = kind == .user ? ["systemctl", "--user"] : ["systemctl"]
        let stopped = NodeService.run(systemctl + ["disable", "--now", NodeService.unitName])
        if stopped.status != 0 { context.warn("'\((systemctl + ["disable", "--now"]).joined(separator: " "))' failed: \(stopped.output)") }
        guard unlink(path) == 0 else {
            throw GeneralError("cannot remove \(path): \(String(cString: strerror(errno)))")
        }
        _ = NodeService.run(systemctl + ["daemon-reload"])
        return context.printResult(.object([("kind", .string(kind.rawValue)), ("unit", .string(path)), ("removed", true)]),
                                   lines: ["Stopped the node's service and removed \(path)."],
                                   notes: ["The pairing is kept: 'clawpair node run' brings the node online again."])
    }
}
