import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairIdentity

/// `clawpair gateways list|use|forget`: the paired-gateways registry.
enum GatewaysCommand {
    static let spec = CommandSpec(
        name: "gateways",
        abstract: "List, choose and forget the gateways this machine paired with",
        discussion: [
            "The registry keeps, per gateway: a stable id, its URLs (the one that last worked first), the TLS "
                + "certificate pin, the device tokens issued to this machine by role, and when it was last seen. "
                + "'clawpair pair' adds gateways; operator commands use the chosen one when no --url or --gateway is "
                + "given, with its stored pin and operator token. Records are files in <clawpair home>/gateways/ "
                + "(0600 in a 0700 directory, written atomically); one file per gateway, so switching never mixes "
                + "their state.",
        ],
        subcommands: [GatewaysListCommand.spec, GatewaysUseCommand.spec, GatewaysCheckCommand.spec, GatewaysForgetCommand.spec]
    )

    static let filesSection = DocSection("FILES", [
        "<clawpair home>/gateways/<id>.json: one paired gateway (0600). <clawpair home>/gateways/active: the id "
            + "'clawpair gateways use' chose. The clawpair home is $CLAWPAIR_HOME, else $XDG_CONFIG_HOME/clawpair, else "
            + "~/.config/clawpair.",
    ])

    static func registry(_ context: CommandContext) throws -> GatewayRegistry {
        GatewayRegistry(home: try GatewayCLI.home(context))
    }

    /// A record without token values: `{id, name, urls, tlsFingerprint, deviceId, tokens: [{role, scopes, issuedAtMs}], ...}`.
    static func publicJSON(_ gateway: PairedGateway, active: Bool) -> JSONValue {
        .object([
            ("id", .string(gateway.id)), ("name", .string(gateway.name)), ("active", .bool(active)),
            ("urls", .array(gateway.urls.map(JSONValue.string))),
            ("tlsFingerprint", gateway.tlsFingerprint.map(JSONValue.string) ?? .null),
            ("deviceId", .string(gateway.deviceId)),
            ("tokens", .array(gateway.tokens.map { token in
                .object([("role", .string(token.role)), ("scopes", .array(token.scopes.map(JSONValue.string))),
                         ("issuedAtMs", token.issuedAtMs.map(JSONValue.int) ?? .null)])
            })),
            ("pairedAtMs", .int(gateway.pairedAtMs)),
            ("lastSeenAtMs", gateway.lastSeenAtMs.map(JSONValue.int) ?? .null),
        ])
    }
}

/// `clawpair gateways list`.
struct GatewaysListCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "Show the paired gateways",
        discussion: ["Shows each paired gateway: its name and id, URLs, TLS pin, the roles this machine holds tokens for "
                     + "(never the tokens), and when it was paired and last seen. The chosen one is marked with *."],
        sections: [
            DocSection("JSON OUTPUT", ["With --json: {\"active\": id or null, \"gateways\": [{\"id\", \"name\", \"active\", \"urls\", "
                                       + "\"tlsFingerprint\", \"deviceId\", \"tokens\": [{\"role\", \"scopes\", \"issuedAtMs\"}], "
                                       + "\"pairedAtMs\", \"lastSeenAtMs\"}]}."]),
            GatewaysCommand.filesSection,
        ],
        runner: GatewaysListCommand.runner
    )

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {}

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let (gateways, damaged) = registry.list()
        let active = registry.active()?.id
        for problem in damaged { context.warn(problem.message) }
        if context.globals.json {
            context.printJSON(.object([("active", active.map(JSONValue.string) ?? .null),
                                       ("gateways", .array(gateways.map { GatewaysCommand.publicJSON($0, active: $0.id == active) }))]))
            return .success
        }
        if gateways.isEmpty {
            context.print("No paired gateways.")
            context.note("Pair with a setup code: clawpair pair - < code.txt")
            return .success
        }
        for (index, gateway) in gateways.enumerated() {
            if index > 0 { context.print("") }
            let mark = gateway.id == active ? "* " : "  "
            context.print(mark + context.style.bold(TerminalText.sanitize(gateway.name, maxScalars: 80)) + "  " + context.style.dim(gateway.id))
            let rows: [(String, String)] = [
                ("urls", gateway.urls.map { TerminalText.sanitize($0, maxScalars: 300) }.joined(separator: ", ")),
                ("tls pin", gateway.tlsFingerprint ?? "-"),
                ("tokens", gateway.tokens.isEmpty ? "-" : gateway.tokens.map { "\($0.role)" + ($0.scopes.isEmpty ? "" : " (\($0.scopes.joined(separator: ",")))") }.joined(separator: ", ")),
                ("device", String(gateway.deviceId.prefix(16)) + "…"),
                ("paired", GatewayOutput.age(.int(gateway.pairedAtMs), now: context.nowMs)),
                ("last seen", GatewayOutput.age(gateway.lastSeenAtMs.map(JSONValue.int), now: context.nowMs)),
            ]
            for (label, value) in rows { context.print("    " + context.style.dim(label.padding(10)) + value) }
        }
        return .success
    }
}

