#if canImport(Glibc)
import Glibc
#endif
import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity
import ClawpairNode

/// `clawpair node run [--gateway NAME]`.
struct NodeRunCommand: ArgumentsCommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Connect to the paired gateway as a node and stay online until stopped",
        discussion: [
            "Connects with role node as client node-host (mode node, platform linux, deviceFamily Linux), signed by this "
                + "machine's identity with the node token 'clawpair pair' stored, declares its commands, and answers them. "
                + "After each connect it reports presence (node.presence.alive) and host stats (node.host.stats, then every 60 s).",
            "It offers protocol 4, and 3 at once when an older gateway asks for it. It reconnects after a gateway restart (250 ms "
                + "doubling to 4 s, at once after a 1012 close; every second while a device approval is pending); when the known routes "
                + "stop answering it looks for the gateway through mDNS and the wide-area domain and moves to an address where "
                + "the gateway proves its identity (the pinned certificate, or a reissue of the stored token), updating the "
                + "registry. A gateway whose certificate changed is never accepted silently: the new fingerprint is logged with "
                + "the command that pins it, and a pin stored meanwhile is used without a restart.",
            "When its commands wait for an operator's approval it says so, with the command that approves them; it learns that "
                + "from the gateway, or from node.list when this machine also holds an operator token for the gateway.",
            "One line per state change on standard error (with --json, JSON lines on standard output). Exit status: 0 after "
                + "SIGTERM or SIGINT (the connection closes with 1000), 78 when the gateway no longer accepts the node token "
                + "(it is cleared: pair again) or this machine holds no node pairing (the store is missing, no node token, no "
                + "identity), otherwise the status of the error, so a service manager restarts it.",
        ],
        options: [
            NodeCommand.gatewayOption,
            .repeated("commands", "ID", help: "Also declare this optional command: system.which (repeatable)."),
            .value("display-name", "NAME", help: "The node's display name (default: the name the pairing stored, else the host name)."),
        ],
        examples: [Example("clawpair node run", "Bring this machine online as a node"),
                   Example("clawpair node run --json --commands system.which", "JSON lines, with system.which declared")],
        sections: [DocSection("JSON OUTPUT", [
            "With --json, one JSON object per line on standard output, each with \"ts\" (ms) and \"event\": connecting "
                + "{attempt, urls}, connected {url, protocol}, awaiting-approval {requestId, approveCommand}, disconnected "
                + "{code, message, retryInMs}, certificate-changed {url, fingerprint, repinCommand}, pin-reloaded, searching, "
                + "beacon-seen {url}, relocated {url, proof}, awaiting-command-approval {requestId, approveCommand}, commands-approved "
                + "{requestId}, invoke {command, id, code, elapsedMs}, published {name, reason}, "
                + "ended {status}. A final error document follows a failure.",
        ])],
        runner: NodeRunCommand.runner
    )

    let arguments: ParsedArguments

    static func validate(_ arguments: ParsedArguments) throws {
        for command in arguments.values("commands") where !NodeCommand.optionalCommands.contains(command) {
            throw UsageError("unknown optional command '\(TerminalText.sanitize(command, maxScalars: 64))'",
                             hint: "optional commands: \(NodeCommand.optionalCommands.joined(separator: ", "))")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let signals = TerminationSignals()
        let home = try GatewayCLI.home(context)
        // A node without its pairing (the store deleted after `node install`, no node token, no
        // identity) cannot mend itself by restarting: exit status 78, which its unit does not restart.
        var info = stat()
        guard stat(home, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw GeneralError("the clawpair store \(TerminalText.sanitize(home, maxScalars: 200)) does not exist (was it removed "
                                   + "after 'clawpair node install'?)",
                               hint: "pair this machine as a node again: clawpair pair - < code.txt, then clawpair node install",
                               status: .configuration)
        }
        let registry = GatewayRegistry(home: home)
        let record: PairedGateway
        do {
            record = try NodeCommand.gateway(arguments.value("gateway"), registry: registry)
        } catch let error as GeneralError where error.exitStatus == .notFound {
            let pairAgain = "to pair this machine as a node again: clawpair pair - < code.txt"
            let hint = error.hint.map { $0.contains("clawpair pair") ? $0 : "\($0); \(pairAgain)" } ?? pairAgain
            throw GeneralError(error.message, hint: hint, status: .configuration)
        }
        let identity: DeviceIdentity
        do {
            identity = try IdentityStore(directory: home).loadIdentity().identity
        } catch {
            throw GeneralError("cannot load this machine's identity: \(error.message)",
                               hint: "a node needs the identity it paired with; pair again: clawpair pair - < code.txt",
                               status: .configuration)
        }
        let hostName = HostName.current(fallback: "linux")
        let displayName = arguments.value("display-name") ?? record.deviceName ?? hostName
        let facts = NodeHostFacts(stateDirectory: home, environment: context.environment)
        let names = NodeBuiltinCommands.defaultNames + arguments.values("commands")
        let commands = NodeCommandSet(NodeBuiltinCommands.commands(names, facts: facts, hostName: hostName,
                                                                   searchPath: context.environment["PATH"] ?? "/usr/bin:/bin"))
        let presence = NodeClient.presence(displayName: displayName)
        let notifier = ServiceManagerNotifier()
        let reporter = NodeServiceReporter(gatewayId: record.id, gatewayName: TerminalText.sanitize(record.name, maxScalars: 64),
                                           statusFile: NodeStatusFile(home: home), notifier: notifier)
        let log = NodeRunLog(context: context, gatewayName: record.name, gatewayId: record.id, reporter: reporter)
        var options = NodeRunnerOptions(host: NodeHostConfiguration(commands: commands, presence: presence,
                                                                    hostStats: { facts.hostStats() }),
                                        displayName: displayName)
        options.heartbeat = { reporter.heartbeat() }
        let runner = NodeRunner(gateway: record, registry: registry, identity: identity, options: options)
        // SIGINT/SIGTERM wake a thread waiting in sigwait, which stops the runner at once.
        let stop = signals.stopSignal()
        let handler = stop.onStop {
            notifier.stopping()
            runner.stop()
        }
        notifier.ready(status: "connecting to \(record.name)")
        let end = runner.run { log.record($0) }
        stop.removeHandler(handler)
        runner.stop()
        return try log.finish(end, record: record)
    }
}

