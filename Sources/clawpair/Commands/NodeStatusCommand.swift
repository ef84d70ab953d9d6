import ClawpairCLIKit
import ClawpairCore
import ClawpairNode

/// `clawpair node status`.
struct NodeStatusCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Say whether this machine's node runs, what it is connected to and since when",
        discussion: ["Reads what the running node last wrote (<clawpair home>/node/status.json: its state, gateway, URL, since "
                     + "when and its last error), checks that its process still runs, and lists the installed units. With a "
                     + "system service, run it with CLAWPAIR_HOME=/var/lib/clawpair-node (as root)."],
        sections: [DocSection("JSON OUTPUT", ["With --json, {\"ok\": true, \"running\": BOOL, \"state\", \"gatewayId\", "
                                               + "\"gatewayName\", \"url\", \"sinceMs\", \"lastError\", \"pid\", \"units\": "
                                               + "{\"user\": PATH|null, \"system\": PATH|null}}; exit status 3 when no node runs."])],
        runner: NodeStatusCommand.runner
    )

    let arguments: ParsedArguments

    func run(_ context: CommandContext) throws -> ExitStatus {
        let home = try GatewayCLI.home(context)
        let record = NodeStatusFile(home: home).read()
        let running = record?.processIsRunning ?? false
        let user = try? NodeService.unitPath(.user, environment: context.environment)
        let system = try? NodeService.unitPath(.system, environment: context.environment)
        let units: JSONValue = .object([("user", user.flatMap { FileIO.isRegularFile(path: $0) ? .string($0) : nil } ?? .null),
                                        ("system", system.flatMap { FileIO.isRegularFile(path: $0) ? .string($0) : nil } ?? .null)])
        var members: [(String, JSONValue)] = [("running", .bool(running))]
        if let record, case .object(let fields) = record.json { members += fields }
        members.append(("units", units))
        var lines: [String] = []
        if let record {
            let name = RecordText.field(record.gatewayName, max: 64)
            let since = WallClock.relative(ms: record.sinceMs, now: context.nowMs)
            if running {
                let via = record.url.map { " via \(TerminalText.sanitize($0, maxScalars: 200))" } ?? ""
                lines.append("Node running (pid \(record.pid)): \(record.state) to \(name)\(via) since \(since).")
            } else {
                lines.append("Node not running; it was \(record.state) to \(name) (\(since)).")
            }
            if let error = record.lastError { lines.append("Last error: \(TerminalText.sanitize(error, maxScalars: 300))") }
        } else {
            lines.append("Node not running (it never ran with this clawpair home).")
        }
        for (kind, path) in [("user", user), ("system", system)] {
            if let path, FileIO.isRegularFile(path: path) { lines.append("Installed \(kind) unit: \(path)") }
        }
        if context.globals.json {
            if running {
                context.printJSON(.object(members))
            } else {
                context.printJSON(.object([("ok", false), ("error", .object([("code", "not-running"),
                                                                              ("message", "no node runs with this clawpair home")]))] + members))
            }
        } else {
            for line in lines { context.print(line) }
            if !running { context.note("Start it: clawpair node run (or clawpair node install for a service)") }
        }
        return running ? .success : .notFound
    }
}
