import ClawpairCLIKit
import ClawpairCore
import ClawpairGateway
import ClawpairQR
import ClawpairSetupCode

/// `clawpair qr [--limited | --node | --voice-node] ...`: mint a pairing setup code on the gateway and draw it,
/// the same job as `openclaw qr`.
struct QRMintCommand: ParsableCommand {
    /// The spec is the `qr` group's: minting is what `clawpair qr` does without a subcommand.
    static var spec: CommandSpec { QRCommand.spec }

    /// Options of the minting form (the `qr` group's own options).
    static let options: [OptionSpec] = [
        .flag("limited", help: "Mint a limited code: node plus operator without operator.admin."),
        .flag("node", help: "Mint a node-only code (watches and companion devices)."),
        .flag("voice-node", help: "Mint a voice-node code: node plus operator.read and operator.talk (room speakers)."),
        .value("public-url", "URL", help: "Put this gateway URL in the code (default: the URL clawpair reached the gateway "
                   + "through, unless it is loopback; then the gateway chooses).", completion: .hostname),
        .flag("remote", help: "Prefer the gateway's configured remote URL (gateway.remote.url)."),
        .value("format", "FORMAT", help: "How to draw the QR code: utf8 (default), utf8i, ansi, ascii, png or svg "
                   + "(png and svg need --output).", completion: .values(QRFormat.allCases.map(\.rawValue))),
        .value("output", short: "o", "FILE", help: "Write the QR image to FILE (0600; the code is a secret) instead of "
                   + "drawing it in the terminal.", completion: .file),
        .flag("force", help: "Replace an existing --output file."),
        .flag("setup-code-only", help: "Print only the setup code on stdout."),
        .flag("no-ascii", help: "Leave out the QR drawing (print the code and details only)."),
        .flag("wait", help: "Then wait until a device uses the code (device.pair.setupStatus and setup events) or it expires."),
    ] + GatewayCLI.connectionOptions

    static let discussion: [String] = [
        "Without a subcommand, 'clawpair qr' asks the gateway for a new pairing setup code "
            + "(device.pair.setupCode, which needs operator.admin), draws it as a QR code and prints the gateway "
            + "URL(s), the auth kind, the access the code grants (full, limited or node), where the URL came from, "
            + "when the code expires and how to approve the device after it scanned the code. Scan it in the "
            + "OpenClaw app under Onboarding -> Scan QR.",
        "The code carries the URL clawpair reached the gateway through (--url, the paired gateway's URL) unless that "
            + "is a loopback address, which a phone cannot dial: then the gateway picks its own URL. --public-url puts "
            + "another URL in the code; --url stays the gateway clawpair connects to.",
        "A full-access code is downgraded to limited by the gateway when any of its URLs is plaintext ws:// to a "
            + "host that is not loopback; the output then says so. Use wss:// (or Tailscale Serve) and mint again "
            + "for full access. Codes expire after 10 minutes and are a secret until then: anyone who scans one can "
            + "ask to pair.",
    ]

    static let jsonSection = DocSection("JSON OUTPUT", [
        "With --json, one object as 'openclaw qr --json' prints it: {\"setupCode\", \"gatewayUrl\", \"gatewayUrls\" (only "
            + "with 2 or more routes), \"auth\" (token or password), \"urlSource\", \"access\" (full, limited or node), "
            + "\"accessDowngraded\" (when true)}, plus \"expiresAtMs\" (the gateway's, or 10 minutes from now) and "
            + "\"setupId\" when the gateway sends one. On failure: {\"ok\": false, \"error\": {...}}.",
    ])

    let arguments: ParsedArguments
    let profile: String?
    let format: QRFormat
    let output: String?

