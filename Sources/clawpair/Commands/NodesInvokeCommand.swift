import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway

/// `clawpair nodes invoke NODE COMMAND [--params JSON|-]`.
struct NodesInvokeCommand: ArgumentsCommand {
    static let maxParamsBytes = 256 << 10

    static let spec = CommandSpec(
        name: "invoke",
        abstract: "Run one command on a connected node and print what it returned",
        discussion: [
            "Finds the node in node.list (its id, a unique id prefix, its name or its address), then calls node.invoke "
                + "{nodeId, command, params, timeoutMs, idempotencyKey}, as 'openclaw nodes invoke'. The gateway forwards the "
                + "command only when the node declared it and the node's command surface was approved ('clawpair nodes pending').",
            "Retrying with the same --idempotency-key never runs the command twice: the node answers the retry with the first "
                + "result. Without it each call gets a fresh random key.",
        ],
        options: [
            .value("params", "JSON", help: "The command's parameters, a JSON object; - reads them from standard input."),
            .value("invoke-timeout", "MS", help: "How long the node may take, in ms or with a unit such as 30s (default 30000)."),
            .value("idempotency-key", "KEY", help: "The key that makes a retried call run once (default: a random one)."),
        ] + GatewayCLI.connectionOptions,
        arguments: [ArgumentSpec("node", help: "The node's id, a unique prefix of it, its name or its address."),
                    ArgumentSpec("command", help: "The command, e.g. device.status, device.info, system.notify.")],
        examples: [Example("clawpair nodes invoke kitchen-pi device.status", "The node's battery, thermal state, storage and network"),
                   Example("echo '{\"title\":\"Hi\",\"body\":\"from the gateway\"}' | clawpair nodes invoke kitchen-pi system.notify --params -",
                           "Show a notification on the node")],
        sections: GatewayCLI.sections(json: "With --json, {\"ok\": true, \"nodeId\", \"command\", \"payload\"}: the node's payload "
                                          + "(payloadJSON parsed); a node's refusal is an error object with the node's code "
                                          + "(UNAVAILABLE, INVALID_REQUEST, TIMEOUT, …)."),
        runner: NodesInvokeCommand.runner
    )

    let arguments: ParsedArguments

    static func validate(_ arguments: ParsedArguments) throws {
        _ = try invokeTimeout(arguments)
        if let key = arguments.value("idempotency-key"), key.isEmpty || key.utf8.count > 256 {
            throw UsageError("--idempotency-key must be 1 to 256 bytes")
        }
        if let text = arguments.value("params"), text != "-" { _ = try parse(text) }
    }

    static func invokeTimeout(_ arguments: ParsedArguments) throws -> Int64 {
        try DurationOption.milliseconds(arguments.value("invoke-timeout"), option: "invoke-timeout", default: 30_000, allowZero: false)
    }

    static func parse(_ text: String) throws -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text, limits: JSONLimits(maxInputBytes: maxParamsBytes))
        } catch {
            throw UsageError("--params is not JSON: \(error.description)")
        }
        guard case .object = value else { throw UsageError("--params must be a JSON object, not \(value.typeDescription)") }
        return value
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        var params: JSONValue?
        if let text = arguments.value("params") {
            if text == "-" {
                let bytes = try context.readStandardInput(Self.maxParamsBytes)
                params = try Self.parse(String(decoding: bytes, as: UTF8.self))
            } else {
                params = try Self.parse(text)
            }
        }
        let command = arguments.positionals[1]
        let timeoutMs = try Self.invokeTimeout(arguments)
        return try GatewayCLI.withOperator(arguments, context) { session in
            let (nodeId, answer) = try NodesCommand.withNode(arguments.positionals[0], session) { nodeId in
                var call = NodeInvokeCall(nodeId: nodeId, command: command, params: params, timeoutMs: timeoutMs)
                if let key = arguments.value("idempotency-key") { call.idempotencyKey = key }
                return try session.invokeNode(call)
            }
            let json: JSONValue = .object([("nodeId", .string(nodeId)), ("command", .string(command)),
                                           ("payload", answer.payload ?? .null)])
            let lines = answer.payload.map { $0.pretty(terminalSafe: true).split(separator: "\n").map(String.init) }
                ?? ["\(command): ok (no payload)"]
            return context.printResult(json, lines: lines)
        }
    }
}