/// The log of `node run`: one line per state change (human text on stderr, or JSON lines),
/// the status file for `node status`, and sd_notify STATUS=.
final class NodeRunLog: Sendable {
    let json: Bool
    let stdout: any TextSink
    let stderr: any TextSink
    let gatewayName: String
    let gatewayId: String
    /// The status file and the service manager's status.
    let reporter: NodeServiceReporter

    init(context: CommandContext, gatewayName: String, gatewayId: String, reporter: NodeServiceReporter) {
        json = context.globals.json
        stdout = context.stdout
        stderr = context.stderr
        self.gatewayName = TerminalText.sanitize(gatewayName, maxScalars: 64)
        self.gatewayId = gatewayId
        self.reporter = reporter
    }

    func emit(_ event: String, _ members: [(String, JSONValue)], text: String) {
        if json {
            let line: JSONValue = .object([("ts", .int(WallClock.nowMs())), ("event", .string(event))] + members)
            stdout.write(line.compact(terminalSafe: true) + "\n")
        } else {
            stderr.write("node: " + TerminalText.sanitize(text, maxScalars: 600) + "\n")
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let ms = duration.milliseconds
        return ms < 1000 ? "\(Int(ms)) ms" : "\((ms / 100).rounded() / 10) s"
    }

    func record(_ event: NodeRunnerEvent) {
        reporter.record(event)
        switch event {
        case .connecting(let attempt, let urls):
            emit("connecting", [("attempt", .int(Int64(attempt))), ("urls", .array(urls.map { .string($0) }))],
                 text: "connecting to \(gatewayName) (attempt \(attempt)): \(urls.joined(separator: ", "))")
        case .connected(let url, let version):
            emit("connected", [("url", .string(url)), ("protocol", .int(version))],
                 text: "connected to \(gatewayName) via \(url) (protocol \(version)); if its commands wait for approval, an operator "
                    + "runs: clawpair nodes pending, then clawpair nodes approve REQUEST_ID")
        case .awaitingApproval(let requestId):
            let command = "clawpair nodes approve \(requestId ?? "<requestId>")"
            emit("awaiting-approval", [("requestId", requestId.map { .string($0) } ?? .null), ("approveCommand", .string(command))],
                 text: "waiting for an operator to approve this node on \(gatewayName): \(command) (or openclaw devices approve "
                    + "\(requestId ?? "<requestId>"))")
        case .disconnected(let error, let retryIn):
            var members: [(String, JSONValue)] = [("code", .string(error.code)), ("message", .string(error.message))]
            members.append(("retryInMs", retryIn.map { .int(Int64($0.milliseconds)) } ?? .null))
            emit("disconnected", members, text: "disconnected: \(error.message)"
                 + (retryIn.map { "; next attempt in \(Self.seconds($0))" } ?? ""))
        case .certificateChanged(let url, let fingerprint):
            let command = "clawpair gateways check \(gatewayId) --tls-fingerprint \(fingerprint)"
            emit("certificate-changed", [("url", .string(url)), ("fingerprint", .string(fingerprint)), ("repinCommand", .string(command))],
                 text: "the gateway at \(url) presents a certificate that does not match the pin (SHA-256 \(fingerprint)); not "
                    + "accepted. If the gateway renewed it, check it on the gateway host and pin it: \(command)")
        case .pinReloaded(let fingerprint):
            emit("pin-reloaded", [("fingerprint", fingerprint.map { .string($0) } ?? .null)], text: "using the pin stored meanwhile")
        case .searching:
            emit("searching", [], text: "the gateway's routes do not answer: looking for it through discovery")
        case .beaconSeen(let url):
            emit("beacon-seen", [("url", .string(url))], text: "the gateway's beacon is back at \(url): reconnecting now")
        case .relocated(let url, let proof):
            emit("relocated", [("url", .string(url)), ("proof", proof.json)],
                 text: "found \(gatewayName) at \(url) (\(proof.summary)); its routes in the registry are updated")
        case .commandsAwaitingApproval(let requestId):
            let command = "clawpair nodes approve \(requestId ?? "<requestId>")"
            emit("awaiting-command-approval", [("requestId", requestId.map { .string($0) } ?? .null), ("approveCommand", .string(command))],
                 text: "waiting for the operator to approve this node's commands: \(command)")
        case .commandsApproved(let requestId):
            emit("commands-approved", [("requestId", requestId.map { .string($0) } ?? .null)], text: "commands approved")
        case .host(let hostEvent):
            switch hostEvent {
            case .answered(let command, let id, let code, let elapsed):
                emit("invoke", [("command", command.map { .string($0) } ?? .null), ("id", .string(id)),
                                ("code", code.map { .string($0) } ?? .null), ("elapsedMs", .double(elapsed.milliseconds))],
                     text: "invoke \(command ?? "?") \(code ?? "ok") (\(Self.seconds(elapsed)))")
            case .dropped(let reason):
                emit("invoke-dropped", [("reason", .string(reason))], text: "invoke dropped: \(reason)")
            case .cancelled(let id):
                emit("invoke-cancelled", [("id", .string(id))], text: "invoke \(id) cancelled by the gateway")
            case .published(let name, _, let reason):
                emit("published", [("name", .string(name)), ("reason", reason.map { .string($0) } ?? .null)],
                     text: "\(name) sent" + (reason.map { " (\($0))" } ?? ""))
            case .publishFailed(let name, let code):
                emit("publish-failed", [("name", .string(name)), ("code", .string(code))], text: "\(name) refused: \(code)")
            }
        }
    }

    func finish(_ end: NodeRunnerEnd, record: PairedGateway) throws -> ExitStatus {
        reporter.finish(end)
        switch end {
        case .stopped:
            emit("ended", [("status", 0)], text: "stopped")
            return .success
        case .tokenRevoked:
            emit("ended", [("status", 78)], text: "the gateway no longer accepts this node's token (revoked or rotated): it was "
                 + "cleared. Pair again with a new node code: clawpair pair - < code.txt")
            let message = "the gateway \(gatewayName) no longer accepts this node's token; it was cleared"
            throw PresentedError(GeneralError(message), status: .configuration, message: message,
                                 hint: "pair again with a new node setup code ('clawpair qr --node' on an operator machine), then: "
                                     + "clawpair pair - < code.txt", code: "token-revoked")
        case .failed(let error):
            throw ErrorPresentation.present(error)
        }
    }
}