/// `clawpair gateways use NAME`.
struct GatewaysUseCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "use",
        abstract: "Choose the gateway commands use when no --url or --gateway is given",
        arguments: [ArgumentSpec("name", help: "The gateway's name or id ('clawpair gateways list').")],
        sections: [GatewaysCommand.filesSection],
        runner: GatewaysUseCommand.runner
    )

    let name: String

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        name = arguments.positionals[0]
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let gateway = try registry.gateway(named: name)
        try registry.setActive(gateway)
        if context.globals.json {
            context.printJSON(GatewaysCommand.publicJSON(gateway, active: true))
        } else {
            context.print("Using \(TerminalText.sanitize(gateway.name, maxScalars: 80)) (\(TerminalText.sanitize(gateway.urls[0], maxScalars: 300))).")
        }
        return .success
    }
}

/// `clawpair gateways forget NAME`.
struct GatewaysForgetCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "forget",
        abstract: "Remove a gateway from the registry, with its tokens and TLS pin",
        discussion: ["Deletes the record on this machine only; the gateway still lists this device as paired until an "
                     + "operator removes it there ('clawpair devices remove DEVICE_ID')."],
        arguments: [ArgumentSpec("name", help: "The gateway's name or id.")],
        sections: [GatewaysCommand.filesSection],
        runner: GatewaysForgetCommand.runner
    )

    let name: String

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        name = arguments.positionals[0]
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        let gateway = try registry.gateway(named: name)
        try registry.forget(gateway)
        if context.globals.json {
            context.printJSON(.object([("forgotten", .string(gateway.id)), ("name", .string(gateway.name))]))
        } else {
            context.print("Forgot \(TerminalText.sanitize(gateway.name, maxScalars: 80)) (\(gateway.id)): its tokens and TLS pin are deleted.")
            context.note("To unpair on the gateway too: clawpair devices remove \(gateway.deviceId) (run as an operator there)")
        }
        return .success
    }
}