    init(parsing arguments: ParsedArguments, context: CommandContext) throws {
        self.arguments = arguments
        let profiles = [("limited", "limited"), ("node", "node"), ("voice-node", SetupCodeRequest.voiceNodeProfile)]
            .filter { arguments.flag($0.0) }
        if profiles.count > 1 { throw UsageError("give one of --limited, --node and --voice-node") }
        profile = profiles.first?.1
        output = arguments.value("output")
        if let name = arguments.value("format") {
            guard let parsed = QRFormat(rawValue: name.lowercased()) else {
                throw UsageError("unknown format '\(TerminalText.sanitize(name, maxScalars: 32))'",
                                 hint: "use one of: \(QRFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            format = parsed
        } else {
            format = output == nil ? .utf8 : QRFormat.forOutput(output, otherwise: .png)
        }
        if format.terminalStyle == nil && output == nil {
            throw UsageError("--format \(format.rawValue) needs --output FILE", hint: "e.g. clawpair qr -o pair.\(format.rawValue)")
        }
        if arguments.flag("setup-code-only") && context.globals.json {
            throw UsageError("give --setup-code-only or --json, not both")
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        try GatewayCLI.withOperator(arguments, context) { session in
            let publicURL = arguments.value("public-url")
                ?? (arguments.flag("remote") ? nil : SetupCodeRequest.reachedURL(session.target.endpoint))
            let minted = try session.mintSetupCode(SetupCodeRequest(bootstrapProfile: profile, publicURL: publicURL,
                                                                    preferRemoteURL: arguments.flag("remote")))
            let setupCode = minted.setupCode
            // Check what the gateway minted before showing it: a code we cannot decode would not pair.
            let decoded: DecodedSetup
            do {
                decoded = try SetupCode.parse(setupCode)
            } catch {
                throw GatewayError.protocolViolation("the gateway's setup code does not decode: \((error as? any ClawpairError)?.message ?? "\(error)")")
            }
            let expiresAtMs = minted.expiresAtMs ?? (context.nowMs + 600_000)
            if arguments.flag("setup-code-only") {
                context.print(setupCode)
                if minted.accessDowngraded { context.warn(Self.downgradeWarning) }
            } else if !context.globals.json {
                try printHuman(minted, decoded: decoded, expiresAtMs: expiresAtMs, context: context)
            }
            var status: SetupStatus?
            if arguments.flag("wait") {
                guard let setupId = minted.setupId else {
                    throw GeneralError("this gateway does not say when a code is used (no setupId: it is older than OpenClaw 2026.7)",
                                       hint: "watch for the device's request instead: clawpair devices watch")
                }
                let remaining = max(0, min(Monotonic.saturatingSubtract(expiresAtMs, context.nowMs), 3_600_000))
                context.note("Waiting for a device to use the code (until it expires in \(DurationText.describe(milliseconds: remaining)))…")
                let signals = TerminationSignals()
                status = try session.waitForSetupUse(setupId: setupId, within: .milliseconds(remaining), stopped: { signals.pending() != nil })
            }
            if context.globals.json && !arguments.flag("setup-code-only") && status != .outstanding {
                var json = Self.json(minted.json, setupCode: setupCode, expiresAtMs: expiresAtMs)
                if let status, case .object(var members) = json {
                    members.append(("setupStatus", Self.json(status)))
                    json = .object(members)
                }
                context.printJSON(json)
            }
            guard let status else { return .success }
            switch status {
            case .completed(let completion), .deliveryUncertain(let completion):
                let uncertain = status != .completed(completion)
                if !context.globals.json || arguments.flag("setup-code-only") {
                    context.note("The code was used by \(GatewayOutput.field(completion.deviceName)) (\(GatewayOutput.shortId(completion.deviceId))), "
                                 + "access \(GatewayOutput.field(completion.access))" + (uncertain ? "; the gateway is not sure it received its credentials." : ".")
                                 + " 'clawpair devices list' shows it.")
                }
                return .success
            case .outstanding:
                throw GeneralError("no device used the code before it expired (or the wait was stopped)",
                                   hint: "mint another: clawpair qr", status: .notFound)
            }
        }
    }

    static let downgradeWarning = "This Gateway URL uses plaintext ws://, so the setup code was limited for safety. "
        + "Use wss:// or Tailscale Serve, then generate a new code for full access."

    /// `{"used", "uncertain", "completion"}` for --json --wait.
    static func json(_ status: SetupStatus) -> JSONValue {
        switch status {
        case .outstanding: return .object([("used", false)])
        case .completed(let completion): return .object([("used", true), ("uncertain", false), ("completion", completion.json)])
        case .deliveryUncertain(let completion): return .object([("used", true), ("uncertain", true), ("completion", completion.json)])
        }
    }

    static func json(_ payload: JSONValue, setupCode: String, expiresAtMs: Int64) -> JSONValue {
        var members: [(String, JSONValue)] = [("setupCode", .string(setupCode))]
        for key in ["gatewayUrl", "gatewayUrls", "auth", "urlSource", "access", "accessDowngraded", "setupId"] {
            guard let value = payload[key], !value.isNull else { continue }
            if key == "gatewayUrls", (value.arrayValue?.count ?? 0) < 2 { continue }
            if key == "accessDowngraded", value.boolValue != true { continue }
            members.append((key, value))
        }
        members.append(("expiresAtMs", .int(expiresAtMs)))
        return .object(members)
    }

    private func printHuman(_ minted: SetupCodeResult, decoded: DecodedSetup, expiresAtMs: Int64, context: CommandContext) throws {
        let setupCode = minted.setupCode
        let style = context.style
        if !arguments.flag("no-ascii") || output != nil {
            let code = try QRCode(encoding: setupCode, errorCorrection: .medium)
            if let output {
                try AtomicFile.write(try code.rendering(format).bytes, to: output, mode: 0o600, replacing: arguments.flag("force"))
            } else if format.terminalStyle != nil {
                let drawn = try code.rendering(format, layout: .terminal)
                if let columns = TerminalWindow.narrower(than: drawn.width, stdoutIsTTY: context.stdoutIsTTY) {
                    // Wrapped lines would not scan; the code was minted, so the setup code below still pairs.
                    context.warn("the QR code is \(drawn.width) columns wide but the terminal has \(columns), so it is not drawn "
                                 + "(it would not scan): enter the setup code below, widen the window, or write an image with -o pair.png")
                } else {
                    context.print(style.bold("Pairing QR"))
                    context.print("Scan this with the OpenClaw mobile app (Onboarding -> Scan QR).")
                    context.stdout.write(drawn.text ?? "")
                }
            }
        }
        context.print("Setup code: \(setupCode)")
        let urls = minted.gatewayUrls ?? []
        let primary = minted.gatewayUrl ?? decoded.primary.url
        context.print("Gateway: \(TerminalText.sanitize(primary, maxScalars: 300))")
        for fallback in urls.dropFirst() { context.print("Fallback: \(TerminalText.sanitize(fallback, maxScalars: 300))") }
        context.print("Auth: \(GatewayOutput.field(minted.auth))")
        context.print("Access: \(GatewayOutput.field(minted.access))")
        if minted.accessDowngraded { context.print(style.yellow(Self.downgradeWarning)) }
        context.print("Source: \(GatewayOutput.field(minted.urlSource, max: 80))")
        let minutes = max(0, Monotonic.saturatingAdd(Monotonic.saturatingSubtract(expiresAtMs, context.nowMs), 30_000) / 60_000)
        context.print("Expires: in \(minutes) min (\(WallClock.iso8601(ms: expiresAtMs) ?? "?"))")
        if let output { context.print("QR image: \(TerminalText.sanitize(output, maxScalars: 300)) (private, 0600; delete it after pairing)") }
        context.print("Approve after scan with: clawpair devices list / clawpair devices approve <requestId>")
    }
}