/// `clawpair gateways check [NAME]`: reconnect with the stored device tokens.
struct GatewaysCheckCommand: ParsableCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Connect to a paired gateway with each stored device token and report whether it is accepted",
        discussion: ["For each role this machine holds a token for, connects over the gateway's URLs in order (with the "
                     + "stored TLS pin) as that role (a node as client node-host) with the stored device token, and "
                     + "reports the role and scopes the gateway granted. Updates the gateway's last-seen time. Exit 0 "
                     + "when every token was accepted, 4 when one was refused (revoked, rotated or removed), 3 when no "
                     + "URL answered."],
        options: [.value("timeout", "MS", help: "Limit for each connection, in ms or with a unit (default 10000).")],
        arguments: [ArgumentSpec("name", help: "The gateway's name or id (default: the chosen one).", optional: true)],
        sections: [
            DocSection("JSON OUTPUT", ["With --json: {\"gateway\": id, \"url\", \"results\": [{\"role\", \"ok\", \"scopes\", "
                                       + "\"error\": null or {...}}]}."]),
            GatewaysCommand.filesSection,
        ],
        runner: GatewaysCheckCommand.runner
    )

    let name: String?
    let timeoutMs: Int64

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        name = arguments.positionals.first
        timeoutMs = try ProbeCommand.milliseconds(arguments.value("timeout"), option: "timeout", default: GatewayCLI.defaultTimeoutMs,
                                                  allowZero: false)
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        let registry = try GatewaysCommand.registry(context)
        var gateway: PairedGateway
        if let name {
            gateway = try registry.gateway(named: name)
        } else if let active = registry.active() {
            gateway = active
        } else {
            throw GatewayRegistryError.unknownGateway("(default)", known: registry.list().gateways.map(\.name))
        }
        let identity = try GatewayCLI.identity(context)
        guard !gateway.tokens.isEmpty, gateway.deviceId == identity.deviceId else {
            throw GeneralError("no device token for this machine's identity is stored for \(TerminalText.sanitize(gateway.name, maxScalars: 80))",
                               hint: "pair again: clawpair pair - < code.txt", status: .refused)
        }
        let timeout = Duration.milliseconds(timeoutMs)
        var results: [JSONValue] = []
        var worst = ExitStatus.success
        var usedURL: String?
        for token in gateway.tokens {
            let role = GatewayRole(rawValue: token.role) ?? .operator
            let client: GatewayClientInfo = role == .node
                ? .nodeHost(version: ClawpairVersion.current, platform: GatewayCLI.platformName(), displayName: gateway.deviceName ?? PairCommand.hostName())
                : .operatorCLI(version: ClawpairVersion.current, platform: GatewayCLI.platformName(), displayName: gateway.deviceName ?? PairCommand.hostName())
            let request = ConnectRequest(client: client, role: role, scopes: role == .node ? [] : token.scopes,
                                         auth: ConnectAuth(token: token.token))
            var outcome: Result<HelloOK, GatewayError> = .failure(.notConnected)
            for url in gateway.urls {
                guard var endpoint = try? GatewayEndpoint(parsing: url) else { continue }
                if endpoint.tls { endpoint.pin = gateway.tlsFingerprint }
                do {
                    let session = try GatewayClient(endpoint: endpoint, configuration: GatewayCLI.clientConfiguration(timeout: timeout))
                    defer { session.close() }
                    try session.open(timeout: timeout)
                    outcome = .success(try session.connect(request, identity: identity, timeout: timeout))
                    usedURL = endpoint.url
                    break
                } catch {
                    outcome = .failure(error)
                    if case .unreachable = error { continue }
                    break
                }
            }
            switch outcome {
            case .success(let hello):
                results.append(.object([("role", .string(token.role)), ("ok", true),
                                        ("scopes", .array(hello.scopes.map(JSONValue.string))), ("error", .null)]))
                if let issued = hello.deviceToken, issued.role == token.role { gateway.store(StoredDeviceToken(issued)) }
                if !context.globals.json {
                    context.print("\(token.role): accepted" + (hello.scopes.isEmpty ? "" : " (scopes \(hello.scopes.joined(separator: ",")))"))
                }
            case .failure(let error):
                results.append(.object([("role", .string(token.role)), ("ok", false), ("scopes", .array([])),
                                        ("error", GatewayCLI.errorJSON(error)["error"] ?? .null)]))
                if error.exitStatus.rawValue > worst.rawValue || worst == .success { worst = error.exitStatus }
                if !context.globals.json { context.print("\(token.role): refused") }
                context.report(error)
            }
        }
        if usedURL != nil {
            gateway.lastSeenAtMs = context.nowMs
            if let used = usedURL { gateway.urls.removeAll { $0 == used }; gateway.urls.insert(used, at: 0) }
            try registry.save(gateway)
        }
        if context.globals.json {
            context.printJSON(.object([("gateway", .string(gateway.id)), ("url", usedURL.map(JSONValue.string) ?? .null),
                                       ("results", .array(results))]))
        }
        return worst
    }
}
